"""The ``leviathan`` command line: ``catalogue``, ``parity``, ``bench``, ``demo``, ``export-usd``,
``export-dataset``, ``serve``, ``scenario run``, ``sonar-image``.

Failures are reported in one place, :func:`main`: every failure prints exactly
one line ``error: <what went wrong>`` to stderr (an OS error as
``error: <path>: <why>``) and exits non-zero, without a traceback:

====  ===================================================================
code  meaning
====  ===================================================================
0     success
1     the command could not complete: an OS error (a file or folder that
      cannot be read or written), a refused World operation, a missing
      optional dependency, a parity mismatch, or an unexpected internal
      error (its line says so)
2     bad input: a usage error (unknown option, bad option value), or a
      value refused by validation (``ValueError``, ``TypeError``,
      ``KeyError``, ``SpecError``, ...)
130   interrupted (Ctrl-C); whatever the command was writing is left as
      it was before the run
====  ===================================================================

``--debug`` (anywhere on the line) or the environment variable
``LEVIATHAN_DEBUG=1`` also prints the traceback above that line, for every
failure except a usage error.

Longer than 500 lines because it holds every subcommand's argparse definition beside
its thin handler, so the whole command line reads in one place; each handler only
calls the library function a Python user would call.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILURE", "EXIT_INTERRUPTED", "main"]

EXIT_FAILURE = 1
"""Exit status when a command could not complete (OS errors, refused operations, bugs)."""
EXIT_BAD_INPUT = 2
"""Exit status for a usage error or an input value refused by validation (as argparse)."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""


def _cmd_catalogue(args: argparse.Namespace) -> int:
    from leviathan.catalogue import format_catalogue

    print(format_catalogue())
    return 0


def _cmd_parity(args: argparse.Namespace) -> int:
    from leviathan.parity import check_fixture

    results = check_fixture(args.fixtures, backend=args.backend, device=args.device)
    if args.backend != "reference":
        from leviathan.kernels import compile_reports

        for report in compile_reports().values():
            print(
                f"warp kernels on {report.device}: ready in {report.seconds:.3f} s "
                "(compile, or load from Warp's kernel cache)"
            )
    identical = 0
    for r in results:
        if r.ok:
            identical += 1
            print(f"ok    {r.name}")
        else:
            print(f"FAIL  {r.name}")
            for m in r.mismatches:
                print(f"        {m}")
    print(f"{identical}/{len(results)} bit-identical")
    if identical != len(results):
        raise _CommandFailed(
            f"{len(results) - identical} of {len(results)} fixture scenes are not bit-identical "
            "(see the FAIL lines above)"
        )
    return 0


def _cmd_bench_learning(args: argparse.Namespace) -> int:
    from leviathan.bench import bench_learning, format_learning_bench

    sonar = tuple(args.sonar)
    result = bench_learning(
        env_counts=args.envs,
        steps=args.steps,
        devices=[args.device] if args.device else None,
        sonar=(sonar[0], sonar[1]),
        canonical=not args.no_canonical,
    )
    print(
        json.dumps(result, indent=2, sort_keys=True) if args.json else format_learning_bench(result)
    )
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from leviathan.bench import bench_sonar, format_sonar_bench

    result = bench_sonar(
        triangle_counts=args.triangles,
        pings=args.pings,
        backend=args.backend,
        device=args.device,
        bearings=args.bearings,
        elevations=args.elevations,
    )
    print(json.dumps(result, indent=2, sort_keys=True) if args.json else format_sonar_bench(result))
    return 0


def _cmd_bench_world(args: argparse.Namespace) -> int:
    from leviathan._bench_world import bench_world, format_world_bench

    result = bench_world(
        ticks=args.ticks,
        runs=args.runs,
        seabed_triangles=args.triangles,
        sonar_size=None if args.sonar is None else (args.sonar[0], args.sonar[1]),
        configurations=args.configurations,
        snapshot_ticks=args.snapshot_ticks,
        hash_mib=args.hash_mib,
    )
    print(json.dumps(result, indent=2, sort_keys=True) if args.json else format_world_bench(result))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from leviathan.demo import TICK_NS, run_demo, ticks_for_duration

    # Validated here too so that the message names the option as typed.
    ticks_for_duration(args.seconds, TICK_NS, name="--seconds", minimum=1)
    run_demo(args.out, seconds=args.seconds, progress=not args.quiet)
    return 0


