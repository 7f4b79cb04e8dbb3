"""The wire codec's fast paths: same JSON, same refusals as the general path."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from leviathan._frozen import freeze
from leviathan.service import WireError, decode_value, encode_value


def _nested(levels: int, leaf: object, *, mapping: bool) -> object:
    value = leaf
    for _ in range(levels):
        value = {"a": value} if mapping else [value]
    return value


@pytest.mark.parametrize("mapping", [False, True])
@pytest.mark.parametrize("leaf", [1.0, 7, "s", None, True])
def test_plain_leaves_count_towards_the_depth_limit(mapping: bool, leaf: object) -> None:
    # 64 containers put the leaf at depth 64 (allowed); 65 put it past the limit.
    allowed = _nested(64, leaf, mapping=mapping)
    assert decode_value(json.loads(json.dumps(encode_value(allowed)))) == allowed
    too_deep = _nested(65, leaf, mapping=mapping)
    with pytest.raises(WireError, match="nested deeper than 64"):
        encode_value(too_deep)
    with pytest.raises(WireError, match="nested deeper than 64"):
        decode_value(json.loads(json.dumps(too_deep)))


def test_frozen_trees_encode_like_their_plain_copies() -> None:
    plain = {
        "rotation": [[1.0, 0.0], [-0.0, 1.0]],
        "noise": [{"drawn": True, "seed": 3, "model": "m", "none": None}],
        "odd": [math.inf, -math.inf, 2**70, {"$t": "not a tag"}],
        "array": np.arange(4.0),
    }
    frozen = freeze(plain)
    assert json.dumps(encode_value(frozen)) == json.dumps(encode_value(plain))
    back = decode_value(json.loads(json.dumps(encode_value(frozen))))
    assert back["odd"][:3] == [math.inf, -math.inf, 2**70]
    assert back["odd"][3] == {"$t": "not a tag"}
    assert back["array"].dtype == np.float64
    np.testing.assert_array_equal(back["array"], np.arange(4.0))
