"""Schemathesis against the served OpenAPI schema: no 500s, every error in the one shape.

Bounded: a few examples per operation (hypothesis, no shrinking database) and a
wall-clock cap, against a real uvicorn with small limits so fuzzed creates and
steps stay cheap.
"""

from __future__ import annotations

import time

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from service_helpers import start_service, thrust_setup

from leviathan.client import ServiceClient
from leviathan.service import ServiceSettings

ERROR_KEYS = {"code", "message", "field", "value", "expected"}
EXAMPLES_PER_OPERATION = 5
TIME_CAP_S = 12.0


@pytest.fixture(scope="module")
def service():
    running = start_service(ServiceSettings(max_worlds=4, max_ticks_per_request=20, max_steps=200))
    yield running
    running.stop()


def test_fuzzed_requests_never_fail_with_500_and_errors_have_one_shape(service) -> None:
    with ServiceClient(service.url) as client:
        # One real World, so operations on world-1 reach past the 404 path.
        client.create_world(vehicles=[thrust_setup()], step_s="0.01")
    schema = schemathesis.openapi.from_url(service.url + "/openapi.json")
    started = time.monotonic()
    problems: list[str] = []
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if time.monotonic() - started > TIME_CAP_S:
            break

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def run(case) -> None:
            nonlocal checked
            if "world_id" in (case.path_parameters or {}) and checked % 2:
                case.path_parameters["world_id"] = "world-1"
            response = case.call(base_url=service.url, timeout=30)
            checked += 1
            label = f"{case.method} {case.formatted_path} -> {response.status_code}"
            if response.status_code >= 500:
                problems.append(f"{label}: {response.text[:300]}")
            elif response.status_code >= 400:
                body = response.json()
                if not isinstance(body, dict) or set(body) != ERROR_KEYS:
                    problems.append(f"{label}: not the error shape: {response.text[:300]}")

        run()
    assert checked > 50
    assert problems == []
