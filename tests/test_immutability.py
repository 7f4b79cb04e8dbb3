"""Deep immutability of products: snapshots, capture groups, sensor samples, sonar frames.

Every product is attacked every way a user could try to change it: attribute and
item assignment, mapping methods, array writes, lifting the read-only flag on the
array, its views, its base, a memoryview or a strided view, and changing the
inputs it was built from. Each attack must be refused (or leave the product
alone), and the content hash recomputed from scratch must still equal the
cached one. A snapshot must share nothing with the live World.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided
from numpy.testing import assert_array_equal
from world_cases import small_inspector_spec

from leviathan import Environment, VehicleSetup, World
from leviathan._frozen import FrozenMapping, freeze, frozen_array
from leviathan.controllers import Autopilot
from leviathan.frames import Transform
from leviathan.identity import content_hash
from leviathan.materials import TEST_LAMBERT_MEDIUM
from leviathan.scene import Instance, Scene, TriangleMesh
from leviathan.sensors import GRAVITY_NED, SensorSample, render_camera
from leviathan.sonar import SonarFrame
from leviathan.world import CaptureGroup, WorldSnapshot

# --------------------------------------------------------------------------- products


def _autopilot() -> Autopilot:
    return Autopilot(speed_m_per_s=1.0, depth_m=20.0, heading_rad=0.0)


def _survey_world(controller: Any = None) -> World:
    """The README's survey World: DVL, IMU and imaging sonar on 10 ms ticks."""
    return World.create(
        vehicles=[
            VehicleSetup(
                "auv",
                "reference_survey_vehicle",
                _autopilot() if controller is None else controller,
                position_ned_m=(0.0, 0.0, 20.0),
            )
        ],
        environment=Environment(),
        root_seed=1,
        step_s="0.01",
    )


def _camera_sample() -> SensorSample:
    """A small camera sample looking at a wall (channels, metadata and a preview): the
    catalogue ROV's front camera at 16 x 12 px, as the World tests use it."""
    spec = small_inspector_spec(focal_px=6.0).sensor("front_camera")
    vertices = np.array(
        [[10.0, -50.0, -20.0], [10.0, 50.0, -20.0], [10.0, 50.0, 40.0], [10.0, -50.0, 40.0]]
    )
    mesh = TriangleMesh(vertices, np.array([[0, 1, 2], [0, 2, 3]]))
    wall = Instance("wall", mesh, Transform.identity(), "wall", TEST_LAMBERT_MEDIUM)
    pose = Transform.from_euler(0.0, 0.0, 0.0, translation=(0.0, 0.0, 10.0))
    return render_camera(Scene([wall]), spec, pose, sensor_id="auv/cam", sample_index=0, time_ns=0)


@pytest.fixture(scope="module")
def products() -> dict[str, Any]:
    """One product of each kind, with its content hash taken before any attack."""
    world = _survey_world()
    (group,) = world.step(1)[:1]  # tick 0: DVL, IMU and sonar are all due
    assert set(group.samples) == {"auv/dvl", "auv/imu", "auv/pressure", "auv/sonar"}
    made = {
        "snapshot": world.snapshot(),
        "capture_group": group,
        "dvl": group.samples["auv/dvl"],
        "imu": group.samples["auv/imu"],
        "camera": _camera_sample(),
        "sonar": group.samples["auv/sonar"],
    }
    return {name: (product, product.content_hash) for name, product in made.items()}


PRODUCT_NAMES = ("snapshot", "capture_group", "dvl", "imu", "camera", "sonar")


@pytest.fixture(params=PRODUCT_NAMES)
def product_case(request: pytest.FixtureRequest, products: dict[str, Any]) -> tuple[Any, str]:
    """Each product of :func:`products` in turn, with its hash taken before any attack."""
    return products[request.param]


