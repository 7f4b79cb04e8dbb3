"""The batch commands' allocator setting: freed blocks reused, only where it is asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import leviathan._allocator as allocator
from leviathan.cli import _main, _parser, _tune_allocator

_FAULTS = textwrap.dedent(
    """
    import json, os, resource, sys
    import numpy as np
    np._core.multiarray._set_madvise_hugepage(False)  # 4 KiB pages: faults count pages
    from leviathan._allocator import tune_for_batch
    tuned = tune_for_batch() if sys.argv[1] == "tune" else False

    def faults_of_a_fresh_block():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        block = np.empty(48 << 20, dtype=np.uint8)  # over glibc's largest default threshold
        block[::4096] = 1
        del block
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    faults_of_a_fresh_block()
    print(json.dumps({"tuned": tuned, "faults": [faults_of_a_fresh_block() for _ in range(3)]}))
    """
)


def _faults(mode: str, **env: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _FAULTS, mode],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
        timeout=120,
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_tuned_a_freed_block_is_reused_instead_of_faulted_in_again() -> None:
    default = _faults("default")
    tuned = _faults("tune")
    assert default["tuned"] is False and tuned["tuned"] is True
    pages = (48 << 20) // 4096
    # glibc's default: the block is a fresh mapping each time, every page faulted in.
    assert min(default["faults"]) > pages // 2
    # Tuned: the heap keeps the freed block and the next one is served from it.
    assert max(tuned["faults"]) < pages // 20


def test_leviathan_malloc_system_keeps_glibcs_defaults() -> None:
    assert _faults("tune", LEVIATHAN_MALLOC="system")["tuned"] is False


def test_only_the_command_lines_own_batch_commands_tune(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(allocator, "tune_for_batch", lambda: calls.append("tuned") or True)
    assert _main(["catalogue"], program=False) == 0  # main() called by a program: no
    assert calls == []
    capsys.readouterr()
    parser = _parser()
    for argv, asked in ((["catalogue"], True), (["demo"], True), (["serve"], False)):
        assert _tune_allocator(parser.parse_args(argv), program=True) is asked, argv
        assert _tune_allocator(parser.parse_args(argv), program=False) is False, argv
    assert calls == ["tuned", "tuned"]
