"""The served OpenAPI schema: FastAPI's, made to state everything the server enforces.

FastAPI writes the schema from the routes and the pydantic models; this adds what
it cannot know:

* **Limits that are settings**: ``n`` of a step and ``ticks_per_step`` of Play at
  most ``max_ticks_per_request``; request bodies at most ``max_body_bytes``.
* **Statuses every operation shares**, each with the one error shape: 500 and 503
  everywhere, 401 when the service has a token (with the bearer scheme declared),
  and for an operation with a body 400 (not JSON at all), 413 (too large) and 422;
  422 also for one with parameters. A route declares its own (404, 409, 410).
* **Links** from ``POST /worlds`` to every operation that takes its ``world_id``
  (and its first vehicle's name), and from a step to the samples it made, so a
  client (or a stateful test) can follow them.
* **JSON Schema keywords for pydantic's**: a bound on a field whose type runs a
  validator before pydantic's own (``Real | None``) is written by pydantic as a
  bare ``gt``/``ge``/``lt``/``le``, which no JSON Schema reader knows; it becomes
  ``exclusiveMinimum``/``minimum``/``exclusiveMaximum``/``maximum``.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from leviathan.service._errors import ERROR_DESCRIPTIONS
from leviathan.service._hosting import ServiceSettings

__all__ = ["service_openapi"]

_KEYWORDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}
_ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}


def _keywords(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") in ("number", "integer"):
            for old, new in _KEYWORDS.items():
                if old in node:
                    node[new] = node.pop(old)
        for value in node.values():
            _keywords(value)
    elif isinstance(node, list):
        for value in node:
            _keywords(value)


def _error(status: int) -> dict[str, Any]:
    return {
        "description": ERROR_DESCRIPTIONS[status],
        "content": {"application/json": {"schema": _ERROR_REF}},
    }


def _links(paths: dict[str, Any]) -> dict[str, Any]:
    links = {}
    for path, item in paths.items():
        if "{world_id}" not in path or path.startswith("/worlds/{world_id}/samples"):
            continue
        for operation in item.values():
            parameters = {"world_id": "$response.body#/id"}
            names = {p["name"] for p in operation.get("parameters", ()) if p["in"] == "path"}
            if "vehicle" in names:
                parameters["vehicle"] = "$response.body#/vehicles/0"
            if "product" in names:
                parameters["product"] = "report.json"  # a constant: the cheapest product
            if names - set(parameters):
                # Needs what POST /worlds does not return: a thruster, or a sensor (a side-scan
                # or multibeam endpoint needs a vehicle carrying one, which the new World's
                # first vehicle may not: such a link would lead to a 404 as often as not).
                continue
            links[operation["operationId"]] = {
                "operationId": operation["operationId"],
                "parameters": parameters,
                "description": f"The new World: {operation.get('summary', '')}",
            }
    return links


def service_openapi(app: FastAPI, settings: ServiceSettings, *, token: bool) -> dict[str, Any]:
    """The OpenAPI document of ``app`` (see the module docstring).

    Args:
        app: The service application.
        settings: Its limits, written into the schema.
        token: Whether requests must carry a bearer token.
    """
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    _keywords(schema)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    limit = settings.max_ticks_per_request
    for model, field in (("StepRequest", "n"), ("PlayRequest", "ticks_per_step")):
        components[model]["properties"][field]["maximum"] = limit
        components[model]["properties"][field]["description"] += (
            f"; at most {limit} (this service's max_ticks_per_request)"
        )
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    if token:
        schema["components"]["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer", "description": "The service's token"}
        }
        schema["security"] = [{"bearer": []}]
    for item in schema["paths"].values():
        for operation in item.values():
            responses = operation["responses"]
            shared = [500, 503] + ([401] if token else [])
            if "requestBody" in operation:
                shared += [400, 413, 422]
                operation["requestBody"]["description"] = (
                    f"JSON, at most {settings.max_body_bytes} bytes"
                )
            if operation.get("parameters"):
                shared.append(422)
            for status in shared:
                responses[str(status)] = _error(status)
            for status, response in responses.items():
                if status != "default" and int(status) >= 400:
                    response["content"] = _error(int(status))["content"]
            operation["responses"] = dict(sorted(responses.items()))
    schema["paths"]["/worlds"]["post"]["responses"]["201"]["links"] = _links(schema["paths"])
    step = schema["paths"]["/worlds/{world_id}/step"]["post"]["responses"]["200"]
    step["links"] = {
        name: {
            "operationId": name,
            "parameters": {
                "world_id": "$response.body#/world_id",
                "sample_id": "$response.body#/groups/0/members/0/sample_id",
            },
            "description": "The first sample of the first new capture group",
        }
        for name in ("get_sample", "get_sample_npz")
    }
    return schema