def _walk(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every mapping, tuple, array and product reachable from ``value``, with its path."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield path, value
        for f in dataclasses.fields(value):
            yield from _walk(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, Mapping):
        yield path, value
        for key in value:
            yield from _walk(value[key], f"{path}[{key!r}]")
    elif isinstance(value, tuple):
        yield path, value
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")
    elif isinstance(value, np.ndarray):
        yield path, value


def _of_type(product: Any, cls: type | tuple[type, ...]) -> list[tuple[str, Any]]:
    found = [(path, v) for path, v in _walk(product, "$") if isinstance(v, cls)]
    assert found, f"nothing of type {cls} reachable: the attack would test nothing"
    return found


def _assert_unchanged(product: Any, expected_hash: str) -> None:
    """The cached hash, the hash recomputed from scratch and the expected one agree."""
    assert product.content_hash == expected_hash
    assert content_hash(product) == expected_hash
    for _, member in _of_type(product, (SensorSample, SonarFrame, CaptureGroup, WorldSnapshot)):
        assert content_hash(member) == member.content_hash


# --------------------------------------------------------------------------- attacks


def _write_items(a: np.ndarray) -> None:
    a[...] = np.zeros((), dtype=a.dtype)


def _inplace_add(a: np.ndarray) -> None:
    a += np.ones((), dtype=a.dtype)


def _write_through_base(a: np.ndarray) -> None:
    base = a.base
    while isinstance(base, np.ndarray):
        base.setflags(write=True)
        base = base.base
    base[0] = 0  # the final owner: bytes refuse item assignment


def _write_through_memoryview(a: np.ndarray) -> None:
    view = memoryview(a).cast("B")
    view[:] = bytes(len(view))


def _write_as_strided(a: np.ndarray) -> None:
    strided = as_strided(a, writeable=True)
    assert not strided.flags.writeable
    strided.setflags(write=True)


ARRAY_ATTACKS: dict[str, tuple[Callable[[np.ndarray], Any], type[Exception]]] = {
    "item_assignment": (_write_items, ValueError),
    "setflags_write": (lambda a: a.setflags(write=True), ValueError),
    "flags_writeable": (lambda a: setattr(a.flags, "writeable", True), ValueError),
    "copyto": (lambda a: np.copyto(a, np.zeros_like(a)), ValueError),
    "inplace_add": (_inplace_add, ValueError),
    "ufunc_out": (lambda a: np.positive(a, out=a), (ValueError, TypeError)),  # type: ignore[dict-item]
    "fill": (lambda a: a.fill(0), ValueError),
    "resize": (lambda a: a.resize(a.size + 1, refcheck=False), ValueError),
    "through_base": (_write_through_base, (ValueError, TypeError)),  # type: ignore[dict-item]
    "through_memoryview": (_write_through_memoryview, TypeError),
    "view_setflags": (lambda a: a.view().setflags(write=True), ValueError),
    "reshape_write": (lambda a: _write_items(a.reshape(-1)), ValueError),
    "asarray_setflags": (lambda a: np.asarray(a).setflags(write=True), ValueError),
    "as_strided": (_write_as_strided, ValueError),
    "frombuffer_setflags": (
        lambda a: np.frombuffer(a, dtype=np.uint8).setflags(write=True),
        ValueError,
    ),
}


def _set_key(m: Mapping, key: Any) -> None:
    m[key] = 0  # type: ignore[index]


def _del_key(m: Mapping, key: Any) -> None:
    del m[key]  # type: ignore[attr-defined]


def _ior(m: Mapping) -> None:
    m |= {"__new__": 0}  # type: ignore[operator]


MAPPING_ATTACKS: dict[str, tuple[Callable[[Mapping, Any], Any], type[Exception]]] = {
    "item_assignment": (_set_key, TypeError),
    "new_item": (lambda m, k: _set_key(m, "__new__"), TypeError),
    "del_item": (_del_key, TypeError),
    "update": (lambda m, k: m.update({k: 0}), AttributeError),
    "pop": (lambda m, k: m.pop(k), AttributeError),
    "popitem": (lambda m, k: m.popitem(), AttributeError),
    "clear": (lambda m, k: m.clear(), AttributeError),
    "setdefault": (lambda m, k: m.setdefault("__new__", 0), AttributeError),
    "in_place_or": (lambda m, k: _ior(m), TypeError),
    "attribute_assignment": (lambda m, k: setattr(m, "_items", {}), AttributeError),
}


# --------------------------------------------------------------------------- product tests


@pytest.mark.parametrize("attack", sorted(ARRAY_ATTACKS))
def test_every_array_of_a_product_refuses_the_attack(
    product_case: tuple[Any, str], attack: str
) -> None:
    product, expected_hash = product_case
    do, error = ARRAY_ATTACKS[attack]
    for path, array in _of_type(product, np.ndarray):
        with pytest.raises(error):
            do(array)
        assert not array.flags.writeable, path
    _assert_unchanged(product, expected_hash)


@pytest.mark.parametrize("attack", sorted(MAPPING_ATTACKS))
def test_every_mapping_of_a_product_refuses_the_attack(
    product_case: tuple[Any, str], attack: str
) -> None:
    product, expected_hash = product_case
    do, error = MAPPING_ATTACKS[attack]
    for path, mapping in _of_type(product, Mapping):
        key = next(iter(mapping), "__new__")
        before = dict(mapping)
        with pytest.raises(error):
            do(mapping, key)
        assert list(mapping) == list(before), path
    _assert_unchanged(product, expected_hash)


def test_every_tuple_of_a_product_refuses_item_assignment(product_case: tuple[Any, str]) -> None:
    product, expected_hash = product_case
    tuples = [(p, t) for p, t in _walk(product, "$") if isinstance(t, tuple) and t]
    if not tuples:
        pytest.skip(f"this {type(product).__name__} holds no non-empty tuple")
    for _, sequence in tuples:
        with pytest.raises(TypeError):
            sequence[0] = 0  # type: ignore[index]
        with pytest.raises(AttributeError):
            sequence.append(0)  # type: ignore[attr-defined]
    _assert_unchanged(product, expected_hash)


def test_product_attributes_refuse_assignment_and_deletion(product_case: tuple[Any, str]) -> None:
    product, expected_hash = product_case
    for path, record in _of_type(product, (SensorSample, SonarFrame, CaptureGroup, WorldSnapshot)):
        for attribute in [f.name for f in dataclasses.fields(record)] + ["content_hash"]:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(record, attribute, None)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(record, attribute)
        assert record.content_hash == content_hash(record), path
    _assert_unchanged(product, expected_hash)


def test_arrays_of_a_product_sit_on_immutable_bytes(product_case: tuple[Any, str]) -> None:
    product, _ = product_case
    for path, array in _of_type(product, np.ndarray):
        base = array.base
        while isinstance(base, np.ndarray):
            assert not base.flags.writeable, path
            base = base.base
        assert type(base) is bytes, path


def test_reshaping_a_returned_array_leaves_the_product_unchanged(
    product_case: tuple[Any, str],
) -> None:
    product, expected_hash = product_case
    for path, mapping in _of_type(product, Mapping):
        for key in mapping:
            array = mapping[key]
            if not isinstance(array, np.ndarray) or array.size < 2:
                continue
            shape, dtype = array.shape, array.dtype
            array.shape = (array.size,)
            array.dtype = np.uint8
            assert mapping[key].shape == shape, path
            assert mapping[key].dtype == dtype, path
            assert mapping[key] is not mapping[key]
    _assert_unchanged(product, expected_hash)


def test_sample_does_not_follow_its_inputs() -> None:
    force = np.array([1.0, 2.0, 3.0])
    values = [1.0, 2.0]
    nested = {"values": values}
    preview = np.zeros((2, 2, 3), dtype=np.uint8)
    channels = {"force": force}
    metadata = {"nested": nested, "pose": np.eye(3)}
    display = {"preview": preview}
    sample = SensorSample(
        kind="imu",
        sensor_id="auv/imu",
        sample_index=0,
        time_ns=0,
        channels=channels,
        metadata=metadata,
        display=display,
    )
    expected_hash, expected_display = sample.content_hash, sample.display_hashes()
    force[0] = 99.0
    values.append(3.0)
    nested["extra"] = 1
    metadata["pose"][0, 0] = 5.0
    metadata["added"] = True
    channels["added"] = np.zeros(3)
    preview[...] = 255
    display["added"] = preview
    assert_array_equal(sample["force"], [1.0, 2.0, 3.0])
    assert sample.metadata["nested"]["values"] == (1.0, 2.0)
    assert set(sample.channels) == {"force"} and set(sample.metadata) == {"nested", "pose"}
    assert sample.display_hashes() == expected_display
    _assert_unchanged(sample, expected_hash)


def test_sonar_frame_does_not_follow_its_inputs() -> None:
    linear = np.array([[1.0, 2.0], [3.0, 4.0]])
    bearing = np.array([-0.1, 0.1])
    metadata = {"sensor_id": "auv/sonar", "bearing_rad": bearing, "labels": ["a"]}
    frame = SonarFrame(channels={"linear_return": linear}, metadata=metadata)
    expected_hash = frame.content_hash
    linear[0, 0] = -1.0
    bearing[0] = 7.0
    metadata["labels"].append("b")
    metadata["time_ns"] = 5
    assert_array_equal(frame["linear_return"], [[1.0, 2.0], [3.0, 4.0]])
    assert frame.metadata["labels"] == ("a",)
    _assert_unchanged(frame, expected_hash)


def test_capture_group_does_not_follow_its_input_dict(products: dict[str, Any]) -> None:
    imu, _ = products["imu"]
    dvl, _ = products["dvl"]
    samples = {"auv/imu": imu}
    group = CaptureGroup(tick=0, time_ns=0, samples=samples)
    expected_hash = group.content_hash
    samples["auv/dvl"] = dvl
    del samples["auv/imu"]
    assert group.sensor_ids == ("auv/imu",)
    _assert_unchanged(group, expected_hash)


def test_capture_group_refuses_a_member_that_is_not_a_product() -> None:
    with pytest.raises(TypeError, match=r"samples\['auv/imu'\]: expected a SensorSample"):
        CaptureGroup(tick=0, time_ns=0, samples={"auv/imu": {"force": [1.0]}})


def _snapshot(**fields: Any) -> WorldSnapshot:
    """A snapshot of an empty World at tick 0 (root seed 1), with ``fields`` replaced."""
    empty = {
        "tick": 0,
        "time_ns": 0,
        "epochs": (),
        "root_seed": 1,
        "vehicles": {},
        "environment_hash": "0" * 64,
        "off_tick": (),
    }
    return WorldSnapshot(**{**empty, **fields})


def test_snapshot_does_not_follow_its_inputs() -> None:
    controller_state = {"integral": 0.5, "inner": {"index": 1}}
    position = np.array([1.0, 2.0, 3.0])
    vehicles = {
        "auv": {"state": {"position_ned_m": position}, "controller_state": controller_state}
    }
    epochs = [{"start_tick": 0, "start_time_ns": 0, "step_ns": 10}]
    off_tick = [{"sensor_id": "auv/imu", "refused_count": 1}]
    snap = _snapshot(epochs=epochs, vehicles=MappingProxyType(vehicles), off_tick=tuple(off_tick))
    expected_hash = snap.content_hash
    controller_state["integral"] = 9.0
    controller_state["inner"]["index"] = 2
    position[0] = -1.0
    vehicles["other"] = {}
    epochs[0]["step_ns"] = 20
    epochs.append({})
    off_tick[0]["refused_count"] = 2
    assert snap.vehicles["auv"]["controller_state"]["inner"]["index"] == 1
    assert_array_equal(snap.vehicles["auv"]["state"]["position_ned_m"], [1.0, 2.0, 3.0])
    assert len(snap.epochs) == 1 and snap.off_tick[0]["refused_count"] == 1
    _assert_unchanged(snap, expected_hash)


def test_snapshot_refuses_a_mutable_object_it_cannot_freeze() -> None:
    with pytest.raises(TypeError, match=r"\$\['auv'\]\['controller_state'\]\['log'\]"):
        _snapshot(vehicles={"auv": {"controller_state": {"log": object()}}})


def _all_snapshot_attacks(snap: WorldSnapshot) -> None:
    """Try every mapping and array attack on every part of ``snap`` (each is refused)."""
    with pytest.raises(TypeError):
        snap.vehicles["auv"]["controller_state"]["speed_integral_m"] = 1e3  # type: ignore[index]
    for _, mapping in _of_type(snap, Mapping):
        for do, error in MAPPING_ATTACKS.values():
            with pytest.raises(error):
                do(mapping, next(iter(mapping), "__new__"))
    for _, array in _of_type(snap, np.ndarray):
        for do, error in ARRAY_ATTACKS.values():
            with pytest.raises(error):
                do(array)


def test_attacking_a_snapshot_never_changes_the_worlds_future() -> None:
    attacked, fresh = _survey_world(), _survey_world()
    attacked.step(5)
    fresh.step(5)
    _all_snapshot_attacks(attacked.snapshot())
    after_attack = [g.content_hash for g in attacked.step(10)]
    after_fresh = [g.content_hash for g in fresh.step(10)]
    assert after_attack == after_fresh
    assert attacked.snapshot().content_hash == fresh.snapshot().content_hash


class _InPlaceAutopilot:
    """An Autopilot that updates its state dict in place and counts its calls.

    The controller protocol allows returning the dict it was given; a snapshot
    that held the World's dict would then change as the World steps on.
    """

    kind = "in_place_autopilot"

    def __init__(self) -> None:
        self._inner = _autopilot()

    def initial_state(self) -> dict:
        return {"calls": 0, **self._inner.initial_state()}

    def command(self, model, state, controller_state, *, time_ns, dt_ns):  # type: ignore[no-untyped-def]
        inner = {k: v for k, v in controller_state.items() if k != "calls"}
        commands, new = self._inner.command(model, state, inner, time_ns=time_ns, dt_ns=dt_ns)
        controller_state.update(new)
        controller_state["calls"] += 1
        return commands, controller_state

    def __content__(self) -> dict:
        return {"kind": self.kind, "inner": content_hash(self._inner)}


def test_snapshot_is_not_changed_by_the_world_stepping_on() -> None:
    world = _survey_world(_InPlaceAutopilot())
    world.step(3)
    snap = world.snapshot()
    expected_hash, calls = snap.content_hash, snap.vehicles["auv"]["controller_state"]["calls"]
    world.step(4)
    assert snap.vehicles["auv"]["controller_state"]["calls"] == calls
    assert world.snapshot().vehicles["auv"]["controller_state"]["calls"] == calls + 4
    _assert_unchanged(snap, expected_hash)


def test_gravity_constant_cannot_be_made_writable() -> None:
    with pytest.raises(ValueError):
        GRAVITY_NED.setflags(write=True)
    assert_array_equal(GRAVITY_NED, [0.0, 0.0, 9.81])


# --------------------------------------------------------------------------- frozen_array

ARRAYS = {
    "float64_2d": np.arange(6.0).reshape(2, 3),
    "float32": np.array([1.5, -0.0, np.nan], dtype=np.float32),
    "big_endian": np.array([1.0, 2.0], dtype=">f8"),
    "int8": np.array([-1, 2], dtype=np.int8),
    "uint64": np.array([2**64 - 1], dtype=np.uint64),
    "bool": np.array([[True, False], [False, True]]),
    "complex": np.array([1 + 2j]),
    "unicode": np.array(["ab", "c"]),
    "bytes": np.array([b"xy"], dtype="S2"),
    "empty_2d": np.zeros((0, 3)),
    "empty_3d_bool": np.zeros((2, 0, 4), dtype=bool),
    "empty_unicode": np.array([], dtype="<U5"),
    "zero_d": np.array(5.0),
    "transposed": np.arange(12).reshape(3, 4).T,
    "strided": np.arange(10.0)[::3],
    "fortran": np.asfortranarray(np.arange(6).reshape(2, 3)),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_frozen_array_keeps_dtype_shape_and_bytes(name: str) -> None:
    a = ARRAYS[name]
    f = frozen_array(a)
    assert f.dtype == a.dtype and f.dtype.str == a.dtype.str
    assert f.shape == a.shape
    assert f.tobytes() == a.tobytes()
    assert f.flags.c_contiguous


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_frozen_array_and_its_views_cannot_be_made_writable(name: str) -> None:
    f = frozen_array(ARRAYS[name])
    derived = [f, f.view(), f.reshape(-1), f.T, f[...], np.asarray(f), as_strided(f)]
    if f.ndim:
        derived.append(f[::-1])
    for array in derived:
        assert not array.flags.writeable
        with pytest.raises(ValueError):
            array.setflags(write=True)


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_frozen_array_is_a_copy(name: str) -> None:
    a = ARRAYS[name].copy()
    f = frozen_array(a)
    assert not np.shares_memory(a, f)
    before = f.tobytes()
    if a.size:
        a.reshape(-1)[0] = a.reshape(-1)[-1] if a.size > 1 else np.zeros((), a.dtype)
    assert f.tobytes() == before
    assert a.flags.writeable


def test_frozen_array_memory_is_a_bytes_object() -> None:
    f = frozen_array(np.arange(4.0))
    assert type(f.base) is bytes
    # What np.asarray makes of the bytes is a new array, not a window on f's memory.
    recovered = np.asarray(f.base)
    assert not np.shares_memory(recovered, f)
    assert not np.frombuffer(f.base, dtype=np.float64).flags.writeable


def test_frozen_array_reuses_frozen_memory_but_not_the_array_object() -> None:
    f = frozen_array(np.arange(6.0))
    again = frozen_array(f)
    assert again is not f
    assert np.shares_memory(again, f)
    f.shape = (2, 3)
    assert again.shape == (6,)


def test_frozen_array_copies_a_read_only_array_over_writable_memory() -> None:
    a = np.arange(3.0)
    a.setflags(write=False)
    f = frozen_array(a)
    assert not np.shares_memory(a, f)


def test_frozen_array_refuses_object_arrays() -> None:
    with pytest.raises(TypeError, match="object"):
        frozen_array(np.array([{}, []], dtype=object))


@pytest.mark.parametrize("value", [[1.0, 2.0], np.ma.array([1.0, 2.0])])
def test_frozen_array_refuses_non_ndarrays_and_subclasses(value: Any) -> None:
    with pytest.raises(TypeError, match=r"numpy\.asarray"):
        frozen_array(value)


# --------------------------------------------------------------------------- freeze

JSON_LIKE = {
    "scalars": {"n": None, "b": True, "i": -3, "f": -0.0, "c": 1j, "s": "x", "y": b"z"},
    "exact": {"fraction": Fraction(1, 3), "decimal": Decimal("1.50")},
    "numpy_scalars": {"f32": np.float32(0.5), "i64": np.int64(7), "b": np.bool_(True)},
    "nested": {"a": [1, [2.0, {"b": (3, "c")}]], "d": {"e": {"f": []}}},
    "arrays": {"x": np.array([np.nan, -0.0]), "y": [np.arange(3), np.zeros((0, 2))]},
    "sets": {"s": {1, 2, 3}, "f": frozenset({"a"})},
    "top_list": [{"k": 1}, {"k": 2}],
    "bytearray": {"b": bytearray(b"ab")},
    "unsorted_keys": {"z": 1, "a": 2, "m": {"y": 3, "b": 4}},
}


@pytest.mark.parametrize("name", sorted(JSON_LIKE))
def test_freeze_never_changes_the_content_hash(name: str) -> None:
    value = JSON_LIKE[name]
    assert content_hash(freeze(value)) == content_hash(value)


@pytest.mark.parametrize("name", sorted(JSON_LIKE))
def test_freeze_leaves_its_input_alone(name: str) -> None:
    value = copy.deepcopy(JSON_LIKE[name])
    before = content_hash(value)
    freeze(value)
    assert content_hash(value) == before


def test_freeze_maps_containers_to_immutable_ones() -> None:
    frozen = freeze({"m": {"a": 1}, "l": [1], "t": (2,), "s": {3}, "b": bytearray(b"x")})
    assert isinstance(frozen, FrozenMapping)
    assert isinstance(frozen["m"], FrozenMapping)
    assert frozen["l"] == (1,) and type(frozen["l"]) is tuple
    assert frozen["t"] == (2,)
    assert frozen["s"] == frozenset({3}) and type(frozen["s"]) is frozenset
    assert frozen["b"] == b"x" and type(frozen["b"]) is bytes


def test_freeze_keeps_mapping_order() -> None:
    assert list(freeze({"z": 1, "a": 2, "m": 3})) == ["z", "a", "m"]


def test_freeze_keeps_immutable_leaves() -> None:
    leaves = [None, True, 7, 2.5, 1j, "s", b"b", Fraction(1, 2), Decimal("2"), np.float32(1)]
    for leaf in leaves:
        assert freeze(leaf) is leaf


def test_freeze_reuses_frozen_values() -> None:
    frozen = freeze({"a": [1, {"b": np.arange(2)}]})
    assert freeze(frozen) is frozen
    flat = (1, "a", 2.0)
    assert freeze(flat) is flat
    nested = (1, frozen)
    assert freeze(nested) is nested


def test_freeze_copies_a_mapping_proxy() -> None:
    inner = {"a": 1}
    frozen = freeze(MappingProxyType(inner))
    inner["a"] = 2
    assert frozen["a"] == 1


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"a": [1, {"b": object()}]}, r"\$\['a'\]\[1\]\['b'\]"),
        ([{"x": np.array([None], dtype=object)}], r"\$\[0\]\['x'\]"),
        ({"v": np.zeros(1, dtype="i4,f8")[0]}, r"\$\['v'\]"),
        ({"c": {object(): 1}}, r"\$\['c'\]"),
        (object(), r"^\$"),
    ],
)
def test_freeze_refuses_unknown_objects_naming_the_path(value: Any, path: str) -> None:
    with pytest.raises(TypeError, match=path):
        freeze(value)


