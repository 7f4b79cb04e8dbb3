"""Export a scene and vehicle tracks as an OpenUSD stage (``.usda`` or ``.usdc``).

Stage layout (prim names are sanitised identifiers, see :func:`prim_names`;
the original identifiers are kept as ``leviathan:*`` attributes)::

    /World                              Xform, default prim: provenance, frames, time
      /NED                              Xform, fixed Rx(180°): everything below is NED
        /scene                          Scope
          /<object_id>                  Mesh per instance: object-local points,
                                        double transform op = T_world_object
          /sea_surface                  Xform: the analytic plane z = 0 (NED)
            /display                    Plane, purpose "guide": a finite picture of it
        /vehicles                       Scope
          /<vehicle>                    Xform: time-sampled T_world_body, MassAPI
            /hull                       Mesh (vehicles declaring a hull): body FRD points,
                                        acoustic material, semantic label
            /thrusters/<thruster>       Xform at the thruster position (body FRD)
            /sensors/<sensor>           Xform: static T_body_sensor (sensor FRD)
              /camera                   Camera (camera sensors only), fixed rotation
                                        R_SENSOR_USDCAMERA

Conventions (root rotation, row-vector matrices, camera axes and lens units,
time codes) are documented in :mod:`leviathan.usd`.
Every transform is a double-precision ``xformOp:transform`` holding the exact
transpose of our ``T_A_B`` matrix, so world poses read back bit for bit.

``pxr`` (package ``usd-core``) is imported only when a stage is written, so
``import leviathan.usd`` works without it.
"""

from __future__ import annotations

import errno
import itertools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from leviathan._files import atomic_path, check_output_path
from leviathan._validation import check_root_seed
from leviathan.frames import Transform
from leviathan.scene import Scene
from leviathan.specs import VehicleSpec
from leviathan.usd._authoring import (
    _NED,
    _REQUIRED_PROVENANCE,
    _author_root,
    _author_scene,
    _author_sea_display,
    _author_vehicle,
    _import_pxr,
    _json,
)
from leviathan.usd._conventions import (
    MAX_EXACT_TIME_CODE,
    epochs_from_dicts,
    prim_names,
    tick_time_ns,
    time_code_nanoseconds,
)
from leviathan.usd._track import VehicleTrack

STAGE_SUFFIXES = (".usda", ".usdc")
"""Accepted file extensions: text (``.usda``) or binary crate (``.usdc``)."""


# --------------------------------------------------------------------------- validation


def check_stage_path(path: str | os.PathLike[str]) -> Path:
    """Refuses, before any work, a stage path that :func:`export_stage` could not write.

    Args:
        path: The stage file to be written.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: The extension is not one of :data:`STAGE_SUFFIXES`.
        OSError: The parent folder is missing, or a folder is in the way
            (:func:`leviathan._files.check_output_path`).
    """
    path = Path(path)
    if path.suffix not in STAGE_SUFFIXES:
        raise ValueError(
            f"path: unsupported OpenUSD file extension {path.suffix!r} for {path}; use "
            f"{' or '.join(STAGE_SUFFIXES)} (text or binary crate)"
        )
    return check_output_path(path)


def _check_ticks(ticks: Sequence[int]) -> list[int]:
    result = [int(t) for t in ticks]
    if not result:
        raise ValueError("ticks must hold at least one committed tick index")
    for a, b in itertools.pairwise(result):
        if not b > a:
            raise ValueError(f"ticks must be strictly increasing, got {a} then {b}")
    return result


def _check_track(track: VehicleTrack, times_ns: list[int]) -> None:
    if not isinstance(track, VehicleTrack):
        raise TypeError(f"vehicles must hold VehicleTrack, got {type(track).__name__}")
    if not isinstance(track.spec, VehicleSpec):
        raise TypeError(
            f"vehicle {track.name!r}: spec must be a VehicleSpec, got {type(track.spec).__name__}"
        )
    given = [int(t) for t in track.times_ns]
    if len(given) != len(times_ns) or len(track.poses) != len(times_ns):
        raise ValueError(
            f"vehicle {track.name!r}: expected one time and one pose per exported tick "
            f"({len(times_ns)}), got {len(given)} times and {len(track.poses)} poses"
        )
    if given != times_ns:
        first = next(i for i, (a, b) in enumerate(zip(given, times_ns, strict=True)) if a != b)
        raise ValueError(
            f"vehicle {track.name!r}: times_ns[{first}] = {given[first]} but the epochs give "
            f"{times_ns[first]} ns for that tick; pass the times of the exported ticks"
        )
    for i, pose in enumerate(track.poses):
        if not isinstance(pose, Transform):
            raise TypeError(
                f"vehicle {track.name!r}: poses[{i}] must be a Transform (T_world_body), "
                f"got {type(pose).__name__}"
            )


def _check_provenance(provenance: Mapping[str, Any]) -> None:
    missing = [k for k in _REQUIRED_PROVENANCE if k not in provenance]
    if missing:
        raise ValueError(f"provenance lacks {missing}; it needs {sorted(_REQUIRED_PROVENANCE)}")
    check_root_seed("provenance['root_seed']", provenance["root_seed"], python_int_only=True)
    for key in ("snapshot_hash", "leviathan_version"):
        if not isinstance(provenance[key], str) or not provenance[key]:
            raise ValueError(f"provenance[{key!r}] must be a non-empty string")


# --------------------------------------------------------------------------- export


