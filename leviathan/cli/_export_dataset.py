"""``leviathan export-dataset``: a recorded run folder as ROS 2 MCAP and/or HDF5."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from leviathan.cli._base import InputError, input_path

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from leviathan.datasets import export_dataset

    if args.mcap is None and args.hdf5 is None:
        raise ValueError("export-dataset: give --mcap FILE and/or --hdf5 FILE")
    source = input_path(args.run, "recorded run: a run folder or its dataset.h5", folder_ok=True)
    bars: list[Any] = []  # made at the first progress report, so a refusal prints one line

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="group", desc="export", disable=args.quiet))
        bars[0].update(done - bars[0].n)

    try:
        written = export_dataset(source, mcap=args.mcap, hdf5=args.hdf5, progress=progress)
    except FileNotFoundError as error:
        if error.filename is not None and Path(error.filename) in (source, source / "dataset.h5"):
            # The input holds no recorded run: bad input (exit 2), as a missing one is.
            raise InputError(error.errno, error.strerror, error.filename) from error
        raise
    finally:
        for bar in bars:
            bar.close()
    for kind, path in sorted(written.items()):
        print(f"wrote {path} ({kind}, {path.stat().st_size / 1e6:.1f} MB)")
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``export-dataset`` and its handler."""
    p = subparsers.add_parser(
        "export-dataset",
        help="export a recorded run (a demo or scenario run folder) as ROS 2 MCAP and/or HDF5",
    )
    p.add_argument(
        "run",
        help="run folder (the demo's survey_out, a scenario run's --out), or a dataset .h5 file",
    )
    p.add_argument(
        "--mcap", metavar="FILE", help="write a ROS 2 bag in MCAP (.mcap) (default: none)"
    )
    p.add_argument(
        "--hdf5",
        metavar="FILE",
        help="write HDF5 with the full ground truth (.h5) (default: none)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)