def _cmd_scenario_run(args: argparse.Namespace) -> int:
    from leviathan.analytic import run_scenario

    result = run_scenario(args.file, out=args.out, progress=not args.quiet)
    print(f"analytic scenario {result.scenario.name!r}: {result.tick_count} ticks -> {args.out}")
    for fault in result.faults:
        print(
            f"  fault {fault['vehicle']}/{fault['thruster']} {fault['kind']}: effective on tick "
            f"{fault['effective_tick']} (t = {fault['effective_time_ns']} ns)"
        )
    for sid, stream in result.sensors.items():
        record = stream.generator.to_json()
        print(f"  sensor {sid}: {stream.arrays['time_ns'].shape[0]} samples, seed {record['seed']}")
    print(f"  analytic hash {result.analytic_hash} (tier analytic, not canonical)")
    return 0


def _cmd_sonar_image(args: argparse.Namespace) -> int:
    from leviathan.analytic import SonarNoiseModel, sonar_image, write_sonar_image
    from leviathan.demo import survey_environment

    noisy = args.speckle or args.noise_floor_db is not None or args.gain_db != 0.0
    noise = SonarNoiseModel(
        speckle=args.speckle, noise_floor_db=args.noise_floor_db, gain_db=args.gain_db
    )
    env = survey_environment(args.seabed_triangles)
    image = sonar_image(
        scene=env.scene_at(0),
        position_ned_m=args.position,
        rpy_deg=args.rpy,
        water=env.water,
        noise=noise if noisy else None,
        seed=args.seed,
        backend=args.backend,
    )
    views = [v for v, on in (("fan", args.fan), ("bscan", args.bscan)) if on] or ["fan"]
    written = write_sonar_image(args.out, image, views=views, report=args.report)
    r = image.report
    print(f"analytic sonar image (tier analytic, not canonical): {r.elevation_sample_count.how}")
    print(f"  empty cells {100 * r.empty_cell_share.value:.1f} %; {r.falloff_note}")
    print("\n".join(f"  wrote {path}" for path in written))
    return 0


def _cmd_export_usd(args: argparse.Namespace) -> int:
    from leviathan.demo import TICK_NS, build_demo_world, ticks_for_duration
    from leviathan.usd import check_stage_path

    # Everything that can be refused is refused before the World is built and run.
    ticks = ticks_for_duration(args.seconds, TICK_NS, name="--seconds")
    path = check_stage_path(args.path)
    world = build_demo_world()
    if ticks:
        world.step(ticks)
    path = world.export_usd(path)
    snapshot = world.snapshot().content_hash[:16]
    print(f"wrote {path} ({world.tick + 1} committed ticks, snapshot {snapshot})")
    return 0


def _cmd_export_dataset(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from leviathan.datasets import export_dataset

    if args.mcap is None and args.hdf5 is None:
        raise ValueError("export-dataset: give --mcap FILE and/or --hdf5 FILE")
    bars: list[Any] = []  # made at the first progress report, so a refusal prints one line

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="group", desc="export", disable=args.quiet))
        bars[0].update(done - bars[0].n)

    try:
        written = export_dataset(args.run, mcap=args.mcap, hdf5=args.hdf5, progress=progress)
    finally:
        for bar in bars:
            bar.close()
    for kind, path in sorted(written.items()):
        print(f"wrote {path} ({kind}, {path.stat().st_size / 1e6:.1f} MB)")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from leviathan.service import ServiceSettings, serve

    settings = ServiceSettings(
        workers=args.workers,
        cors_origins=tuple(args.cors_origin),
        samples_kept=args.samples_kept,
        samples_bytes_per_world=args.samples_bytes_per_world,
        samples_bytes_total=args.samples_bytes_total,
    )
    try:
        serve(host=args.host, port=args.port, token=args.token, settings=settings)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the service is stopped: a clean exit, not a failure
    return 0


def _cmd_bench_service(args: argparse.Namespace) -> int:
    from leviathan.service import bench_service, format_service_bench

    result = bench_service(
        world_counts=args.worlds, steps=args.steps, ticks=args.ticks, clients=args.clients
    )
    print(
        json.dumps(result, indent=2, sort_keys=True) if args.json else format_service_bench(result)
    )
    return 0


class _UsageError(Exception):
    """A command line argparse refused; its message is argparse's."""


