"""Ctrl-C stops every long command at any moment: exit 130 within 2 s, nothing left behind.

Each case starts the real command in a subprocess, sends SIGINT at a moment given
as a share of the same command's uninterrupted run time (measured once per module,
so the moments spread over start-up, tracing, preview, dataset and final writes
whatever the machine's speed), and checks the exit status, the time from the
signal to the exit, the one ``error: interrupted`` line and that the output's
parent folder holds nothing new: no output, no temporary sibling.

Python children of a pytest-xdist worker may inherit SIGINT ignored; each child
restores the default disposition first (``preexec_fn``), as a shell's foreground
job has it. The demo runs a shortened configuration (``--seconds 0.6
--seabed-triangles 2000``: the same stages and writers, four pings), about 5 s.

Outside these tests' moments: in the interpreter's first ~30 ms (before and while
Python processes site-packages) a SIGINT is Python's alone and kills the process;
after the command has finished, a signal ends the process with the command's own
status (:mod:`leviathan._startup`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 2.0
_ENV = {k: v for k, v in os.environ.items() if k not in ("LEVIATHAN_DEBUG", "LEVIATHAN_VERBOSE")}
DEMO = ["demo", "--seconds", "0.6", "--seabed-triangles", "2000", "--quiet"]
# Shares of the uninterrupted run time at which SIGINT is sent to the demo: the first
# ones land in start-up (imports, the World, Warp), then traces, previews, dataset
# writes and the final products.
DEMO_MOMENTS = (0.04, 0.1, 0.17, 0.24, 0.31, 0.38, 0.45, 0.52, 0.6, 0.68, 0.76, 0.84, 0.92)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(args: list[str], cwd: Path, *, debug: bool = False) -> subprocess.Popen[str]:
    env = dict(_ENV, LEVIATHAN_DEBUG="1") if debug else _ENV
    return subprocess.Popen(
        [sys.executable, "-m", "leviathan", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )


def _run_whole(args: list[str], cwd: Path) -> float:
    start = time.monotonic()
    proc = _start(args, cwd)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out + err
    return time.monotonic() - start


def _where(traceback_text: str) -> str:
    """The innermost LEVIATHAN frame of a ``--debug`` traceback: where the signal landed."""
    frames = [
        line.strip()
        for line in traceback_text.splitlines()
        if line.strip().startswith("File ")
        and any(part in line for part in ("/leviathan/", "/kernels/", "/usd/"))
        and "/leviathan/_interrupt.py" not in line  # the handler that raised, not the place
    ]
    if not frames:
        return "(outside LEVIATHAN code)"
    file_part, _, function = frames[-1].rpartition(", in ")
    name = file_part.split('"')[1]
    for root in ("leviathan/", "kernels/", "usd/"):
        if root in name:
            name = root + name.rsplit(root, 1)[1]
            break
    return f"{name}:{function}"


_finished_in_s: list[float | None] = [None]  # set by _interrupt when a run ends before its moment


def _interrupt(
    args: list[str], cwd: Path, after_s: float, *, debug: bool = False
) -> tuple[int, float, str, str]:
    """Starts ``leviathan args``, sends SIGINT after ``after_s``; (status, exit delay, out, err)."""
    proc = _start(args, cwd, debug=debug)
    start = time.monotonic()
    while time.monotonic() - start < after_s and proc.poll() is None:
        time.sleep(min(0.01, max(0.0, after_s - (time.monotonic() - start))))
    if proc.poll() is not None:
        # Finished before its moment: the caller learns the run's own length.
        _finished_in_s[0] = time.monotonic() - start
        out, err = proc.communicate()
        return proc.returncode, 0.0, out, err
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 30 s after SIGINT at {after_s:.2f} s:\n{out}\n{err}")
    delay_s = time.monotonic() - sent
    if proc.returncode == 0:
        # The command had finished when the signal came (the process was in its last
        # exit hooks, which keep the command's own status): as finishing before the moment.
        assert "interrupted" not in err, err
        _finished_in_s[0] = after_s
    return proc.returncode, delay_s, out, err


def _check_stopped(
    returncode: int, delay_s: float, err: str, *, debug: bool, after_s: float
) -> str:
    """Asserts a correct stop by the signal; returns where it landed, for the report."""
    # 2 s of a free CPU: on an oversubscribed machine (pytest -n auto runs other tests
    # beside this one) the child waits its turn, so the bound scales with the run queue.
    limit_s = LIMIT_S * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    assert delay_s <= limit_s, (
        f"exit {delay_s:.2f} s after SIGINT at {after_s:.2f} s (limit {limit_s:.2f} s at load "
        f"{os.getloadavg()[0]:.1f})"
    )
    assert returncode == 130, f"exit status {returncode} after SIGINT at {after_s:.2f} s:\n{err}"
    lines = err.strip().splitlines()
    assert lines[-1] == "error: interrupted", err
    if not debug:
        assert lines == ["error: interrupted"], err
    if len(lines) == 1:
        # No traceback: the start-up handler (still importing) or the watchdog's exit
        # (the main thread inside one long call, or the interrupt swallowed there).
        return "(no traceback: start-up handler or watchdog exit)"
    return _where(err)


def _interrupt_at_share(
    args: list[str], folder: Path, share: float, estimate_s: list[float], *, debug: bool
) -> tuple[int, float, float, str]:
    """Interrupts a run at ``share`` of the estimated run time; (status, at, delay, err).

    Under a varying load a run can end sooner than the estimate said: then the estimate
    is corrected to the run's own time and the moment tried again, so that every moment
    meets a running command.
    """
    for _ in range(4):
        for leftover in folder.iterdir():
            _remove(leftover)
        after_s = share * estimate_s[0]
        _finished_in_s[0] = None
        status, delay_s, _, err = _interrupt(args, folder, after_s, debug=debug)
        if status != 0 or _finished_in_s[0] is None:
            return status, after_s, delay_s, err
        # The first uninterrupted run can be much slower than the later ones (a cold
        # Warp kernel cache, a loaded machine): the estimate becomes this run's length.
        print(f"  ({args[0]} finished in {_finished_in_s[0]:.2f} s, before {after_s:.2f} s)")
        estimate_s[0] = min(estimate_s[0], _finished_in_s[0]) * 0.95
    pytest.fail(f"{args[0]} always finished before {share:.0%} of its run time")


def _remove(path: Path) -> None:
    import shutil

    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_ctrl_c_stops_the_demo_at_any_moment(tmp_path) -> None:
    whole = tmp_path / "whole"
    whole.mkdir()
    estimate = [_run_whole([*DEMO, "--out", str(whole / "out")], whole)]
    work = tmp_path / "work"
    work.mkdir()
    report = []
    for share in DEMO_MOMENTS:
        status, after_s, delay_s, err = _interrupt_at_share(
            [*DEMO, "--out", str(work / "out")], work, share, estimate, debug=True
        )
        where = _check_stopped(status, delay_s, err, debug=True, after_s=after_s)
        left = _names(work)
        # Nothing new; or, for a signal that came after the finished output was put in
        # place, that output whole (its manifest is written last).
        assert left == set() or (left == {"out"} and (work / "out" / "manifest.json").is_file())
        report.append(
            f"demo SIGINT at {after_s:5.2f} s ({share:4.0%} of ~{estimate[0]:.1f} s): status "
            f"{status}, exit {delay_s:.2f} s later; landed in {where}"
        )
    print("\n" + "\n".join(report))
    assert len(report) >= 10


def test_ctrl_c_prints_one_line_without_debug(tmp_path) -> None:
    estimate = [_run_whole([*DEMO, "--out", str(tmp_path / "whole")], tmp_path)]
    _remove(tmp_path / "whole")
    status, after_s, delay_s, err = _interrupt_at_share(
        [*DEMO, "--out", str(tmp_path / "out")], tmp_path, 0.5, estimate, debug=False
    )
    _check_stopped(status, delay_s, err, debug=False, after_s=after_s)
    assert _names(tmp_path) == set()


def test_ctrl_c_keeps_the_previous_output_of_a_rerun(tmp_path) -> None:
    out = tmp_path / "out"
    estimate = [_run_whole([*DEMO, "--out", str(out)], tmp_path)]
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    after_s = 0.5 * estimate[0]
    status, delay_s, _, err = _interrupt([*DEMO, "--out", str(out)], tmp_path, after_s)
    if status != 0:
        _check_stopped(status, delay_s, err, debug=False, after_s=after_s)
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before  # the same run replaced whole, or kept as it was
    assert _names(tmp_path) == {"out"}


# --------------------------------------------------------------------------- other commands


def _scenario(folder: Path) -> Path:
    text = (ROOT / "examples" / "survey_stern_failure.toml").read_text()
    for old, new in (
        ("duration_ns = 50_000_000_000", "duration_ns = 3_000_000_000"),
        ("seabed_triangles = 20_000", "seabed_triangles = 2_000"),
        ("time_ns = 25_000_000_000", "time_ns = 1_000_000_000"),
    ):
        assert old in text
        text = text.replace(old, new)
    path = folder / "scenario.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A short scenario document and a recorded demo run folder, read by the commands."""
    folder = tmp_path_factory.mktemp("inputs")
    run = folder / "run"
    _run_whole([*DEMO, "--out", str(run)], folder)
    return {"scenario": _scenario(folder), "run": run}


