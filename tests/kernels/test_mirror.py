"""``leviathan.kernels`` mirrors ``leviathan.reference_cpu.trace`` by name, in both directions.

Every public name of the reference tracing stage has a Warp twin of the same
name: the per-ray functions and constants in :mod:`leviathan.kernels.trace`
(``@wp.func``, ``@wp.kernel``, ``wp.constant``), the stage itself
(``nearest_hits``) on the host side, :mod:`leviathan.kernels`. Every public
Warp name either has such a twin or is listed below with the reason it has
none, so a rename on one side fails here until the other side follows. The
bit-for-bit comparisons of each pair are in ``test_kernels.py`` and
``tests/parity/``.
"""

from __future__ import annotations

import inspect

import numpy as np
import warp as wp

import leviathan.kernels as kernels
from leviathan.kernels import backend as kb
from leviathan.kernels import trace as kt
from leviathan.reference_cpu import trace as ref

#: Reference names with no Warp twin, and why.
REFERENCE_ONLY = {
    "nearest_hits_brute_force": "the test oracle (every ray against every triangle)",
}

#: Public Warp names with no reference twin, and why.
WARP_ONLY = {
    "smaller": "NaN-propagating min of two floats: np.minimum in the reference",
    "larger": "NaN-propagating max of two floats: np.maximum in the reference",
    "smaller_finite": "min when no operand can be NaN (the all-finite fast path)",
    "larger_finite": "max when no operand can be NaN (the all-finite fast path)",
    "inverse_direction": "one ray's 1/d; the reference's inverse_directions is vectorised",
    "intersect_ray_box_finite": "intersect_ray_box's fast path for finite 1/d (same result)",
    "is_finite3": "selects that fast path per ray",
    "enters_instance": "one ray's instance culling (the reference tests the bounds vectorised)",
    "trace_instance": "the kernel running nearest_hits' per-instance loop body on each ray",
    "launch_inverse_directions": "host launch wrapper of the inverse_directions kernel",
    "launch_trace_instance": "host launch wrapper of the trace_instance kernel",
    "seed_sea_surface": "the sea surface as each ray's first best (raycast's composition)",
    "launch_seed_sea_surface": "host launch wrapper of the seed_sea_surface kernel",
    "nearest_hits_with_sea_surface": "nearest_hits and the sea surface in one pass",
    "box6d": "device record of one padded node box",
    "tri9d": "device record of one triangle (v0, e1, e2)",
    "STACK_CAPACITY": "traversal stack slots per thread (the reference walks a wavefront)",
    "CompileReport": "device management: compile/load report",
    "CPU_BATCH_RAYS": "rays per batch when a CPU trace is split across host threads",
    "map_joined": "host threads: a pool's calls all finished before the caller goes on",
    "exclusive_offsets": "where each run of items starts in a flat output (integer counts)",
    "run_cpu_batches": "host threads for CPU launches (the reference is numpy, one thread)",
    "cpu_trace_threads": "host threads of a CPU trace (the reference is numpy, one thread)",
    "available_devices": "device management",
    "check_device": "device management",
    "compile_reports": "device management",
    "default_device": "device management",
    "load_kernels": "device management",
}

_WARP_FUNCTIONS = (wp.Function, wp.Kernel)


def _warp_twin(name: str) -> object | None:
    """The Warp object named ``name``: per-ray code in kernels.trace, the stage in kernels."""
    if name in kt.__all__:
        return getattr(kt, name)
    if name in kernels.__all__:
        return getattr(kernels, name)
    return None


def test_every_reference_name_has_a_warp_twin_of_the_same_name() -> None:
    missing = [
        name for name in ref.__all__ if name not in REFERENCE_ONLY and _warp_twin(name) is None
    ]
    assert missing == [], (
        f"reference_cpu.trace names without a Warp twin of the same name: {missing}; "
        "give the Warp function the reference's name (or list it in REFERENCE_ONLY with why)"
    )


def test_every_public_warp_name_has_a_reference_twin_or_a_reason() -> None:
    warp_names = [*kt.__all__, *kernels.__all__]
    unpaired = [name for name in warp_names if name not in ref.__all__ and name not in WARP_ONLY]
    assert unpaired == [], (
        f"Warp names without a reference_cpu.trace twin: {unpaired}; name the reference "
        "function the same, or list the name in WARP_ONLY with the reason it has no twin"
    )
    stale = sorted(set(WARP_ONLY) & set(ref.__all__)) + sorted(set(WARP_ONLY) - set(warp_names))
    assert stale == [], f"WARP_ONLY lists names that are paired or gone: {stale}"
    assert sorted(set(REFERENCE_ONLY) - set(ref.__all__)) == []


def test_per_ray_twins_are_warp_functions_or_kernels() -> None:
    for name in ref.__all__:
        if name in REFERENCE_ONLY or not callable(getattr(ref, name)) or name == "nearest_hits":
            continue
        assert isinstance(_warp_twin(name), _WARP_FUNCTIONS), (
            f"leviathan.kernels.trace.{name}: expected a @wp.func or @wp.kernel"
        )


def test_mirrored_constants_are_the_same_float64_values() -> None:
    for name in ("BARY_LO", "BARY_HI", "INV_DIR_ZERO"):
        twin = _warp_twin(name)
        assert twin is not None, name
        assert isinstance(getattr(ref, name), float)
        assert np.float64(twin).view(np.uint64) == np.float64(getattr(ref, name)).view(np.uint64)


def test_the_stage_twins_take_the_same_arguments_plus_the_device() -> None:
    # Plus ``threads``: host threads of a CPU trace, which the numpy reference has no use for.
    assert kernels.nearest_hits is kb.nearest_hits
    reference = inspect.signature(ref.nearest_hits).parameters
    warp = inspect.signature(kb.nearest_hits).parameters
    assert [(p.name, p.kind) for p in reference.values()] == [
        (p.name, p.kind) for p in warp.values() if p.name not in ("device", "threads")
    ]
    assert warp["device"].kind is inspect.Parameter.KEYWORD_ONLY
    assert warp["threads"].kind is inspect.Parameter.KEYWORD_ONLY
    assert warp["threads"].default is None
