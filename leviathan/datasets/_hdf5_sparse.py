"""Channels over cells stored sparse in the HDF5 dataset (format versions 2 and 3).

A sample with a 2-D integer ``sample_count`` channel (an imaging-sonar frame)
has cells; about half of a survey fan's cells hold no sample, and their
channels hold the sentinel fill. Such channels are stored as the fill and the
occupied cells' values only, the top-K channels as their used slots only, and
channels that other channels determine exactly (the primary contributor is
slot 0 of the top K; the energy fraction is contribution over the cell's
return) as the rule alone. Every form is rebuilt at write time by the reader's
own function and kept only if the result equals the channel byte for byte;
anything else is stored dense. The reader rebuilds the dense arrays before the
records are built, so ``verify`` re-hashes exactly what was written.

Version 3 adds coded forms: stored values with few distinct bit patterns (the
top-K elevations are values of the frame's own elevation table; instance and
object ids are a handful) are kept as ``uint8``/``uint16`` codes into a table of
those patterns, held in the dataset's ``table`` attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from leviathan.datasets._errors import DatasetError
from leviathan.datasets._hdf5_layout import (
    COMPRESS_MIN_BYTES,
    READABLE_FORMAT_VERSIONS,
)
from leviathan.datasets._hdf5_rules import RULE, Rules, ruled_source

CELL_COUNT_CHANNEL = "sample_count"
"""The channel whose non-zero cells are a sample's occupied cells (2-D, integer)."""

SPARSE_CELLS = "sparse_cells"
SPARSE_SLOTS = "sparse_slots"
SLOT0 = "slot0"
QUOTIENT = "quotient"
CODED_CELLS = "coded_cells"
CODED_SLOTS = "coded_slots"
STORAGES = (SPARSE_CELLS, SPARSE_SLOTS, SLOT0, QUOTIENT, CODED_CELLS, CODED_SLOTS, RULE)
"""The ``storage`` attribute of a channel stored sparsely (see :func:`_sparse_channel`)."""

CODE_TABLE_MAX = 4096
"""Most distinct values a coded channel's table holds (a float64 one: 32 KiB, an attribute)."""

_CODE_PROBE = 2 * CODE_TABLE_MAX
"""Values looked at first: a channel with more than :data:`CODE_TABLE_MAX` distinct
patterns among them is not coded (nor sorted whole)."""

_UNCODED = {CODED_CELLS: SPARSE_CELLS, CODED_SLOTS: SPARSE_SLOTS}


# --------------------------------------------------------------------------- sparse cells


def _checked_version(format_version: Any) -> int:
    """The writer's ``format_version``, or a DatasetError naming what is accepted."""
    if type(format_version) is not int or format_version not in READABLE_FORMAT_VERSIONS:
        raise DatasetError(
            f"format_version: expected one of {READABLE_FORMAT_VERSIONS}, got {format_version!r}"
        )
    return format_version


def _occupied_cells(channels: Mapping[str, Any]) -> np.ndarray | None:
    """The occupied cells (bool, the cell shape) of a sample's channels, or None.

    A sample has cells when it has a 2-D integer :data:`CELL_COUNT_CHANNEL`
    channel; a cell is occupied when its count is not zero.
    """
    counts = channels.get(CELL_COUNT_CHANNEL)
    if counts is None:
        return None
    counts = np.asarray(counts)
    if counts.ndim != 2 or counts.dtype.kind not in "iu":
        return None
    return counts != 0


