"""leviathan._interrupt: each way Ctrl-C used to get lost, in a small real process.

Each case runs a short script under :func:`handling_signals` (as the command line
runs a command) with SIGINT at its default disposition, signals it, and checks the
exit status, the time to exit and what is left on disk.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

_PRELUDE = """
import os, sys, time
from pathlib import Path
from leviathan import _interrupt
from leviathan._files import atomic_directory
out = Path(sys.argv[1])

def ready():
    print("ready", flush=True)
"""


def _start(
    body: str, folder: Path, *, sigint: Any = signal.SIG_DFL, stderr: int | None = None
) -> subprocess.Popen:
    """Starts the script with SIGINT at ``sigint`` and returns once it prints ``ready``."""
    script = folder / "script.py"
    script.write_text(_PRELUDE + textwrap.dedent(body))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(folder / "out")],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _run(
    body: str, folder: Path, *, signals: int = 1, wait_s: float = 0.0
) -> tuple[int, float, str, str]:
    """Runs the script; SIGINT ``wait_s`` after it prints ``ready``; (status, delay, out, err)."""
    proc = _start(body, folder, stderr=subprocess.PIPE)
    time.sleep(wait_s)
    for _ in range(signals):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the process did not stop")
    return proc.returncode, time.monotonic() - sent, out, err


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "script.py")


def test_an_interrupt_swallowed_in_a_destructor_is_raised_at_the_next_checkpoint(
    tmp_path,
) -> None:
    status, delay, out, err = _run(
        """
        class Swallows:
            def __del__(self):
                ready()
                time.sleep(0.5)  # the signal lands here, where Python only reports it

        with _interrupt.handling_signals():
            try:
                with atomic_directory(out) as staging:
                    Swallows()  # deleted at once: the handler's KeyboardInterrupt is lost
                    print("went on", flush=True)
                    for _ in range(100):
                        _interrupt.checkpoint()
                        time.sleep(0.01)
            except KeyboardInterrupt:
                print("stopped at a checkpoint", flush=True)
                sys.exit(130)
        """,
        tmp_path,
    )
    assert status == 130, err
    assert out.split("\n")[:2] == ["went on", "stopped at a checkpoint"]
    assert "Exception ignored" not in err  # the lost interrupt is not reported as noise
    assert delay < 2.0
    assert _left(tmp_path) == []


def test_a_long_c_call_is_ended_by_the_watchdog_and_its_temporaries_removed(tmp_path) -> None:
    status, delay, _, err = _run(
        """
        import hashlib
        with _interrupt.handling_signals(keep_watchdog=True):
            with atomic_directory(out) as staging:
                (staging / "half.bin").write_bytes(b"x" * 1000)
                ready()
                # One long C call that releases the GIL: Python's handler cannot run
                # until it returns (seconds), the watchdog thread can.
                hashlib.pbkdf2_hmac("sha256", b"key", b"salt", 50_000_000)
        """,
        tmp_path,
        wait_s=0.3,  # well inside the call (a minute long)
    )
    assert status == 130
    assert err == "error: interrupted\n"
    assert 0.4 <= delay < 2.0  # the watchdog's grace (0.5 s), then at once
    assert _left(tmp_path) == []


def test_a_second_signal_ends_the_process_at_once(tmp_path) -> None:
    status, delay, _, err = _run(
        """
        import hashlib
        with _interrupt.handling_signals(keep_watchdog=True):
            with atomic_directory(out):
                ready()
                hashlib.pbkdf2_hmac("sha256", b"key", b"salt", 50_000_000)
        """,
        tmp_path,
        signals=2,
        wait_s=0.3,
    )
    assert status == 130 and err == "error: interrupted\n"
    assert delay < 0.4  # no grace: the user insisted
    assert _left(tmp_path) == []


def test_a_deferred_section_finishes_before_the_interrupt(tmp_path) -> None:
    status, _, out, _ = _run(
        """
        with _interrupt.handling_signals():
            try:
                with _interrupt.deferred():
                    ready()
                    time.sleep(0.5)
                    print("section finished", flush=True)
                print("not reached", flush=True)
            except KeyboardInterrupt:
                print("interrupted after it", flush=True)
                sys.exit(130)
        """,
        tmp_path,
    )
    assert status == 130
    assert out.splitlines() == ["section finished", "interrupted after it"]


def test_sigterm_is_handled_like_ctrl_c_with_its_own_status(tmp_path) -> None:
    proc = _start(
        """
        with _interrupt.handling_signals():
            try:
                with atomic_directory(out):
                    ready()
                    time.sleep(30)
            except KeyboardInterrupt:
                sys.exit(_interrupt.exit_status())
        """,
        tmp_path,
    )
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == 143
    assert _left(tmp_path) == []


def test_an_ignored_sigint_stays_ignored(tmp_path) -> None:
    # A background job: the parent set SIGINT to be ignored, so Ctrl-C is not for it.
    proc = _start(
        """
        import signal
        with _interrupt.handling_signals():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            ready()
            time.sleep(0.5)
        print("finished", flush=True)
        """,
        tmp_path,
        sigint=signal.SIG_IGN,
    )
    proc.send_signal(signal.SIGINT)
    assert proc.wait(20) == 0
    assert proc.stdout.read().strip() == "finished"


def test_outside_the_command_line_nothing_changes() -> None:
    from leviathan import _interrupt

    before = signal.getsignal(signal.SIGINT)
    _interrupt.checkpoint()  # no signal seen: nothing to raise
    assert not _interrupt.interrupt_requested()
    assert signal.getsignal(signal.SIGINT) is before
