"""Quiet by default: no Warp CUDA-driver notice or module-load line unless asked for.

Each command runs in a fresh process, as a user runs it (Warp initialises once per
process). ``--verbose`` or ``LEVIATHAN_VERBOSE=1`` lets Warp's messages through.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_ENV = {k: v for k, v in os.environ.items() if k not in ("LEVIATHAN_VERBOSE", "LEVIATHAN_DEBUG")}
_CUDA_LINE = "Warp CUDA warning"
_LEARNING = ["bench", "learning", "--envs", "1", "--steps", "1", "--device", "cpu"]


def _leviathan(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "leviathan", *args],
        capture_output=True,
        text=True,
        env=_ENV if env is None else env,
        timeout=300,
    )


def _no_cuda_here() -> bool:
    from leviathan.kernels import available_devices

    return "cuda:0" not in available_devices()


def test_catalogue_prints_nothing_on_stderr() -> None:
    result = _leviathan("catalogue")
    assert result.returncode == 0
    assert result.stderr == ""
    assert "reference_survey_vehicle" in result.stdout


def test_a_warp_command_prints_no_cuda_notice_and_no_module_lines() -> None:
    result = _leviathan("parity", "--backend", "warp", "--device", "cpu")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert _CUDA_LINE not in result.stdout and "Module " not in result.stdout
    lines = result.stdout.splitlines()
    assert "sonar_v1: 28/28 bit-identical" in lines
    assert lines[-1].endswith(" bit-identical") and not any(x.startswith("FAIL") for x in lines)


def test_the_learning_bench_prints_no_module_lines() -> None:
    result = _leviathan(*_LEARNING, "--no-canonical")
    assert result.returncode == 0, result.stderr
    assert "Module " not in result.stdout + result.stderr
    assert _CUDA_LINE not in result.stderr


@pytest.mark.parametrize("how", ["flag", "env"])
def test_verbose_lets_warps_messages_through(how: str) -> None:
    if how == "flag":
        result = _leviathan(*_LEARNING, "--no-canonical", "--verbose")
    else:
        result = _leviathan(*_LEARNING, "--no-canonical", env=dict(_ENV, LEVIATHAN_VERBOSE="1"))
    assert result.returncode == 0, result.stderr
    assert "Module leviathan.learning." in result.stdout  # Warp's own load lines
    if _no_cuda_here():
        assert _CUDA_LINE in result.stderr
