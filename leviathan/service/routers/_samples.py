"""``/worlds/{world_id}/samples``: a World's recent samples by id (their content hash).

A World keeps its newest samples within a count and a byte bound per World and
a byte bound for the whole service (:mod:`leviathan.service._samples`, the
settings of :class:`~leviathan.service.ServiceSettings`); older ones, and every
sample from before a reset, are gone (404).
"""

from __future__ import annotations

import io
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Depends, Response

from leviathan.service._deps import get_host
from leviathan.service._errors import errors, not_found
from leviathan.service._hosting import WorldHost
from leviathan.service._params import SampleId, WorldId
from leviathan.wire import encode_record

__all__ = ["router"]

router = APIRouter(prefix="/worlds/{world_id}/samples", tags=["samples"])

Host = Annotated[WorldHost, Depends(get_host)]


async def _sample(host: WorldHost, world_id: str, sample_id: str) -> Any:
    hosted = host.get(world_id)

    def find(_: Any) -> Any:
        sample = host.samples.get(hosted.world_id, sample_id)
        if sample is None:
            s = host.settings
            raise not_found(
                "sample_id",
                sample_id,
                f"{sample_id!r} is not among the samples {world_id} keeps (its "
                f"newest, at most {s.samples_kept} samples and {s.samples_bytes_per_world} bytes "
                f"per World, {s.samples_bytes_total} bytes in all; none from before a reset); ids "
                "are the members' content hashes from a step",
                expected="the sample_id of a recent capture-group member",
            )
        return sample

    return await host.run(world_id, find, changes=False)


@router.get("/{sample_id}", summary="One sample, lossless", responses=errors(404, 410))
async def get_sample(world_id: WorldId, sample_id: SampleId, host: Host) -> dict[str, Any]:
    """The whole sample (channels, metadata) in lossless typed JSON (``{"$record": ...}``)."""
    return encode_record(await _sample(host, world_id, sample_id))


@router.get(
    "/{sample_id}/npz",
    summary="One sample's arrays as .npz",
    response_class=Response,
    responses={
        200: {
            "description": "A NumPy .npz archive",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
            },
        },
        **errors(404, 410),
    },
)
async def get_sample_npz(world_id: WorldId, sample_id: SampleId, host: Host) -> Response:
    """The sample's channels as a NumPy ``.npz`` archive (one array per channel)."""
    sample = await _sample(host, world_id, sample_id)
    buffer = io.BytesIO()
    np.savez(buffer, **{name: np.asarray(a) for name, a in sample.channels.items()})
    return Response(
        buffer.getvalue(),
        media_type="application/octet-stream",
        headers={"content-disposition": f'attachment; filename="{sample_id[:16]}.npz"'},
    )