def test_frozen_mapping_hands_out_fresh_views() -> None:
    mapping = freeze({"a": np.arange(6.0)})
    first = mapping["a"]
    assert first is not mapping["a"]
    first.shape = (2, 3)
    assert mapping["a"].shape == (6,)
    assert all(v.shape == (6,) for v in mapping.values())
    assert dict(mapping)["a"].shape == (6,)


def test_frozen_mapping_survives_pickling_frozen() -> None:
    mapping = freeze({"a": np.arange(3.0), "b": {"c": [1, 2]}})
    loaded = pickle.loads(pickle.dumps(mapping))
    assert isinstance(loaded, FrozenMapping) and isinstance(loaded["b"], FrozenMapping)
    assert content_hash(loaded) == content_hash(mapping)
    with pytest.raises(ValueError):
        loaded["a"].setflags(write=True)


def test_frozen_mapping_encodes_like_a_dict() -> None:
    plain = {"b": [1.0, math.inf], "a": {"c": np.arange(2)}}
    assert content_hash(FrozenMapping(plain)) == content_hash(plain)


def test_frozen_mapping_refuses_a_non_mapping() -> None:
    with pytest.raises(TypeError, match="expected a mapping"):
        FrozenMapping([("a", 1)])  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["tick", "time_ns", "root_seed"])
