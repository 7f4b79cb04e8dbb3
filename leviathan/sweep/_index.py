"""A sweep's index (``OUT/index.jsonl``), its status and its table of runs.

The run folders are the truth; the index is a summary of them that a sweep keeps
up to date as runs finish: one JSON object per run key (``key``, ``params``,
``status``, ``run_hash``, ``seconds``, ``worker``, ``error``; and ``cause`` of a
failure: ``"refused"``, ``"application"`` or ``"system"``). Each update
rewrites the file atomically (:func:`leviathan._files.write_atomically`), at
most once a second while runs finish and once at the end, so a reader never sees
half a line; :func:`rebuild_index` recreates it from the run folders.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from leviathan._files import check_output_path, write_atomically
from leviathan.sweep._run import RUNS_FOLDER, read_json, record_from_folder

__all__ = [
    "INDEX_NAME",
    "SweepIndex",
    "collect_table",
    "partial_folders",
    "read_index",
    "rebuild_index",
    "sweep_status",
]

INDEX_NAME = "index.jsonl"
"""File name of a sweep's index in its output folder."""
_TEMPORARY = (".tmp-", ".old-")


def partial_folders(out: Path) -> list[Path]:
    """Temporary run folders (``runs/.<key>.tmp-*``): runs in progress, or left by a kill."""
    runs = Path(out) / RUNS_FOLDER
    if not runs.is_dir():
        return []
    return sorted(
        p for p in runs.iterdir() if p.name.startswith(".") and any(t in p.name for t in _TEMPORARY)
    )


def _run_folders(out: Path) -> list[Path]:
    runs = Path(out) / RUNS_FOLDER
    if not runs.is_dir():
        return []
    return sorted(p for p in runs.iterdir() if p.is_dir() and not p.name.startswith("."))


def rebuild_index(out: str | os.PathLike[str], *, write: bool = True) -> list[dict[str, Any]]:
    """The index recreated from the run folders (sorted by key), written unless ``write`` is off.

    Folders that hold no sweep run (no ``run.json`` for their key) are left out.
    """
    records = [r for r in (record_from_folder(f) for f in _run_folders(Path(out))) if r]
    if write:
        _write(Path(out), records)
    return records


def _write(out: Path, records: Iterable[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, sort_keys=True, allow_nan=False) + "\n" for r in records)
    write_atomically(out / INDEX_NAME, text.encode())


