"""``/worlds/{world_id}/samples``: a World's recent samples by id (their content hash).

A World keeps its newest ``samples_kept`` samples (see
:class:`~leviathan.service.ServiceSettings`); older ones, and every sample
from before a reset, are gone (404).
"""

from __future__ import annotations

import io
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Depends, Response

from leviathan.service._deps import get_host
from leviathan.service._errors import ERROR_RESPONSES, ServiceError
from leviathan.service._hosting import WorldHost
from leviathan.service._wire import encode_record

__all__ = ["router"]

router = APIRouter(prefix="/worlds/{world_id}/samples", tags=["samples"], responses=ERROR_RESPONSES)

Host = Annotated[WorldHost, Depends(get_host)]


async def _sample(host: WorldHost, world_id: str, sample_id: str) -> Any:
    hosted = host.get(world_id)

    def find(_: Any) -> Any:
        sample = hosted.samples.get(sample_id)
        if sample is None:
            raise ServiceError(
                404,
                "not_found",
                f"sample_id: {sample_id!r} is not among the {host.settings.samples_kept} newest "
                f"samples {world_id} keeps (ids are the members' content hashes from a step)",
                field="sample_id",
                value=sample_id,
                expected="the sample_id of a recent capture-group member",
            )
        return sample

    return await host.run(world_id, find, changes=False)


@router.get("/{sample_id}", summary="One sample, lossless")
async def get_sample(world_id: str, sample_id: str, host: Host) -> dict[str, Any]:
    """The whole sample (channels, metadata) in lossless wire form."""
    return encode_record(await _sample(host, world_id, sample_id))


@router.get(
    "/{sample_id}/npz",
    summary="One sample's arrays as .npz",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}},
)
async def get_sample_npz(world_id: str, sample_id: str, host: Host) -> Response:
    """The sample's channels as a NumPy ``.npz`` archive (one array per channel)."""
    sample = await _sample(host, world_id, sample_id)
    buffer = io.BytesIO()
    np.savez(buffer, **{name: np.asarray(a) for name, a in sample.channels.items()})
    return Response(
        buffer.getvalue(),
        media_type="application/octet-stream",
        headers={"content-disposition": f'attachment; filename="{sample_id[:16]}.npz"'},
    )
