"""The imaging sonar's channel rules: the primary hit point rebuilt exactly from the
frame's range, elevation, bearing tables and pose, and the primary normal and incidence
and the top-K geometric weights and contributions from the frame's rule support as
well, on every backend's frames."""

from __future__ import annotations

import numpy as np
import pytest
from sonar_cases import imaging_sonar_spec, seabed

from leviathan.frames import Transform
from leviathan.geometry import box_mesh
from leviathan.materials import TEST_LAMBERT_BRIGHT
from leviathan.scene import Instance, Scene
from leviathan.sensors import sensor_declarations
from leviathan.sonar import (
    CHANNEL_RULES,
    rebuild_primary_hit_point,
    rebuild_primary_incidence,
    rebuild_topk_contribution,
    rebuild_topk_range,
    render,
)
from leviathan.sonar._rule_support import SUPPORT_NAMES
from leviathan.specs import BeamPatternSpec

RULES = CHANNEL_RULES

CASES = {
    "seabed_and_crate": {"roll_pitch_yaw": (0.0, -0.5, 0.1)},
    "rolled_and_turned": {"roll_pitch_yaw": (0.2, -0.9, -2.5)},
    # Looking up from 6 m: the analytic sea surface is in the truth.
    "under_the_sea_surface": {"roll_pitch_yaw": (0.0, 0.6, 0.0), "depth_m": 6.0},
    # A crate with no acoustic material: its contributions are missing (NaN).
    "unknown_material": {"roll_pitch_yaw": (0.0, -0.5, 0.1), "crate_material": None},
    "gaussian_beam": {"roll_pitch_yaw": (0.1, -0.6, 0.4), "gaussian": True},
}


def _frame(
    backend: str,
    *,
    roll_pitch_yaw: tuple[float, float, float],
    depth_m: float = 20.0,
    crate_material: object = TEST_LAMBERT_BRIGHT,
    gaussian: bool = False,
) -> object:
    crate_pose = Transform.from_euler(0.0, 0.0, 0.3, translation=(9.0, 2.0, 27.0))
    box = Instance("crate", box_mesh((2.0, 1.5, 1.0)), crate_pose, "crate", crate_material)
    scene = Scene([seabed(z=30.0, tilt_rad=0.05), box])
    beam = {}
    if gaussian:
        beam["beam_pattern"] = BeamPatternSpec(
            kind="gaussian", azimuth_3db_full_width_deg=20.0, elevation_3db_full_width_deg=12.0
        )
    spec = imaging_sonar_spec(
        bearing_count=24, elevation_sample_count=96, range_bin_count=64, top_k=3, **beam
    )
    pose = Transform.from_euler(*roll_pitch_yaw, translation=(1.5, -0.5, depth_m))
    return render(
        scene, spec, pose, sensor_id="v/sonar", sample_index=3, time_ns=0, backend=backend
    )


def _channels(frame: object) -> dict[str, np.ndarray]:
    return {name: np.asarray(frame[name]) for name in frame.channels}


