"""Support for the MCAP tests: a written file read back by independent readers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcap.reader import make_reader
from rosbags.typesys import Stores, get_types_from_msg, get_typestore


def decoded_messages(path: Path) -> dict[str, list[tuple[str, Any]]]:
    """Every message of the MCAP file ``path`` by topic, in file order, as
    ``(schema name, payload)``: records through the plain ``mcap`` reader (CRCs checked),
    payloads through a ``rosbags`` store built from the file's own schemas only."""
    with open(path, "rb") as stream:
        reader = make_reader(stream, validate_crcs=True)
        store = get_typestore(Stores.EMPTY)
        for schema in reader.get_summary().schemas.values():
            store.register(get_types_from_msg(schema.data.decode(), schema.name))
        decoded: dict[str, list[tuple[str, Any]]] = {}
        for schema, channel, message in reader.iter_messages():
            decoded.setdefault(channel.topic, []).append(
                (schema.name, store.deserialize_cdr(message.data, schema.name))
            )
    return decoded
