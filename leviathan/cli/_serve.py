"""``leviathan serve``: live Worlds over HTTP and WebSocket until SIGINT or SIGTERM."""

from __future__ import annotations

import argparse

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.service import ServiceSettings, serve

    settings = ServiceSettings(
        workers=args.workers,
        cors_origins=tuple(args.cors_origin),
        samples_kept=args.samples_kept,
        samples_bytes_per_world=args.samples_bytes_per_world,
        samples_bytes_total=args.samples_bytes_total,
    )
    try:
        serve(host=args.host, port=args.port, token=args.token, settings=settings)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the service is stopped: a clean exit, not a failure
    return 0


_SIZE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def _byte_size(text: str) -> int:
    """A byte count: digits with an optional binary suffix K, M or G (``128M``)."""
    value = text.strip().upper().removesuffix("B")
    unit = value[-1:] if value[-1:] in ("K", "M", "G") else ""
    digits = value[: len(value) - len(unit)]
    if not digits.isdigit() or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a size in bytes, e.g. 134217728, 128M or 3G, got {text!r}"
        )
    return int(digits) * _SIZE_UNITS[unit]


def _size_text(size: int) -> str:
    for unit in ("G", "M", "K"):
        if size % _SIZE_UNITS[unit] == 0:
            return f"{size // _SIZE_UNITS[unit]}{unit} = {size:,} bytes"
    return f"{size:,} bytes"


def _positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return int(text)


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
    # ServiceSettings' defaults (a test keeps them equal; importing the service here
    # would load FastAPI for every command).
    p.add_argument(
        "--samples-kept",
        type=_positive_int,
        default=512,
        help="recent samples each World keeps downloadable (default: 512)",
    )
    p.add_argument(
        "--samples-bytes-per-world",
        type=_byte_size,
        default=128 * 1024**2,
        metavar="SIZE",
        help=f"bytes of kept samples per World, e.g. 64M (default: {_size_text(128 * 1024**2)})",
    )
    p.add_argument(
        "--samples-bytes-total",
        type=_byte_size,
        default=2 * 1024**3,
        metavar="SIZE",
        help="bytes of kept samples over all Worlds, e.g. 4G (default: "
        f"{_size_text(2 * 1024**3)}); the oldest go first",
    )
    # uvicorn handles SIGINT and SIGTERM itself: a graceful shutdown, exit 0.
    p.set_defaults(func=_run, handles_own_signals=True)
