"""Live Worlds: the WebSocket that pushes each committed step, and server-side Play/Pause.

``/worlds/{world_id}/stream`` sends, on connect, the World's current state
message and then one message per committed change, in commit order::

    {"type": "state", "world_id", "seq", "tick", "time_ns", "state": World.state()}

``seq`` counts the World's committed changes, so a client that reconnects can
tell what it missed. When the World is deleted or released the stream sends
``{"type": "closed", "reason"}`` and closes (1000); an unknown or released World
gets one error message in the service's error shape and close code 4404 or 4410;
a client more than ``subscriber_queue`` messages behind is closed with 1013.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect

from leviathan.service import _models as m
from leviathan.service import _requests as r
from leviathan.service._deps import get_host
from leviathan.service._errors import ServiceError, errors
from leviathan.service._hosting import HostedWorld, WorldHost
from leviathan.service._params import WorldId
from leviathan.service._play import Player
from leviathan.service.routers._common import too_many_ticks

__all__ = ["router"]

router = APIRouter(prefix="/worlds/{world_id}", tags=["live"])

Host = Annotated[WorldHost, Depends(get_host)]


def _status(hosted: HostedWorld) -> m.PlayStatus:
    p = hosted.player
    if p is None:
        return m.PlayStatus(world_id=hosted.world_id, playing=False)
    return m.PlayStatus(
        world_id=hosted.world_id,
        playing=p.playing,
        mode=p.mode,
        ticks_per_step=p.ticks_per_step,
        stopped_reason=None if p.playing else p.stopped_reason,
    )


@router.post("/play", response_model=m.PlayStatus, summary="Play", responses=errors(404, 409, 410))
async def play(world_id: WorldId, body: r.PlayRequest, host: Host) -> m.PlayStatus:
    """Steps the World on the server until paused (real time or as fast as possible);
    409 if it is already playing."""
    limit = host.settings.max_ticks_per_request
    if body.ticks_per_step > limit:
        raise too_many_ticks(
            "ticks_per_step",
            body.ticks_per_step,
            limit,
            f"ticks_per_step: {body.ticks_per_step} is more than one step may take ({limit})",
        )
    hosted = host.get(world_id)
    if hosted.player is not None and hosted.player.playing:
        raise ServiceError(
            409,
            "refused",
            f"world_id: {world_id} is already playing; pause it first",
            field="world_id",
            value=world_id,
            expected="a World that is not playing",
        )
    hosted.player = Player(
        host,
        hosted,
        mode=body.mode,
        ticks_per_step=body.ticks_per_step,
        rate=body.rate,
        until_tick=body.until_tick,
    )
    hosted.player.start()
    return _status(hosted)


@router.post("/pause", response_model=m.PlayStatus, summary="Pause", responses=errors(404, 410))
async def pause(world_id: WorldId, host: Host) -> m.PlayStatus:
    """Stops Play after the step in progress commits (returns once it has)."""
    hosted = host.get(world_id)
    player = hosted.player
    if player is not None and player.playing:
        player.stop("paused")
        if player.task is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(player.task)
    return _status(hosted)


@router.get("/play", response_model=m.PlayStatus, summary="Play status", responses=errors(404, 410))
async def play_status(world_id: WorldId, host: Host) -> m.PlayStatus:
    """Whether the World is playing, and why it last stopped."""
    return _status(host.get(world_id))


async def _drain(websocket: WebSocket) -> None:
    # Client messages are not commands; reading them is how a disconnect is seen.
    while True:
        await websocket.receive_text()


@router.websocket("/stream")
async def stream(websocket: WebSocket, world_id: str) -> None:
    """Pushes the World's state after each committed step (see the module docstring)."""
    host: WorldHost = websocket.app.state.host
    try:
        hosted = host.get(world_id)
    except ServiceError as error:
        await websocket.accept()
        await websocket.send_json({"type": "error", **error.body()})
        await websocket.close(code=4000 + error.status)
        return
    await websocket.accept()

    def attach(_: Any) -> tuple[asyncio.Queue, dict[str, Any]]:
        # Under the World's lock: no commit falls between the first message and the queue.
        return host.subscribe(hosted), host.state_message(hosted)

    try:
        queue, first = await host.run(world_id, attach, changes=False)
    except ServiceError as error:
        await websocket.send_json({"type": "error", **error.body()})
        await websocket.close(code=4000 + error.status)
        return
    receiver = asyncio.create_task(_drain(websocket))
    try:
        await websocket.send_json(first)
        while True:
            getter = asyncio.create_task(queue.get())
            done, _ = await asyncio.wait({getter, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if receiver in done:
                getter.cancel()
                break
            message = getter.result()
            if message["type"] == "overflow":
                await websocket.close(code=1013, reason="client too slow")
                break
            await websocket.send_json(message)
            if message["type"] == "closed":
                await websocket.close(code=1000)
                break
    except (WebSocketDisconnect, RuntimeError):
        pass  # the client went away mid-send
    finally:
        host.unsubscribe(hosted, queue)
        receiver.cancel()
        with contextlib.suppress(BaseException):
            await receiver