def export_stage(
    path: str | os.PathLike[str],
    *,
    scene: Scene,
    vehicles: Sequence[VehicleTrack],
    ticks: Sequence[int],
    epochs: Sequence[Mapping[str, int]],
    provenance: Mapping[str, Any],
) -> Path:
    """Write a scene and vehicle tracks as an OpenUSD stage.

    The stage is built in memory and written through the project's atomic
    writer (:func:`leviathan._files.atomic_path`): to a temporary file in the
    target directory, synced, then moved into place with ``os.replace``. Readers
    never see a half-written file, an existing file is replaced atomically, and
    nothing is left behind when writing fails.

    Time: each committed tick becomes one time sample at time code
    ``time_ns / g``, where ``g`` (stored as ``leviathan:timeCodeNanoseconds``)
    is the gcd of every epoch's ``step_ns`` and ``start_time_ns``. Epochs with
    different steps thus share one time axis on which every tick is an exact,
    distinct integer (20 ms then 10 ms steps: g = 10 ms, time codes
    0, 2, 4, ... then +1 per tick), and ``timeCodesPerSecond = 1e9 / g``.
    Time codes must stay below 2^53 to be exact in float64.

    Args:
        path: Destination; ``.usda`` (text) or ``.usdc`` (binary crate).
        scene: The scene; instance poses are authored as static values.
        vehicles: Vehicle tracks, names unique; each has one pose per tick.
        ticks: Committed tick indices exported, strictly increasing, non-empty.
        epochs: The clock's epochs ``{start_tick, start_time_ns, step_ns}``
            (``Clock.provenance()["epochs"]``); they must cover ``ticks``.
        provenance: At least ``snapshot_hash`` (str), ``root_seed`` (int in
            [0, 2^64)) and ``leviathan_version`` (str); JSON-serialisable.

    Returns:
        The path written.

    Raises:
        ImportError: If usd-core (``pxr``) is not installed.
        ValueError: On a bad extension, inconsistent ticks/times/epochs,
            duplicate vehicle names, time codes beyond 2^53, or incomplete
            provenance.
        FileNotFoundError: If the target directory does not exist.
        OSError: If the stage cannot be written (``filename`` names ``path``).
    """
    # A bad extension, a missing parent folder, ...: refused before building the stage.
    path = check_stage_path(path)
    if not isinstance(scene, Scene):
        raise TypeError(f"scene must be a Scene, got {type(scene).__name__}")
    epoch_list = epochs_from_dicts(epochs)
    tick_list = _check_ticks(ticks)
    times_ns = [tick_time_ns(epoch_list, t) for t in tick_list]
    tracks = list(vehicles)
    for track in tracks:
        _check_track(track, times_ns)
    vehicle_names = [t.name for t in tracks]
    if len(set(vehicle_names)) != len(vehicle_names):
        raise ValueError(f"vehicle names must be unique, got {vehicle_names!r}")
    _check_provenance(provenance)
    _json(dict(provenance))  # refuses non-JSON provenance before anything is written
    g_ns = time_code_nanoseconds(epoch_list)
    codes = [t // g_ns for t in times_ns]
    if max(abs(c) for c in codes) >= MAX_EXACT_TIME_CODE:
        raise ValueError(
            f"time codes reach {max(abs(c) for c in codes)} (time / {g_ns} ns), beyond 2^53 "
            "where float64 time codes stop being exact; export a shorter window"
        )
    time_codes = [float(c) for c in codes]

    pxr = _import_pxr()
    stage = pxr.Usd.Stage.CreateInMemory()
    # Stage metadata, set explicitly:
    # metersPerUnit = 1: one scene unit is one metre (all LEVIATHAN lengths are metres).
    pxr.UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    # kilogramsPerUnit = 1: physics:mass is in kilograms.
    pxr.UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    # upAxis = Z: viewers show +Z up; /World/NED's fixed rotation maps NED down to -Z.
    pxr.UsdGeom.SetStageUpAxis(stage, pxr.UsdGeom.Tokens.z)
    # timeCodesPerSecond: one time code is g ns, so this is 1e9 / g; framesPerSecond
    # matches it so viewers play one committed tick grid unit per frame.
    stage.SetTimeCodesPerSecond(1e9 / g_ns)
    stage.SetFramesPerSecond(1e9 / g_ns)
    # start/end time codes: the first and last exported ticks.
    stage.SetStartTimeCode(time_codes[0])
    stage.SetEndTimeCode(time_codes[-1])
    stage.GetRootLayer().documentation = (
        "LEVIATHAN export. /World/NED holds world NED content (x north, y east, z down); "
        "its fixed Rx(180 deg) only shows it Z-up. Bodies FRD, sensors FRD, camera "
        "intrinsics OpenCV. Time code = time_ns / leviathan:timeCodeNanoseconds."
    )

    _author_root(pxr, stage, provenance, epoch_list, g_ns, tick_list, times_ns)
    reach_m, sea_path = _author_scene(pxr, stage, scene)
    if tracks:
        pxr.UsdGeom.Scope.Define(stage, f"{_NED}/vehicles")
    for track, name in zip(tracks, prim_names(vehicle_names), strict=True):
        reach_m = max(
            reach_m, _author_vehicle(pxr, stage, f"{_NED}/vehicles/{name}", track, time_codes)
        )
    _author_sea_display(pxr, stage, sea_path, reach_m)

    # The project's one atomic writer: pxr exports to a temporary sibling whose name
    # ends in path's own extension (pxr picks .usda text or .usdc crate from it),
    # which is then synced and renamed into place, or removed on any failure.
    with atomic_path(path) as tmp:
        if not stage.GetRootLayer().Export(str(tmp)):
            raise OSError(errno.EIO, "OpenUSD failed to write the stage", str(path))
    return path
