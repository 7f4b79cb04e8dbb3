"""``/worlds/{world_id}/multibeam``: a hosted World's latest multibeam ping.

* ``.../soundings`` is the newest ping the World keeps of that multibeam (within the
  service's sample bounds) as JSON, beam by beam from port to starboard: the beam
  angle, the detected slant range and intensity, the quality flag (bits and names of
  ``reference_cpu.multibeam.DETECTION_FLAGS``), the sounding in sensor FRD and world
  NED, and the beam's truth (its axis ray's nearest hit: range, point, label) with the
  sounding's error against it, along the beam and vertically. Every number is the
  sample's own channel value (float64 as JSON); NaN (missing) is ``null``.
* ``.../water-column`` is the same ping's water column (beams x range bins) as PNG:
  :meth:`leviathan.sensors.MultibeamSensor.preview`, the detector's window in red.

Both answer 204 while the World keeps no ping of that multibeam (a World not stepped
since it was created or reset). The Dashboard's Multibeam panel and the Viewport's
soundings draw them live.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Response

from leviathan.service import _models as m
from leviathan.service._deps import get_host
from leviathan.service._errors import errors
from leviathan.service._hosting import WorldHost
from leviathan.service._params import VehicleName, WorldId
from leviathan.service.routers._common import PNG_RESPONSE, png_response, sensor_of_kind

__all__ = ["router"]

router = APIRouter(prefix="/worlds/{world_id}/multibeam", tags=["samples"])

Host = Annotated[WorldHost, Depends(get_host)]


def _latest_ping(host: WorldHost, world_id: str, world: Any, vehicle: str, sensor: str) -> Any:
    """The newest kept ping of ``vehicle``'s multibeam ``sensor``, or None (404 if absent)."""
    sensor_id = sensor_of_kind(world, world_id, vehicle, sensor, "multibeam", "multibeam")
    pings = host.samples.of_sensor(world_id, sensor_id)
    return pings[-1] if pings else None


_T = TypeVar("_T")


async def _from_latest_ping(
    host: WorldHost, world_id: str, vehicle: str, sensor: str, make: Callable[[Any], _T]
) -> _T | None:
    """``make(ping)`` of :func:`_latest_ping` under the World's lock, or None while none is kept."""
    hosted = host.get(world_id)

    def build(world: Any) -> _T | None:
        sample = _latest_ping(host, hosted.world_id, world, vehicle, sensor)
        return None if sample is None else make(sample)

    return await host.run(world_id, build, changes=False)


def _number(value: Any) -> float | None:
    x = float(value)
    return x if math.isfinite(x) else None


def _point(row: Any) -> list[float] | None:
    values = [float(v) for v in row]
    return values if all(math.isfinite(v) for v in values) else None


def _label(index: Any, labels: list[str]) -> str | None:
    i = int(index)
    return labels[i] if 0 <= i < len(labels) else None


def _soundings(sample: Any) -> m.MultibeamSoundings:
    ch, meta = sample.channels, sample.metadata
    flags = {str(name): int(bit) for name, bit in meta["quality_flags"].items()}
    labels = [str(label) for label in meta["semantic_labels"]]
    beams = []
    for k in range(int(ch["beam_angle_rad"].shape[0])):
        quality = int(ch["quality"][k])
        beams.append(
            m.MultibeamBeam(
                beam=k,
                angle_rad=float(ch["beam_angle_rad"][k]),
                quality=quality,
                flags=[name for name, bit in flags.items() if quality & bit],
                detected_range_m=_number(ch["detection_range_m"][k]),
                intensity=_number(ch["intensity"][k]),
                sounding_sensor_m=_point(ch["sounding_sensor_m"][k]),
                sounding_ned_m=_point(ch["sounding_ned_m"][k]),
                truth_range_m=_number(ch["truth_range_m"][k]),
                truth_point_ned_m=_point(ch["truth_point_ned_m"][k]),
                truth_label=_label(ch["truth_semantic"][k], labels),
                error_along_beam_m=_number(ch["error_along_beam_m"][k]),
                error_vertical_m=_number(ch["error_vertical_m"][k]),
            )
        )
    return m.MultibeamSoundings(
        sensor_id=sample.sensor_id,
        sample_hash=sample.content_hash,
        sample_index=sample.sample_index,
        time_ns=sample.time_ns,
        quality_flags=flags,
        beams=beams,
    )


@router.get(
    "/{vehicle}/{sensor}/soundings",
    summary="A multibeam's latest ping: soundings, quality flags and per-beam truth",
    response_model=m.MultibeamSoundings,
    responses={
        204: {"description": "The multibeam has no ping kept yet (step or play the World)"},
        **errors(404, 410),
    },
)
async def multibeam_soundings(
    world_id: WorldId, vehicle: VehicleName, sensor: VehicleName, host: Host
) -> Any:
    """The newest kept ping of ``vehicle``'s multibeam ``sensor``, beam by beam."""
    soundings = await _from_latest_ping(host, world_id, vehicle, sensor, _soundings)
    if soundings is None:
        return Response(status_code=204)
    return soundings


@router.get(
    "/{vehicle}/{sensor}/water-column",
    summary="A multibeam's latest water column, as PNG",
    response_class=Response,
    responses={
        200: {
            "description": "The water column as PNG (beams port to starboard across, range "
            "bins down, the detector's window in red)",
            "content": PNG_RESPONSE,
        },
        204: {"description": "The multibeam has no ping kept yet (step or play the World)"},
        **errors(404, 410),
    },
)
async def multibeam_water_column(
    world_id: WorldId, vehicle: VehicleName, sensor: VehicleName, host: Host
) -> Response:
    """The water column of the newest kept ping of ``vehicle``'s multibeam ``sensor``."""
    from leviathan.sensors import MultibeamSensor

    product = await _from_latest_ping(
        host, world_id, vehicle, sensor, lambda sample: (sample, MultibeamSensor().preview(sample))
    )
    if product is None:
        return Response(status_code=204)
    sample, png = product
    return png_response(
        png,
        {
            "x-leviathan-sample-hash": sample.content_hash,
            "x-leviathan-time-ns": str(sample.time_ns),
        },
    )