# Per command: its arguments (given the inputs and the output path) and what a finished
# output leaves (a signal after it was put in place may find it there, whole).
COMMANDS = {
    "scenario run": (
        lambda i, out: ["scenario", "run", str(i["scenario"]), "--out", str(out), "--quiet"],
        {"out"},
    ),
    "export-dataset": (
        lambda i, out: [
            "export-dataset", str(i["run"]), "--mcap", f"{out}.mcap", "--hdf5", f"{out}.h5",
            "--quiet",
        ],
        {"out.mcap", "out.h5"},
    ),
    "export-usd": (lambda i, out: ["export-usd", f"{out}.usda", "--seconds", "0.3"], {"out.usda"}),
    "sonar-image": (
        lambda i, out: ["sonar-image", "--seabed-triangles", "2000", "--out", str(out)],
        {"out"},
    ),
    "bench": (lambda i, out: ["bench", "sonar", "--triangles", "20000", "--pings", "3"], set()),
    "parity": (lambda i, out: ["parity", "--backend", "warp", "--device", "cpu"], set()),
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_stops_every_long_command(command: str, inputs, tmp_path) -> None:
    make_args, finished = COMMANDS[command]
    whole = tmp_path / "whole"
    whole.mkdir()
    estimate = [_run_whole(make_args(inputs, whole / "out"), whole)]
    work = tmp_path / "work"
    work.mkdir()
    status, after_s, delay_s, err = _interrupt_at_share(
        make_args(inputs, work / "out"), work, 0.5, estimate, debug=True
    )
    where = _check_stopped(status, delay_s, err, debug=True, after_s=after_s)
    assert _names(work) in (set(), finished)
    print(
        f"\n{command} SIGINT at {after_s:5.2f} s (50% of ~{estimate[0]:.1f} s): status {status}, "
        f"exit {delay_s:.2f} s later; landed in {where}"
    )


@pytest.mark.parametrize("finished", [True, False])
def test_a_signal_after_the_command_finished_keeps_its_status(finished: bool) -> None:
    """The last exit hook ignores SIGINT once the command has finished (Python's
    finalisation would put back the default disposition, and a Ctrl-C in that window
    would kill the finished command with -SIGINT); before that, SIGINT still interrupts."""
    code = (
        "import os, signal\n"
        "from leviathan import _startup\n"
        f"if {finished}: _startup.command_finished(0)\n"
        "_startup._ignore_signals_after_the_command()\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "print('alive', signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=_ENV,
        preexec_fn=_default_sigint,
    )
    if finished:
        assert (done.returncode, done.stdout) == (0, "alive True\n"), done.stderr
    else:
        # Python ends an uncaught KeyboardInterrupt by killing itself with SIGINT.
        assert done.returncode == -signal.SIGINT, done.stderr
        assert "KeyboardInterrupt" in done.stderr, done.stderr