class _Cells:
    """A sample's cells: which are occupied and how many slots of each are used."""

    def __init__(self, counts: np.ndarray) -> None:
        self.shape = counts.shape
        self.mask = counts.reshape(-1) != 0
        self.occupied_count = int(self.mask.sum())
        self._counts = counts.reshape(-1)[self.mask]
        self._used: dict[int, np.ndarray] = {}
        self._slots: dict[int, np.ndarray] = {}

    def used_slots(self, k: int) -> np.ndarray:
        """bool [occupied cells, k]: slot j of a cell is used when j < its count (one
        read-only array per ``k``: a sample's channels ask for it many times)."""
        used = self._used.get(k)
        if used is None:
            used = np.arange(k)[None, :] < self._counts[:, None]
            used.flags.writeable = False
            self._used[k] = used
        return used

    def used_count(self, k: int) -> int:
        """How many slots are used, of ``k`` per cell."""
        return int(np.count_nonzero(self.used_slots(k)))

    def slot_mask(self, k: int) -> np.ndarray:
        """bool [cells, k]: the used slots of every cell (none in an empty cell), so that
        ``dense[slot_mask] = values`` puts used-slot values in cell then slot order."""
        slots = self._slots.get(k)
        if slots is None:
            slots = np.zeros((self.mask.shape[0], k), dtype=bool)
            slots[self.mask] = self.used_slots(k)
            slots.flags.writeable = False
            self._slots[k] = slots
        return slots


