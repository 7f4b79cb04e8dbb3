"""Load: 32 Worlds stepped concurrently by several clients over loopback; afterwards each
World's hashes equal an in-process replay of its own request sequence (nothing lost,
nothing mixed)."""

from __future__ import annotations

import random
import threading

from service_helpers import replay, small_setup, start_service

from leviathan.client import ServiceClient
from leviathan.world import World

WORLDS = 32
CLIENTS = 4
OPERATIONS = 6


def _plan(seed: int) -> list[tuple[str, object]]:
    rng = random.Random(seed)
    plan: list[tuple[str, object]] = []
    for _ in range(OPERATIONS):
        if rng.random() < 0.25:
            plan.append(("current", (rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.0)))
        else:
            plan.append(("step", rng.randint(1, 4)))
    return plan


def _apply(world, plan) -> list[str]:
    return [*replay(world, plan), world.snapshot().content_hash]


def _setup(i: int):
    return small_setup(heading_rad=0.05 * i, sensors=("imu",))


def test_32_worlds_stepped_concurrently_replay_exactly_in_process() -> None:
    service = start_service()
    try:
        clients = [ServiceClient(service.url) for _ in range(CLIENTS)]
        worlds = [
            clients[i % CLIENTS].create_world(vehicles=[_setup(i)], root_seed=i, step_s="0.01")
            for i in range(WORLDS)
        ]
        plans = [_plan(i) for i in range(WORLDS)]
        results: dict[int, list[str]] = {}
        errors: list[BaseException] = []

        def work(c: int) -> None:
            mine = [i for i in range(WORLDS) if i % CLIENTS == c]
            # Interleave this client's Worlds operation by operation.
            progress = {i: [] for i in mine}
            try:
                for k in range(OPERATIONS):
                    for i in mine:
                        op, arg = plans[i][k]
                        if op == "step":
                            progress[i].extend(g.content_hash for g in worlds[i].step(arg))
                        else:
                            worlds[i].set_current(arg)
                for i in mine:
                    progress[i].append(worlds[i].snapshot().content_hash)
                    results[i] = progress[i]
            except BaseException as error:  # reported below, not lost in the thread
                errors.append(error)

        threads = [threading.Thread(target=work, args=(c,)) for c in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        assert sorted(results) == list(range(WORLDS))
        for i in range(WORLDS):
            local = World.create(vehicles=[_setup(i)], root_seed=i, step_s="0.01")
            assert results[i] == _apply(local, plans[i]), f"world {i} differs"
        for c in clients:
            c.close()
    finally:
        service.stop()