def read_index(out: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The index's records, in file order (rebuilt from the folders if it is missing).

    Raises:
        ValueError: A line is not a JSON object with a key (the file was edited by
            hand; :func:`rebuild_index` recreates it).
    """
    path = Path(out) / INDEX_NAME
    if not path.is_file():
        return rebuild_index(out, write=False)
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            raise ValueError(
                f"{path}:{number}: not an index record; `leviathan sweep status` rebuilds the "
                "index from the run folders with --rebuild"
            )
        records.append(record)
    return records


class SweepIndex:
    """The index of a sweep in progress: one record per key, rewritten atomically.

    Args:
        out: The sweep's output folder.
        records: The records it starts from (normally :func:`rebuild_index`'s).
        flush_s: Least time between two rewrites while records arrive [s].
    """

    def __init__(
        self, out: Path, records: Iterable[dict[str, Any]], *, flush_s: float = 1.0
    ) -> None:
        self._out = Path(out)
        self._records = {r["key"]: r for r in records}
        self._flush_s = flush_s
        self._last = 0.0
        self._dirty = True

    @property
    def records(self) -> dict[str, dict[str, Any]]:
        """Key -> record (a copy)."""
        return dict(self._records)

    def put(self, record: dict[str, Any]) -> None:
        """Records a finished run (replacing the key's earlier record) and flushes if due."""
        self._records.pop(record["key"], None)
        self._records[record["key"]] = record
        self._dirty = True
        if time.monotonic() - self._last >= self._flush_s:
            self.flush()

    def flush(self) -> None:
        """Rewrites the index file now (atomically) if anything changed."""
        if self._dirty:
            _write(self._out, self._records.values())
            self._dirty = False
            self._last = time.monotonic()


def sweep_status(out: str | os.PathLike[str], *, slowest: int = 5) -> dict[str, Any]:
    """Counts, failures with their errors and the slowest runs of a sweep's output.

    Returns:
        ``runs``, ``done``, ``failed``, ``by_cause`` (failure cause -> count),
        ``failures`` (key, params, cause, error per failed run), ``slowest`` (key,
        params, seconds, worker), ``seconds`` (sum of run times [s]),
        ``partial_folders`` (count of temporary folders) and ``index`` (whether the
        index file agrees with the run folders).

    Raises:
        FileNotFoundError: ``out`` holds no sweep (no ``runs/`` folder and no index).
    """
    out = Path(out)
    if not (out / RUNS_FOLDER).is_dir() and not (out / INDEX_NAME).is_file():
        raise FileNotFoundError(
            2, "holds no sweep (no runs/ folder, no index.jsonl); give a sweep's --out", str(out)
        )
    records = rebuild_index(out, write=False)
    try:
        listed = {r["key"]: r for r in read_index(out)}
        agrees = {r["key"]: r for r in records} == listed
    except ValueError:
        agrees = False
    failed = [r for r in records if r["status"] == "failed"]
    causes: dict[str, int] = {}
    for r in failed:
        causes[r.get("cause") or "unknown"] = causes.get(r.get("cause") or "unknown", 0) + 1
    timed = sorted(
        (r for r in records if r["status"] == "done" and r.get("seconds") is not None),
        key=lambda r: -r["seconds"],
    )
    pick = ("key", "params", "seconds", "worker")
    return {
        "runs": len(records),
        "done": len(records) - len(failed),
        "failed": len(failed),
        "by_cause": causes,
        "failures": [{k: r.get(k) for k in ("key", "params", "cause", "error")} for r in failed],
        "slowest": [{k: r.get(k) for k in pick} for r in timed[:slowest]],
        "seconds": math.fsum(r["seconds"] for r in records if r.get("seconds") is not None),
        "partial_folders": len(partial_folders(out)),
        "index": "agrees with the run folders" if agrees else "out of date (rebuild it)",
    }


def _rows(out: Path) -> list[dict[str, Any]]:
    rows = []
    for record in rebuild_index(out, write=False):
        row: dict[str, Any] = {
            k: record.get(k) for k in ("key", "status", "run_hash", "seconds", "worker", "error")
        }
        row["cause"] = record.get("cause")
        manifest = read_json(out / RUNS_FOLDER / record["key"] / "manifest.json") or {}
        row["kind"] = manifest.get("kind")
        row["snapshot_hash"] = manifest.get("snapshot_hash")
        row |= {f"param.{name}": value for name, value in record["params"].items()}
        row |= dict(manifest.get("figures") or {})
        rows.append(row)
    return rows


def _column_type(values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    if all(isinstance(v, bool) for v in present):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "int"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return "float"
    if all(isinstance(v, str) for v in present):
        return "str"
    return "json"


def collect_table(out: str | os.PathLike[str], table: str | os.PathLike[str]) -> Path:
    """Writes one row per run (parameters, status, hashes, timings, figures) as CSV or Parquet.

    Columns: ``key``, ``status``, ``run_hash``, ``seconds`` [s], ``worker``, ``error``,
    ``cause``, ``kind``, ``snapshot_hash``, then ``param.<axis name>`` per axis and
    the run's figures (``ticks``, ``simulated_s`` [s], ``<vehicle>.final_north_m``
    [m], ``<sensor id>.samples``...). Values that are not scalars (a position
    vector) are written as JSON text. The format follows the suffix: ``.csv`` (the
    standard library) or ``.parquet`` (needs pyarrow: ``pip install -e .[tables]``).
    Written atomically.

    Raises:
        ValueError: The suffix is neither ``.csv`` nor ``.parquet``.
        ImportError: ``.parquet`` without pyarrow (says how to install it).
        FileNotFoundError: ``out`` holds no sweep.
    """
    out, table = Path(out), Path(table)
    suffix = table.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ValueError(f"--table: expected a .csv or .parquet file, got {str(table)!r}")
    check_output_path(table)
    sweep_status(out)  # refuses a folder that holds no sweep
    rows = _rows(out)
    columns: list[str] = []
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    data = {c: [row.get(c) for row in rows] for c in columns}
    kinds = {c: _column_type(v) for c, v in data.items()}
    for c, kind in kinds.items():
        if kind == "json":
            data[c] = [None if v is None else json.dumps(v, sort_keys=True) for v in data[c]]
    if suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        for i in range(len(rows)):
            writer.writerow(["" if data[c][i] is None else data[c][i] for c in columns])
        return write_atomically(table, buffer.getvalue().encode())
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise ImportError(
            "--table: writing Parquet needs pyarrow (pip install -e .[tables]); or give a .csv"
        ) from error
    types = {"bool": pa.bool_(), "int": pa.int64(), "float": pa.float64()}
    arrays = [pa.array(data[c], type=types.get(kinds[c], pa.string())) for c in columns]
    buffer = io.BytesIO()
    pq.write_table(pa.table(arrays, names=columns), buffer)
    return write_atomically(table, buffer.getvalue())
