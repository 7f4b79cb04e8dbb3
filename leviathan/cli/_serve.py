"""``leviathan serve``: live Worlds over HTTP and WebSocket until SIGINT or SIGTERM."""

from __future__ import annotations

import argparse

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.service import ServiceSettings, serve

    settings = ServiceSettings(workers=args.workers, cors_origins=tuple(args.cors_origin))
    try:
        serve(host=args.host, port=args.port, token=args.token, settings=settings)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the service is stopped: a clean exit, not a failure
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``serve`` and its handler (which shuts the service down on SIGINT and SIGTERM)."""
    p = subparsers.add_parser(
        "serve", help="serve live Worlds over HTTP and WebSocket until Ctrl-C or SIGTERM"
    )
    p.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1, loopback)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default: 8000; 0: any)")
    p.add_argument(
        "--token",
        default=None,
        help="token every request must carry (default: $LEVIATHAN_TOKEN); required off loopback",
    )
    p.add_argument("--workers", type=int, default=8, help="worker threads")
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        help="allow CORS from this origin (repeat) (default: none)",
    )
    # uvicorn handles SIGINT and SIGTERM itself: a graceful shutdown, exit 0.
    p.set_defaults(func=_run, handles_own_signals=True)
