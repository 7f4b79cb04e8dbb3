"""The wire (leviathan.wire): the one typed-JSON codec with inline arrays, transforms and
records; the same JSON as the datasets' encoding for what both carry; no web framework."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from leviathan._frozen import freeze
from leviathan.datasets import typed_json
from leviathan.frames import Transform
from leviathan.wire import WireError, decode_record, decode_value, encode_record, encode_value


def _nested(levels: int, leaf: object, *, mapping: bool) -> object:
    value = leaf
    for _ in range(levels):
        value = {"a": value} if mapping else [value]
    return value


def _round_trip(value: object) -> object:
    return decode_value(json.loads(json.dumps(encode_value(value))))


def _tuples(value: object) -> object:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("mapping", [False, True])
@pytest.mark.parametrize("leaf", [1.0, 7, "s", None, True])
def test_plain_leaves_count_towards_the_depth_limit(mapping: bool, leaf: object) -> None:
    # 64 containers put the leaf at depth 64 (allowed); 65 put it past the limit.
    allowed = _nested(64, leaf, mapping=mapping)
    assert _round_trip(allowed) == _tuples(allowed)
    too_deep = _nested(65, leaf, mapping=mapping)
    with pytest.raises(WireError, match="nested deeper than 64"):
        encode_value(too_deep)
    encoded_deep = _nested(65, {"$float": "1.0"} if leaf == 1.0 else leaf, mapping=mapping)
    with pytest.raises(WireError, match="nested deeper than 64"):
        decode_value(json.loads(json.dumps(encoded_deep)))


def test_frozen_trees_encode_like_their_plain_copies() -> None:
    plain = {
        "rotation": [[1.0, 0.0], [-0.0, 1.0]],
        "noise": [{"drawn": True, "seed": 3, "model": "m", "none": None}],
        "odd": [math.inf, -math.inf, 2**70, {"$t": "not a tag"}],
        "array": np.arange(4.0),
    }
    frozen = freeze(plain)
    assert json.dumps(encode_value(frozen)) == json.dumps(encode_value(plain))
    back = _round_trip(frozen)
    assert back["odd"][:3] == (math.inf, -math.inf, 2**70)
    assert back["odd"][3] == {"$t": "not a tag"}
    assert math.copysign(1.0, back["rotation"][1][0]) == -1.0
    assert back["array"].dtype == np.float64 and not back["array"].flags.writeable
    np.testing.assert_array_equal(back["array"], np.arange(4.0))


def test_every_float_is_tagged_so_any_json_reader_tells_int_from_float() -> None:
    assert encode_value([1, 1.0, True]) == [1, {"$float": "1.0"}, True]
    assert [type(x) for x in _round_trip([1, 1.0, True])] == [int, float, bool]


def test_the_wire_writes_what_the_datasets_write_for_what_both_carry() -> None:
    value = {"a": [1, 0.1, -0.0, math.nan], "$key": {"b": Fraction(1, 3), "c": b"\x00"}}
    assert json.dumps(encode_value(value)) == typed_json.encode(value)
    assert decode_value(json.loads(typed_json.encode(value)))["$key"]["b"] == Fraction(1, 3)


def test_transforms_travel_exactly_and_rebuild_through_their_constructor() -> None:
    T = Transform.from_euler(0.1, -0.2, 0.3, translation=(1.0, 2.0, -3.0))
    back = _round_trip({"T": T})["T"]
    assert isinstance(back, Transform)
    assert back.rotation.tobytes() == T.rotation.tobytes()
    assert back.translation.tobytes() == T.translation.tobytes()
    bad = encode_value({"T": T})
    bad["T"]["$transform"]["rotation"]["$ndarray"]["data"] = encode_value(np.ones((3, 3)))[
        "$ndarray"
    ]["data"]
    with pytest.raises(WireError, match="transform refused"):
        decode_value(bad)


def test_only_allowed_records_are_built() -> None:
    from leviathan.materials import TEST_LAMBERT_MEDIUM

    with pytest.raises(WireError, match="not a record type the service sends"):
        encode_record(TEST_LAMBERT_MEDIUM)
    forged = {"$record": {"type": "leviathan.materials.LambertMaterial", "fields": {}}}
    with pytest.raises(WireError, match="not one that is accepted"):
        decode_record(forged)
    with pytest.raises(WireError, match="expected a"):
        decode_record({"type": "x"})


def test_malformed_arrays_are_refused_by_name() -> None:
    good = encode_value(np.arange(3, dtype="<i4"))
    short = {"$ndarray": {**good["$ndarray"], "shape": [4]}}
    with pytest.raises(WireError, match="does not fit its data"):
        decode_value(short)
    with pytest.raises(WireError, match="bare number"):
        decode_value([1.5])


def test_the_wire_imports_no_web_framework() -> None:
    code = (
        "import sys, leviathan.wire, leviathan.client\n"
        "bad = sorted(m for m in ('fastapi', 'uvicorn', 'starlette', 'leviathan.service') "
        "if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == ""