def test_snapshot_refuses_a_non_integer_counter(field: str) -> None:
    with pytest.raises(TypeError, match=rf"^{field}: expected an integer, got True"):
        _snapshot(**{field: True})


def test_snapshot_refuses_off_tick_records_that_are_not_mappings() -> None:
    with pytest.raises(TypeError, match=r"off_tick\[0\]: expected a mapping, got list"):
        _snapshot(off_tick=([1, 2],))


# --------------------------------------------------------------------------- freeze
# freeze dispatches exact types first; the frozen values and their hash are those of
# the general path, and a refused value is still named by its path.


def test_freeze_gives_the_frozen_values_and_hash_of_the_general_path() -> None:
    value = {
        "floats": [1.0, -0.0, 2.5],
        "nested": {"rows": [[1.0, 0.0], [0.0, 1.0]], "flag": True},
        "tuple": (1, "a", None),
        "ints": {1: "one", 2: "two"},
        "array": np.arange(3.0),
    }
    frozen = freeze(value)
    assert type(frozen) is FrozenMapping
    assert frozen["floats"] == (1.0, -0.0, 2.5) and type(frozen["floats"]) is tuple
    assert frozen["tuple"] is value["tuple"]
    assert frozen["nested"]["rows"] == ((1.0, 0.0), (0.0, 1.0))
    assert type(frozen["ints"]) is FrozenMapping and dict(frozen["ints"]) == value["ints"]
    assert not frozen["array"].flags.writeable
    del value["ints"]  # content identity needs str keys: compare the rest
    assert content_hash(freeze(value)) == content_hash(value)


def test_freeze_names_the_path_of_a_refused_value() -> None:
    with pytest.raises(TypeError, match=r"^\$\['a'\]\[1\]\['b'\]: cannot freeze"):
        freeze({"a": [1.0, {"b": object()}]})