def _bytes_of(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def _filled(fill: np.ndarray, cells: _Cells) -> np.ndarray:
    """A flat ``[cells, *T]`` array holding ``fill`` in every cell."""
    dense = np.empty((cells.mask.shape[0], *fill.shape), dtype=fill.dtype)
    dense[...] = fill
    return dense


def _coded(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, table)`` with ``table[codes]`` equal to ``values`` bit for bit, or None
    where coding does not pay: more than :data:`CODE_TABLE_MAX` distinct patterns, or
    codes and table together no smaller than the values."""
    width = values.dtype.itemsize
    if values.size == 0 or width < 2 or values.dtype.kind not in "iuf":
        return None
    bits = np.ascontiguousarray(values).reshape(-1).view(f"<u{width}")
    if np.unique(bits[:_CODE_PROBE]).shape[0] > CODE_TABLE_MAX:
        return None
    # np.unique's table, from a sort of the values (not of their indices): the table's
    # size decides whether coding pays before any code is looked up.
    ordered = np.sort(bits)
    first = np.empty(ordered.shape, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    patterns = ordered[first]
    if patterns.shape[0] > CODE_TABLE_MAX:
        return None
    code_dtype = np.dtype(np.uint8 if patterns.shape[0] <= 256 else np.uint16)
    if code_dtype.itemsize * values.size + patterns.nbytes >= values.nbytes:
        return None
    # np.unique's inverse: each value's place in the sorted table.
    codes = np.searchsorted(patterns, bits)
    table = np.ascontiguousarray(patterns).view(values.dtype)
    return codes.astype(code_dtype).reshape(values.shape), table


def _decoded(
    codes: np.ndarray, table: np.ndarray | None, fill: np.ndarray, where: str
) -> np.ndarray:
    """The values ``table[codes]`` of a coded channel, or a DatasetError saying what is off."""
    if table is None or table.ndim != 1 or table.dtype != fill.dtype:
        raise DatasetError(
            f"{where}: a coded channel needs a 1-D 'table' of {fill.dtype} values; the file "
            "is damaged"
        )
    if codes.dtype.kind != "u":
        raise DatasetError(
            f"{where}: codes are {codes.dtype}, expected unsigned integers; the file is damaged"
        )
    if codes.size and int(codes.max()) >= table.shape[0]:
        raise DatasetError(
            f"{where}: codes of {codes.dtype} up to {int(codes.max())} do "
            f"not index its {table.shape[0]}-value table; the file is damaged"
        )
    return table[codes]


def _derived_values(
    storage: str,
    source: Mapping[str, str],
    channels: Mapping[str, np.ndarray],
    cells: _Cells,
    k: int,
) -> np.ndarray:
    """The values at the used slots (or occupied cells) a derived storage computes."""
    if storage == SLOT0:
        return channels[source["source"]].reshape(cells.mask.shape[0], -1)[cells.mask, 0]
    # QUOTIENT: numerator / denominator of the cell, NaN where the denominator is not > 0.
    numerator = channels[source["numerator"]].reshape(cells.mask.shape[0], k)[cells.mask]
    denominator = channels[source["denominator"]].reshape(-1)[cells.mask][:, None]
    numerator = numerator[cells.used_slots(k)]
    denominator = np.broadcast_to(denominator, (denominator.shape[0], k))[cells.used_slots(k)]
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = numerator / denominator
    return np.where(denominator > 0.0, fraction, np.nan)


def _dense_channel(
    storage: str,
    fill: np.ndarray,
    values: np.ndarray | None,
    cells: _Cells,
    where: str,
    *,
    source: Mapping[str, str] | None = None,
    channels: Mapping[str, np.ndarray] | None = None,
    table: np.ndarray | None = None,
) -> np.ndarray:
    """The dense channel stored as ``storage`` (see :func:`_sparse_channel`)."""
    trailing = fill.shape
    dense = _filled(fill, cells)
    if storage in _UNCODED:
        if values is None:
            raise DatasetError(f"{where}: storage {storage!r} needs stored codes")
        values = _decoded(values, table, fill, where)
        storage = _UNCODED[storage]
    if storage in (SLOT0, QUOTIENT):
        if source is None or channels is None:
            raise DatasetError(f"{where}: storage {storage!r} needs its source channels")
        missing = [name for name in source.values() if name not in channels]
        if missing:
            raise DatasetError(
                f"{where}: derived from channel {missing[0]!r}, which the sample does not hold; "
                "the file is damaged"
            )
        k = trailing[0] if trailing else 1
        values = _derived_values(storage, source, channels, cells, k)
        storage = SPARSE_CELLS if storage == SLOT0 else SPARSE_SLOTS
    if values is None:
        raise DatasetError(f"{where}: storage {storage!r} needs stored values")
    if storage == SPARSE_CELLS:
        expected = (cells.occupied_count, *trailing)
        if values.shape != expected:
            raise DatasetError(
                f"{where}: {values.shape} stored values, expected {expected} (one per occupied "
                "cell); the file is damaged"
            )
        dense[cells.mask] = values
    elif storage == SPARSE_SLOTS:
        if len(trailing) != 1:
            raise DatasetError(f"{where}: storage {storage!r} needs one slot axis, got {trailing}")
        slots = cells.slot_mask(trailing[0])
        expected_count = cells.used_count(trailing[0])
        if values.shape != (expected_count,):
            raise DatasetError(
                f"{where}: {values.shape} stored values, expected {expected_count} (one per "
                "used slot); the file is damaged"
            )
        dense[slots] = values
    else:
        raise DatasetError(
            f"{where}: storage {storage!r} is unknown; expected one of {', '.join(STORAGES)}"
        )
    return dense.reshape(*cells.shape, *trailing)


def _candidates(
    name: str, a: np.ndarray, channels: Mapping[str, np.ndarray], cells: _Cells
) -> list[tuple[str, dict[str, str]]]:
    """Derived storages that may rebuild ``a`` from other channels.

    Each is first tried on the first occupied cell alone (a few scalar
    operations), so that only a likely one is rebuilt in full.
    """
    first = int(np.argmax(cells.mask))
    flat = a.reshape(cells.mask.shape[0], -1)
    out: list[tuple[str, dict[str, str]]] = []
    if a.ndim == 2:
        for other, b in channels.items():
            if b.dtype == a.dtype and b.ndim == 3 and b.shape[:2] == a.shape:
                probe = b.reshape(cells.mask.shape[0], -1)[first, :1]
                if probe.tobytes() == flat[first, :1].tobytes():
                    out.append((SLOT0, {"source": other}))
    if a.ndim == 3 and a.dtype.kind == "f":
        for numerator, b in channels.items():
            if b.shape != a.shape or b.dtype != a.dtype:
                continue
            top = b.reshape(cells.mask.shape[0], -1)[first, :1]
            for denominator, c in channels.items():
                if c.ndim != 2 or c.shape != cells.shape or c.dtype != a.dtype:
                    continue
                below = c.reshape(-1)[first : first + 1]
                with np.errstate(divide="ignore", invalid="ignore"):
                    probe = np.where(below > 0.0, top / below, np.nan)
                if probe.tobytes() == flat[first, :1].tobytes():
                    out.append((QUOTIENT, {"numerator": numerator, "denominator": denominator}))
    return out


def _sparse_channel(
    name: str,
    a: np.ndarray,
    channels: Mapping[str, np.ndarray],
    cells: _Cells,
    derivable: Mapping[str, np.ndarray] | None = None,
    *,
    coded: bool = False,
) -> tuple[str, np.ndarray, np.ndarray | None, dict[str, str], np.ndarray | None] | None:
    """How a channel over cells is stored, or None where it is stored dense.

    A channel of shape ``cells + T`` whose empty cells all hold one bit
    pattern ``fill`` (shape ``T``) keeps that fill and, per occupied cell, one of:

    * ``sparse_cells``: its values, ``[occupied cells, *T]``;
    * ``sparse_slots`` (``T = (K,)``): the values of its used slots only (slot
      ``j < count``; the unused ones hold ``fill[j]``), in cell then slot order;
    * ``slot0``: nothing: its values are slot 0 of channel ``source`` (the
      primary contributor is the first of the top K);
    * ``quotient`` (used slots): nothing: channel ``numerator`` divided by the
      cell's ``denominator``, NaN where that is not > 0 (the energy fraction);
    * ``coded_cells`` / ``coded_slots`` (with ``coded``, format version 3): the
      values of ``sparse_cells`` / ``sparse_slots`` as codes into ``table``.

    ``derivable`` are the channels a derived form may be computed from (none:
    no derived form). Returns ``(storage, fill, values or None, source
    attributes, table or None)``. Each form is rebuilt here by
    :func:`_dense_channel`, the reader's own function, and taken only if the rebuilt
    array equals ``a`` byte for byte; a coded form, which that function rebuilds as the
    plain form of its decoded values, is taken where those decode (by its
    :func:`_decoded`) to the plain form's values, once the plain form is exact.
    """
    if a.shape[:2] != cells.shape or a.dtype.kind not in "biuf" or a.nbytes < COMPRESS_MIN_BYTES:
        return None
    empty = ~cells.mask
    if not empty.any():
        return None
    trailing = a.shape[2:]
    flat = a.reshape(cells.mask.shape[0], *trailing)
    fill = flat[int(np.argmax(empty))].copy()
    original = _bytes_of(a)
    where = f"channel {name!r}"

    def exact(
        storage: str,
        values: np.ndarray | None,
        source: dict[str, str] | None = None,
        table: np.ndarray | None = None,
    ) -> bool:
        rebuilt = _dense_channel(
            storage, fill, values, cells, where, source=source, channels=channels, table=table
        )
        return np.array_equal(_bytes_of(rebuilt), original)

    def stored(plain: str, values: np.ndarray) -> tuple:
        # ``values`` in form ``plain`` rebuild ``a`` exactly (checked by the caller), and
        # the reader rebuilds a coded form as the plain form of its decoded values
        # (_dense_channel), so the code form is exact where its values decode, by the
        # reader's own function, to ``values`` byte for byte.
        codes = _coded(values) if coded else None
        code_form = CODED_CELLS if plain == SPARSE_CELLS else CODED_SLOTS
        if codes is not None:
            decoded = _decoded(codes[0], codes[1], fill, where)
            if decoded.shape == values.shape and np.array_equal(
                _bytes_of(decoded), _bytes_of(values)
            ):
                return code_form, fill, codes[0], {}, codes[1]
        return plain, fill, values, {}, None

    derive = bool(derivable) and cells.occupied_count > 0
    for storage, source in _candidates(name, a, derivable, cells) if derive else ():
        if exact(storage, None, source):
            return storage, fill, None, source, None
    values = np.ascontiguousarray(flat[cells.mask])
    if len(trailing) == 1 and trailing[0] > 1:
        slots = np.ascontiguousarray(values[cells.used_slots(trailing[0])])
        if exact(SPARSE_SLOTS, slots):
            return stored(SPARSE_SLOTS, slots)
    if exact(SPARSE_CELLS, values):
        return stored(SPARSE_CELLS, values)
    return None


def _choose_forms(
    forms: dict[str, Any],
    arrays: Mapping[str, np.ndarray],
    cells: _Cells,
    *,
    coded: bool,
    rules: Rules,
) -> None:
    """Fills ``forms`` with each channel's stored form (None: dense).

    A derived channel is computed from stored or ruled ones only: none is the source of
    another derived channel, and none is derived from a derived one. The channels no
    rule names are chosen first (a rule's channel may be their source); then the
    channels stored as their rule (:func:`_ruled`); then the rule's channels that are
    not, as any other channel.
    """
    derived: set[str] = set()
    sources: set[str] = set()
    for name, a in arrays.items():
        if name == CELL_COUNT_CHANNEL or name in rules:
            continue
        derivable = None
        if name not in sources:
            derivable = {n: v for n, v in arrays.items() if n != name and n not in derived}
        form = _sparse_channel(name, a, arrays, cells, derivable, coded=coded)
        forms[name] = form
        if form is not None and form[0] in (SLOT0, QUOTIENT):
            derived.add(name)
            sources.update(form[3].values())
    for name in _ruled(arrays, forms, rules):
        forms[name] = (RULE, None, None, {"rule": rules[name][0]}, None)
    for name, a in arrays.items():
        if name not in rules or name in forms:
            continue
        derivable = None
        if name not in sources:
            derivable = {
                n: v for n, v in arrays.items() if n != name and n not in derived and n not in rules
            }
        forms[name] = _sparse_channel(name, a, arrays, cells, derivable, coded=coded)


def _ruled(arrays: Mapping[str, np.ndarray], forms: Mapping[str, Any], rules: Rules) -> set[str]:
    """The channels to store as their rule: each rebuilds its channel byte for byte from
    the inputs the reader will give it, the channels no rule names less those derived
    from a channel stored as a rule (rebuilt after the rules).

    Which channels those are depends on which rules hold, so: every rule is tried with
    the fewest inputs (as if all held), those that failed once more with the inputs the
    holding ones leave, and then every holding rule is checked again with the inputs
    the final set leaves, dropping any that fails, until none does.
    """
    names = [name for name in arrays if name in rules]

    def inputs(late: set[str]) -> dict[str, np.ndarray]:
        return {n: v for n, v in arrays.items() if n not in late}

    def holds(name: str, late: set[str]) -> bool:
        return ruled_source(name, arrays[name], inputs(late), rules) is not None

    checked: dict[str, frozenset[str]] = {}
    fewest = _late(forms, set(names))
    for name in names:
        if holds(name, fewest):
            checked[name] = frozenset(fewest)
    failed = [name for name in names if name not in checked]
    if failed:
        late = _late(forms, set(checked))
        for name in failed:
            if holds(name, late):
                checked[name] = frozenset(late)
    while True:
        late = _late(forms, set(checked))
        stale = [name for name, used in checked.items() if used != late]
        if not stale:
            return set(checked)
        for name in stale:
            if holds(name, late):
                checked[name] = frozenset(late)
            else:
                del checked[name]


def _late(forms: Mapping[str, Any], ruled: set[str]) -> set[str]:
    """The channels ``ruled`` (stored as rules) and those derived from one (rebuilt after
    the rules): what the rules are not given."""
    return set(ruled) | {
        name
        for name, form in forms.items()
        if form is not None
        and form[0] in (SLOT0, QUOTIENT)
        and any(source in ruled for source in form[3].values())
    }