class _CommandFailed(Exception):
    """A command ran to the end and found a failure it has already detailed on stdout."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors reach :func:`main` instead of exiting.

    argparse would print the usage text and a message and exit; raising lets
    ``main`` print the one ``error:`` line every failure gets. Subcommand
    parsers are made with the same class, so they behave the same.
    """

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="leviathan",
        description="LEVIATHAN: underwater robotics simulation with exact ground truth.",
        epilog="Exit status: 0 success, 1 failure, 2 bad input or usage, 130 interrupted.",
    )
    # Only listed here for --help: main() takes --debug out of the line before parsing.
    parser.add_argument(
        "--debug",
        action="store_true",
        help="print the traceback of a failure; anywhere on the line (or LEVIATHAN_DEBUG=1)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("catalogue", help="list the built-in vehicles with their sensors and rates")
    p.set_defaults(func=_cmd_catalogue)

    p = sub.add_parser(
        "parity", help="check a backend bit for bit against the frozen 28-scene fixture"
    )
    p.add_argument(
        "--backend",
        default="reference",
        choices=["reference", "warp", "auto"],
        help="tracing backend (default: reference)",
    )
    p.add_argument(
        "--device", default=None, help="device for the backend: cpu or cuda:N (default: its own)"
    )
    p.add_argument(
        "--fixtures",
        default=None,
        metavar="DIR",
        help="fixture directory holding manifest.json and the scene .npz files (default: "
        "$LEVIATHAN_FIXTURES, else the fixture installed with the package)",
    )
    p.set_defaults(func=_cmd_parity)

    p = sub.add_parser("bench", help="benchmarks (prints figures; never asserts times)")
    bench_sub = p.add_subparsers(dest="target", required=True, metavar="TARGET")
    b = bench_sub.add_parser("sonar", help="reference survey sonar over generated seabeds")
    b.add_argument(
        "--backend",
        default="all",
        choices=["all", "reference", "warp", "auto"],
        help="tracers to time side by side (default: all = reference and Warp on every device)",
    )
    b.add_argument(
        "--device", default=None, help="one device for --backend warp/auto: cpu or cuda:N"
    )
    b.add_argument("--bearings", type=int, default=512, help="sonar bearings (default: 512)")
    b.add_argument(
        "--elevations", type=int, default=128, help="elevation samples per bearing (default: 128)"
    )
    b.add_argument(
        "--triangles",
        type=int,
        nargs="+",
        default=[10_000, 100_000, 1_000_000],
        help="seabed triangle counts (default: 1e4 1e5 1e6)",
    )
    b.add_argument("--pings", type=int, default=5, help="pings per seabed; the median is reported")
    b.add_argument("--json", action="store_true", help="print JSON instead of a table")
    b.set_defaults(func=_cmd_bench)
    b = bench_sub.add_parser(
        "learning", help="learning-tier vector env (float32, batched) beside the canonical World"
    )
    b.add_argument("--envs", type=int, nargs="+", default=[1, 64, 1024, 4096], help="env counts")
    b.add_argument("--steps", type=int, default=50, help="control steps per timed run")
    b.add_argument("--device", default=None, help="one Warp device (default: every device)")
    b.add_argument(
        "--sonar", type=int, nargs=2, default=[64, 8], metavar=("BEARINGS", "ELEVATIONS")
    )
    b.add_argument("--no-canonical", action="store_true", help="skip the canonical peer")
    b.add_argument("--json", action="store_true", help="print JSON instead of a table")
    b.set_defaults(func=_cmd_bench_learning)
    b = bench_sub.add_parser(
        "service", help="step-request latency and ticks/s over HTTP beside in-process"
    )
    b.add_argument("--worlds", type=int, nargs="+", default=[1, 32], help="World counts")
    b.add_argument("--steps", type=int, default=20, help="step requests per World")
    b.add_argument("--ticks", type=int, default=10, help="ticks per step request")
    b.add_argument("--clients", type=int, default=8, help="client threads")
    b.add_argument("--json", action="store_true", help="print JSON instead of a table")
    b.set_defaults(func=_cmd_bench_service)
    b = bench_sub.add_parser(
        "world", help="World ms/tick by sensor configuration, beside the dynamics-only tick"
    )
    b.add_argument("--ticks", type=int, default=200, help="ticks per timed run (default: 200)")
    b.add_argument("--runs", type=int, default=3, help="timed runs; the median is reported")
    b.add_argument(
        "--triangles", type=int, default=20_000, help="seabed triangles (default: 20000)"
    )
    b.add_argument(
        "--sonar",
        type=int,
        nargs=2,
        default=None,
        metavar=("BEARINGS", "ELEVATIONS"),
        help="sonar size (default: the catalogue sonar)",
    )
    b.add_argument(
        "--configurations",
        nargs="+",
        default=None,
        help="dynamics +imu +dvl +sonar +camera (default: all; dynamics is always timed)",
    )
    b.add_argument(
        "--snapshot-ticks",
        type=int,
        default=20_000,
        help="ticks of the World whose snapshot is timed (0 skips; default: 20000)",
    )
    b.add_argument(
        "--hash-mib", type=int, default=64, help="array size for the hashing figure (0 skips)"
    )
    b.add_argument("--json", action="store_true", help="print JSON instead of a table")
    b.set_defaults(func=_cmd_bench_world)

    p = sub.add_parser(
        "export-usd", help="run the survey demo World and write it as an OpenUSD stage"
    )
    p.add_argument("path", help="output stage, .usda or .usdc")
    p.add_argument(
        "--seconds",
        default="0",
        help="simulated seconds before export, a whole number of 10 ms ticks (default: 0)",
    )
    p.set_defaults(func=_cmd_export_usd)

    p = sub.add_parser(
        "export-dataset",
        help="export a recorded run (a demo output folder) as ROS 2 MCAP and/or HDF5",
    )
    p.add_argument("run", help="run folder holding dataset.h5 (e.g. survey_out), or the .h5 file")
    p.add_argument("--mcap", metavar="FILE", help="write a ROS 2 bag in MCAP (.mcap)")
    p.add_argument("--hdf5", metavar="FILE", help="write HDF5 with the full ground truth (.h5)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_export_dataset)

    p = sub.add_parser("scenario", help="analytic scenario runs (thruster faults, sensor noise)")
    scenario_sub = p.add_subparsers(dest="scenario_command", metavar="SUBCOMMAND", required=True)
    r = scenario_sub.add_parser("run", help="run a scenario document (.toml/.json) into a folder")
    r.add_argument("file", help="scenario document, e.g. examples/survey_stern_failure.toml")
    r.add_argument("--out", required=True, help="output folder (created; a previous run replaced)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_scenario_run)

    p = sub.add_parser("sonar-image", help="analytic sonar image (not canonical), survey scene")
    p.add_argument(
        "--position",
        nargs=3,
        type=float,
        default=(-12.0, -8.0, 20.0),
        metavar=("N", "E", "D"),
        help="vehicle NED position [m] (default -12 -8 20)",
    )
    p.add_argument(
        "--rpy",
        nargs=3,
        type=float,
        default=(0.0, 0.0, 0.0),
        metavar=("ROLL", "PITCH", "YAW"),
        help="vehicle attitude [deg] (default 0 0 0)",
    )
    for flag, text in (
        ("--fan", "fan PNG (the default)"),
        ("--bscan", "B-scan PNG"),
        ("--report", "report JSON"),
        ("--speckle", "analytic speckle"),
    ):
        p.add_argument(flag, action="store_true", help=text)
    p.add_argument("--out", default="sonar_image_out", help="output folder (created if missing)")
    p.add_argument("--noise-floor-db", type=float, default=None, help="noise floor [dB re 1]")
    p.add_argument("--gain-db", type=float, default=0.0, help="receiver gain [dB]")
    p.add_argument("--seed", type=int, default=None, help="noise seed (default: unseeded)")
    p.add_argument("--seabed-triangles", type=int, default=100_000, help="survey seabed size")
    p.add_argument("--backend", default="auto", choices=("auto", "reference", "warp"))
    p.set_defaults(func=_cmd_sonar_image)

    p = sub.add_parser("demo", help="survey demo: a survey AUV and an inspection ROV in one World")
    p.add_argument("--out", default="survey_out", help="output directory (default: survey_out)")
    p.add_argument(
        "--seconds",
        default="20",
        help="simulated seconds, a positive whole number of 10 ms ticks (default: 20)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("serve", help="serve live Worlds over HTTP and WebSocket until Ctrl-C")
    p.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1, loopback)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default: 8000; 0: any)")
    p.add_argument(
        "--token",
        default=None,
        help="token every request must carry (default: $LEVIATHAN_TOKEN); required off loopback",
    )
    p.add_argument("--workers", type=int, default=8, help="worker threads (default: 8)")
    p.add_argument(
        "--cors-origin", action="append", default=[], help="allow CORS from this origin (repeat)"
    )
    # ServiceSettings' defaults (a test keeps them equal; importing the service here
    # would load FastAPI for every command).
    p.add_argument(
        "--samples-kept",
        type=_positive_int,
        default=512,
        help="recent samples each World keeps downloadable (default: 512)",
    )
    p.add_argument(
        "--samples-bytes-per-world",
        type=_byte_size,
        default=128 * 1024**2,
        metavar="SIZE",
        help=f"bytes of kept samples per World, e.g. 64M (default: {_size_text(128 * 1024**2)})",
    )
    p.add_argument(
        "--samples-bytes-total",
        type=_byte_size,
        default=2 * 1024**3,
        metavar="SIZE",
        help="bytes of kept samples over all Worlds, e.g. 4G (default: "
        f"{_size_text(2 * 1024**3)}); the oldest go first",
    )
    p.set_defaults(func=_cmd_serve)
    return parser


_SIZE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def _byte_size(text: str) -> int:
    """A byte count: digits with an optional binary suffix K, M or G (``128M``)."""
    value = text.strip().upper().removesuffix("B")
    unit = value[-1:] if value[-1:] in ("K", "M", "G") else ""
    digits = value[: len(value) - len(unit)]
    if not digits.isdigit() or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a size in bytes, e.g. 134217728, 128M or 3G, got {text!r}"
        )
    return int(digits) * _SIZE_UNITS[unit]


def _size_text(size: int) -> str:
    for unit in ("G", "M", "K"):
        if size % _SIZE_UNITS[unit] == 0:
            return f"{size // _SIZE_UNITS[unit]}{unit} = {size:,} bytes"
    return f"{size:,} bytes"


def _positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return int(text)


def _one_line(text: str) -> str:
    # Some messages (pydantic's) span lines; the error report is one line.
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def _describe(error: BaseException) -> str:
    """The message of ``error`` for the ``error:`` line: an OS error as ``<path>: <why>``."""
    if isinstance(error, OSError) and error.filename is not None:
        where = str(error.filename)
        if error.filename2 is not None:
            where += f" -> {error.filename2}"
        return f"{where}: {error.strerror or error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if isinstance(error, KeyError) and len(error.args) == 1:
        return str(error.args[0])  # str(KeyError) would add quotes around the message
    return str(error) or type(error).__name__


def _is_expected(error: Exception) -> bool:
    """Whether ``error`` is one a user can meet and act on, rather than a bug."""
    if isinstance(
        error, _CommandFailed | OSError | ValueError | TypeError | KeyError | ImportError
    ):
        return True
    try:
        from leviathan.parity import FixtureError
        from leviathan.world import ThrusterFaultRefusedError, WorldLimitError
    except Exception:  # reporting must not fail in turn
        return False
    return isinstance(error, WorldLimitError | ThrusterFaultRefusedError | FixtureError)


def _take_debug(argv: list[str]) -> tuple[list[str], bool]:
    """``argv`` without its ``--debug`` flags (before any ``--``), and whether debugging is on.

    Taken out before parsing, so ``--debug`` works anywhere on the line
    (``leviathan demo --debug`` as well as ``leviathan --debug demo``) and even
    when parsing fails further along.
    """
    end = argv.index("--") if "--" in argv else len(argv)
    flagged = "--debug" in argv[:end]
    rest = [a for a in argv[:end] if a != "--debug"] + argv[end:]
    return rest, flagged or os.environ.get("LEVIATHAN_DEBUG", "") not in ("", "0")


def _fail(message: str, status: int, error: BaseException | None, debug: bool) -> int:
    if debug and error is not None:
        traceback.print_exception(error, file=sys.stderr)
    print(f"error: {_one_line(message)}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line.

    Every failure is reported here and only here, as one ``error: ...`` line on
    stderr; the exit statuses are in the module docstring (:data:`EXIT_FAILURE`,
    :data:`EXIT_BAD_INPUT`, :data:`EXIT_INTERRUPTED`).

    Args:
        argv: The arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    argv, debug = _take_debug(list(sys.argv[1:] if argv is None else argv))
    try:
        args = _parser().parse_args(argv)
        return int(args.func(args))
    except SystemExit as exit_:  # --help exits through argparse, with status 0
        if exit_.code is None or isinstance(exit_.code, int):
            return exit_.code or 0
        return _fail(str(exit_.code), EXIT_FAILURE, exit_, debug)  # sys.exit("message")
    except _UsageError as error:
        return _fail(str(error), EXIT_BAD_INPUT, None, debug)
    except KeyboardInterrupt as error:
        return _fail("interrupted", EXIT_INTERRUPTED, error, debug)
    except BrokenPipeError as error:
        # The reader of stdout went away (`leviathan catalogue | head -1`): point
        # stdout at /dev/null so the interpreter's final flush cannot fail again.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return _fail("standard output was closed early", EXIT_FAILURE, error, debug)
    except Exception as error:
        message = _describe(error)
        if isinstance(error, ValueError | TypeError | KeyError):
            return _fail(message, EXIT_BAD_INPUT, error, debug)
        if _is_expected(error):
            return _fail(message, EXIT_FAILURE, error, debug)
        return _fail(
            f"internal error: {type(error).__name__}: {message} (please report it; rerun with "
            "--debug or LEVIATHAN_DEBUG=1 for the traceback)",
            EXIT_FAILURE,
            error,
            debug,
        )


if __name__ == "__main__":
    raise SystemExit(main())
