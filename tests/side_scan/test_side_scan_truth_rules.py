"""Unknown materials and unsupported water behave as in the imaging sonar, per side."""

from __future__ import annotations

import numpy as np
from side_scan_cases import scene, seabed, side_scan_spec

from leviathan.frames import Transform
from leviathan.geometry import box_mesh
from leviathan.scene import Instance
from leviathan.side_scan import render
from leviathan.sonar import (
    BASIS_CONTRIBUTION,
    BASIS_GEOMETRIC,
    BASIS_GEOMETRIC_NO_ABSORPTION,
    FLAG_UNKNOWN_MATERIAL,
    FLAG_UNSUPPORTED_MEDIUM,
    FLAG_VALID,
)
from leviathan.specs import WaterSpec

POSE = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 5.0))


def _line(sc, **kw):
    return render(
        sc,
        side_scan_spec(range_bin_count=120),
        POSE,
        sensor_id="auv/side_scan",
        sample_index=0,
        time_ns=0,
        backend="reference",
        sampling_warnings=False,
        **kw,
    )


def test_an_unknown_material_keeps_its_geometry_truth_and_gives_no_return_value() -> None:
    crate = Instance(
        "crate",
        box_mesh((6.0, 2.0, 1.5), center=(0.0, 9.0, 14.25)),
        Transform.identity(),
        "crate",
        None,
    )
    line = _line(scene(seabed(15.0), crate))
    on_crate = line["primary_instance"] == 1
    assert on_crate[1].any() and not on_crate[0].any()  # starboard only
    assert np.isnan(line["linear_return"][on_crate]).all()
    assert (line["primary_basis"][on_crate] == BASIS_GEOMETRIC).all()
    assert ((line["validity"][on_crate] & FLAG_UNKNOWN_MATERIAL) != 0).all()
    assert ((line["validity"][on_crate] & FLAG_VALID) == 0).all()
    assert np.isfinite(line["primary_range_m"][on_crate]).all()
    assert np.isfinite(line["primary_ground_range_m"][on_crate]).all()
    port = line["sample_count"][0] > 0
    assert (line["primary_basis"][0][port] == BASIS_CONTRIBUTION).all()


def test_unsupported_water_keeps_geometry_and_says_which_rule_ranked() -> None:
    line = _line(scene(seabed(15.0)), water=WaterSpec(salinity_psu=0.2, temperature_c=12.0, ph=7.5))
    filled = line["sample_count"] > 0
    assert filled.any() and not line.metadata["medium_supported"]
    assert np.isnan(line["linear_return"][filled]).all()
    assert (line["primary_basis"][filled] == BASIS_GEOMETRIC_NO_ABSORPTION).all()
    assert ((line["validity"][filled] & FLAG_UNSUPPORTED_MEDIUM) != 0).all()
    assert (line["primary_instance"][filled] == 0).all()
