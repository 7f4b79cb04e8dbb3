"""The HDF5 writer's refusals of what it is given, before anything is written."""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from leviathan.datasets._errors import DatasetError
from leviathan.datasets._hdf5_layout import _SAMPLE_NAME_DIGITS
from leviathan.sensors import sensor_declarations
from leviathan.world import CaptureGroup


def check_groups(
    groups: tuple[Any, ...],
    last: tuple[int, int] | None,
    kinds: Mapping[str, str],
    written: Container[tuple[str, int]],
) -> None:
    """Refuses groups not in time order after ``last`` (tick, time_ns), samples of sensors
    not in ``kinds`` (sensor id -> kind) or of another kind, and samples ``written``
    (sensor id, sample index) before or twice in ``groups``."""
    names: set[str] = set()
    for i, group in enumerate(groups):
        if not isinstance(group, CaptureGroup):
            raise TypeError(f"groups[{i}]: expected a CaptureGroup, got {type(group).__name__}")
        if last is not None and (group.tick <= last[0] or group.time_ns <= last[1]):
            raise DatasetError(
                f"groups[{i}]: capture group at tick {group.tick} ({group.time_ns} ns) is not "
                f"after the last one written (tick {last[0]}, {last[1]} ns); write groups "
                "once each, in time order"
            )
        last = (group.tick, group.time_ns)
        for sensor_id, sample in group.samples.items():
            where = f"groups[{i}].samples[{sensor_id!r}]"
            kind = kinds.get(sensor_id)
            if kind is None:
                raise DatasetError(
                    f"{where}: unknown sensor id {sensor_id!r}; the declared vehicles have "
                    f"{', '.join(sorted(kinds)) or 'no sensors'}"
                )
            product_type = sensor_declarations(kind).product_type
            sample_kind = getattr(sample, "kind", type(sample).__name__)
            if (
                not isinstance(sample, product_type)
                or getattr(sample, "kind", kind) != kind
                or sample.sensor_id != sensor_id
            ):
                raise DatasetError(
                    f"{where}: a {sample_kind} sample from {sample.sensor_id!r}; expected a "
                    f"{kind} sample ({product_type.__name__}) from {sensor_id!r} as declared"
                )
            name = f"samples/{sensor_id}/{sample.sample_index:0{_SAMPLE_NAME_DIGITS}d}"
            if (sensor_id, sample.sample_index) in written or name in names:
                raise DatasetError(
                    f"{where}: sample {sample.sample_index} of {sensor_id!r} is already "
                    f"written (/{name}); a sample index occurs once per sensor"
                )
            names.add(name)
