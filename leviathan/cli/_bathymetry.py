"""``leviathan bathymetry``: a run's multibeam soundings gridded and checked against its seabed."""

from __future__ import annotations

import argparse
import math

from leviathan.cli._base import input_path

__all__ = ["add_subparser"]


def _cell(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0.0):
        raise argparse.ArgumentTypeError(f"expected a cell size > 0 [m], got {text!r}")
    return value


def _run(args: argparse.Namespace) -> int:
    from leviathan.bathymetry import bathymetry_run

    run_dir = input_path(args.run_dir, "run folder", folder_ok=True)
    report, paths = bathymetry_run(run_dir, cell_m=args.cell, out=args.out)
    f = report.figures()
    print(
        f"{f['sounding_count']} soundings in {f['cells_with_soundings']} cells of "
        f"{f['cell_m']:g} m: RMS error {f['rms_error_m']:.4g} m, max {f['max_abs_error_m']:.4g} m, "
        f"{100.0 * f['special_order_share']:.2f} % within IHO S-44 Special Order TVU"
    )
    for path in paths.values():
        print(f"wrote {path}")
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``bathymetry`` and its handler."""
    p = subparsers.add_parser(
        "bathymetry",
        help="grid a run's multibeam soundings and compare them with the true seabed",
    )
    p.add_argument("run_dir", help="run folder holding dataset.h5 and seabed.npz")
    p.add_argument("--cell", type=_cell, default=0.5, help="grid cell size [m]")
    p.add_argument(
        "--out",
        default=None,
        help="output folder, replaced whole (default: RUN_DIR/bathymetry)",
    )
    p.set_defaults(func=_run)