@pytest.mark.parametrize("backend", ["reference", "warp"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_rule_rebuilds_its_channel_bit_for_bit(backend: str, case: str) -> None:
    frame = _frame(backend, **CASES[case])
    channels = _channels(frame)
    assert np.count_nonzero(channels["sample_count"]) > 100
    assert set(frame.rule_support) == set(SUPPORT_NAMES)
    inputs = {n: v for n, v in channels.items() if n not in RULES}
    # A dataset that stores topk_range_m as its rule rebuilds primary_range_m (its slot 0)
    # after the rules: the hit point then comes from the traced range as well.
    without_range = {n: v for n, v in inputs.items() if n != "primary_range_m"}
    for given in (inputs, without_range):
        for name, rule in RULES.items():
            rebuilt = rule(given, frame.metadata, frame.rule_support)
            assert rebuilt is not None, name
            assert (rebuilt.dtype, rebuilt.shape) == (channels[name].dtype, channels[name].shape)
            assert rebuilt.tobytes() == channels[name].tobytes(), name


def test_the_cases_reach_the_sea_surface_and_missing_contributions() -> None:
    sea = _frame("reference", **CASES["under_the_sea_surface"])
    surface = sea.metadata["sea_surface_instance"]
    assert np.any(np.asarray(sea["topk_instance"]) == surface)
    unknown = _frame("reference", **CASES["unknown_material"])
    named = np.asarray(unknown["topk_instance"]) >= 0
    missing = np.isnan(np.asarray(unknown["topk_contribution"])) & named
    assert missing.any() and not np.isnan(np.asarray(unknown["topk_geometric_weight"])[named]).any()


def test_the_support_holds_exactly_the_triangles_the_top_k_names() -> None:
    frame = _frame("reference", **CASES["seabed_and_crate"])
    support = frame.rule_support
    inst = np.asarray(frame["topk_instance"]).reshape(-1)
    tri = np.asarray(frame["topk_triangle"]).reshape(-1)
    named = inst >= 0
    start = support["triangle_row_start"]
    rows = start[inst[named]] + tri[named]
    assert support["triangle_rows"].tolist() == sorted(set(rows.tolist()))
    assert support["triangle_normal_world"].shape == (support["triangle_rows"].shape[0], 3)
    assert not support["triangle_rows"].flags.writeable  # frozen with the frame


def test_the_imaging_sonar_declares_the_rules() -> None:
    rules = sensor_declarations("imaging_sonar").channel_rules
    assert dict(rules) == dict(RULES)
    assert set(RULES) == {
        "primary_hit_point_world",
        "primary_normal_world",
        "primary_incidence_rad",
        "topk_geometric_weight",
        "topk_contribution",
        "topk_range_m",
    }
    assert all(rule.__module__ == "leviathan.sonar._rebuild" for rule in RULES.values())


def test_an_elevation_off_the_table_or_a_missing_input_gives_no_rebuild() -> None:
    frame = _frame("reference", roll_pitch_yaw=(0.0, -0.5, 0.1))
    channels = _channels(frame)
    support = frame.rule_support
    r, b = np.argwhere(channels["sample_count"] > 0)[0]
    off = dict(channels, primary_elevation_rad=channels["primary_elevation_rad"].copy())
    off["primary_elevation_rad"][r, b] = np.nextafter(off["primary_elevation_rad"][r, b], 1.0)
    assert rebuild_primary_hit_point(off, frame.metadata, {}) is None
    assert rebuild_primary_incidence(off, frame.metadata, support) is None
    missing = {k: v for k, v in channels.items() if k != "primary_range_m"}
    assert rebuild_primary_hit_point(missing, frame.metadata, {}) is None
    no_pose = {k: v for k, v in frame.metadata.items() if k != "T_world_sensor"}
    assert rebuild_primary_hit_point(channels, no_pose, {}) is None
    assert rebuild_topk_contribution(channels, no_pose, support) is None
    narrow = dict(frame.metadata, bearing_rad=list(frame.metadata["bearing_rad"])[:-1])
    assert rebuild_primary_hit_point(channels, narrow, {}) is None


@pytest.mark.parametrize("rule", [r for n, r in RULES.items() if n != "primary_hit_point_world"])
def test_without_the_support_or_with_a_triangle_missing_from_it_nothing_is_rebuilt(
    rule: object,
) -> None:
    frame = _frame("reference", roll_pitch_yaw=(0.0, -0.5, 0.1))
    channels = _channels(frame)
    support = dict(frame.rule_support)
    assert rule(channels, frame.metadata, {}) is None
    occupied = np.asarray(frame["sample_count"]) > 0
    inst = int(np.asarray(frame["primary_instance"])[occupied][0])
    tri = int(np.asarray(frame["primary_triangle"])[occupied][0])
    dropped = support["triangle_rows"] != support["triangle_row_start"][inst] + tri
    assert np.count_nonzero(~dropped) == 1
    short = dict(
        support,
        triangle_rows=support["triangle_rows"][dropped],
        triangle_normal_world=support["triangle_normal_world"][dropped],
    )
    assert rule(channels, frame.metadata, short) is None
    float_rows = dict(support, triangle_rows=support["triangle_rows"].astype(np.float64))
    assert rule(channels, frame.metadata, float_rows) is None


def test_the_rules_share_a_frames_geometry_only_for_the_same_read_only_inputs() -> None:
    """The range, weight and contribution rules compute one frame's slot geometry once;
    a changed array (a new one, or a writable one changed in place) is computed anew."""
    frame = _frame("reference", roll_pitch_yaw=(0.0, -0.5, 0.1))
    support = frame.rule_support
    channels = {n: np.asarray(frame[n]) for n in frame.channels}  # read-only views
    first = rebuild_topk_range(channels, frame.metadata, support)
    assert first.tobytes() == channels["topk_range_m"].tobytes()
    named = channels["topk_instance"] >= 0
    elevations = np.asarray(frame.metadata["elevation_rad"])
    moved = channels["topk_elevation_rad"].copy()
    moved[named] = elevations[0]  # every slot's ray at the first elevation row
    moved.setflags(write=False)
    other = rebuild_topk_range(dict(channels, topk_elevation_rad=moved), frame.metadata, support)
    assert other is not None and other.tobytes() != first.tobytes()
    writable = channels["topk_elevation_rad"].copy()
    given = dict(channels, topk_elevation_rad=writable)
    assert rebuild_topk_range(given, frame.metadata, support).tobytes() == first.tobytes()
    writable[named] = elevations[0]  # changed in place: not taken from the last call
    again = rebuild_topk_range(given, frame.metadata, support)
    assert again.tobytes() == other.tobytes()


def _searched_rows(table: np.ndarray, wanted: np.ndarray) -> np.ndarray | None:
    # The lookup the rules made before the grid's guess: a search of the sorted bits.
    order = np.argsort(table.view(np.uint64), kind="stable")
    ordered = table.view(np.uint64)[order]
    at = np.minimum(np.searchsorted(ordered, wanted.view(np.uint64)), table.shape[0] - 1)
    return order[at] if np.array_equal(ordered[at], wanted.view(np.uint64)) else None


def _tables(rng: np.random.Generator) -> list[np.ndarray]:
    from leviathan.reference_cpu.sonar import _inclusive_grid

    grids = [_inclusive_grid(float(rng.uniform(0.01, 3.0)), int(n)) for n in (2, 3, 64, 2177)]
    uneven = np.sort(rng.uniform(-1.0, 1.0, 50))
    repeated = np.repeat(_inclusive_grid(0.5, 9), 2)  # equal patterns: the first row
    signed_zeros = np.array([-0.5, -0.0, 0.0, 0.5])  # not increasing: -0.0 == 0.0
    shuffled = rng.permutation(_inclusive_grid(0.7, 33))
    return [*grids, uneven, repeated, signed_zeros, shuffled, np.array([0.25])]


@pytest.mark.parametrize("seed", range(3))
def test_an_elevations_row_is_the_row_of_its_bits_in_the_table(seed: int) -> None:
    from leviathan.sonar._rebuild import _table_rows

    rng = np.random.default_rng(seed)
    for table in _tables(rng):
        wanted = table[rng.integers(0, table.shape[0], 5000)]
        expected = _searched_rows(table, wanted)
        found = _table_rows(table, wanted)
        assert expected is not None and found is not None
        assert found.tolist() == expected.tolist()
        # One value off the table (a neighbour's bits +-1 ulp, NaN, beyond the ends): none.
        for off in (np.nextafter(table[0], np.inf), np.nan, table[-1] + 1.0, -7.0):
            if np.float64(off).view(np.uint64) in table.view(np.uint64):
                continue
            bad = np.concatenate([wanted[:10], [off]])
            assert _table_rows(table, bad) is None


def test_a_support_row_is_found_at_its_place_in_the_support() -> None:
    from leviathan.sonar._rule_support import _positions

    rng = np.random.default_rng(7)
    rows = np.unique(rng.integers(0, 10**5, 3000)).astype(np.int64)
    wanted = rows[rng.integers(0, rows.shape[0], 20000)]
    assert _positions(rows, wanted).tolist() == np.searchsorted(rows, wanted).tolist()
    for missing in (-1, int(rows[-1]) + 1, int(rows[0]) + 1 if rows[1] != rows[0] + 1 else -5):
        assert _positions(rows, np.append(wanted, missing)) is None
    # Rows far sparser than the inputs, or repeated (a damaged file): searched instead.
    sparse = np.array([3, 10**9], dtype=np.int64)
    assert _positions(sparse, np.array([10**9, 3, 3])).tolist() == [1, 0, 0]
    repeated = np.array([1, 4, 4, 9], dtype=np.int64)
    assert _positions(repeated, np.array([4, 9, 1])).tolist() == [1, 3, 0]
