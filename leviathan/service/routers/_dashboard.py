"""``/`` and ``/dashboard/*``: the Dashboard's static files, shipped as package data.

The Dashboard is plain ES modules and vendored libraries in
``leviathan/service/dashboard/`` (no build step, nothing fetched from the internet).
``index.html`` is served at ``/`` (and ``/dashboard/``); its ``<base href="/dashboard/">``
makes every relative module and asset URL resolve under ``/dashboard/``.

These files are public even when the service has a token (:func:`is_public_path`):
they hold no data, and a browser cannot send a header on a page load. Every API
call the page makes carries the token it reads from its own ``?token=`` query.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path, PurePosixPath

from fastapi import APIRouter
from fastapi.responses import FileResponse

from leviathan.service._errors import ServiceError, not_found

__all__ = ["dashboard_dir", "is_public_path", "router"]

router = APIRouter(tags=["dashboard"], include_in_schema=False)

# Explicit types: an ES module must be served as JavaScript, and the platform's
# mimetypes table (which varies by OS) is not to be trusted with that.
_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}
# Always revalidated, so a browser never runs an old panel against a newer service.
_HEADERS = {"cache-control": "no-cache", "x-content-type-options": "nosniff"}


def dashboard_dir() -> Path:
    """The folder of the installed Dashboard files (``leviathan/service/dashboard``)."""
    return Path(str(resources.files("leviathan.service").joinpath("dashboard")))


def is_public_path(method: str, path: str) -> bool:
    """Whether a request reads a Dashboard file (served without the token)."""
    return method in ("GET", "HEAD") and (path == "/" or path.startswith("/dashboard/"))


def _not_found(path: str) -> ServiceError:
    return not_found(
        "path",
        path,
        f"no Dashboard file {path!r}",
        expected="a file shipped in leviathan/service/dashboard (e.g. app.js)",
    )


def _file(relative: str) -> FileResponse:
    parts = PurePosixPath(relative).parts
    # Only plain names below the folder: no '..', no absolute path, no hidden file.
    if not parts or any(p in ("..", "/") or p.startswith(".") for p in parts):
        raise _not_found(relative)
    base = dashboard_dir().resolve()
    path = base.joinpath(*parts).resolve()
    # Licence files ship without a suffix; they are read as plain text.
    media_type = _MEDIA_TYPES.get(".txt" if path.name == "LICENSE" else path.suffix)
    if not path.is_relative_to(base) or not path.is_file() or media_type is None:
        raise _not_found(relative)
    return FileResponse(path, media_type=media_type, headers=_HEADERS)


@router.get("/", summary="The Dashboard")
async def index() -> FileResponse:
    """The Dashboard's page."""
    return _file("index.html")


@router.get("/dashboard/", summary="The Dashboard")
async def dashboard_index() -> FileResponse:
    """The Dashboard's page (the folder's own URL)."""
    return _file("index.html")


@router.get("/dashboard/{relative:path}", summary="A Dashboard file")
async def dashboard_file(relative: str) -> FileResponse:
    """One of the Dashboard's static files (modules, styles, vendored libraries)."""
    return _file(relative)
