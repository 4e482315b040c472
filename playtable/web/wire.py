"""The table as text for the client: JSON encoded once per version for every reader.

A table's public part is the same object for every socket and page at a version
(``TableService.snapshot_parts``), so its encoding is kept and spliced together with the
parts that differ per reader (the live fields, the viewer's own fields) instead of encoding
the whole table again: on a 12x12 board that is about 40 KB of JSON a reader.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from playtable.tables.views import VIEWER_FIELDS


def dumps(message: Mapping[str, Any]) -> str:
    return orjson.dumps(message).decode()


def public_text(shared: Mapping[str, Any]) -> str:
    return dumps({k: v for k, v in shared.items() if k not in VIEWER_FIELDS})


# Recent bus messages and public tables, encoded once for all the readers of this process.
# Keyed by the object's id, which the entry keeps alive (so the id is not reused).
_ENCODED: OrderedDict[int, tuple[Mapping[str, Any], str]] = OrderedDict()
_ENCODED_SIZE = 512


def encoded(
    value: Mapping[str, Any], encode: Callable[[Mapping[str, Any]], str] = public_text
) -> str:
    """``encode(value)``, kept for the next reader of the same object (never change one
    that was encoded: readers would get the old text)."""
    entry = _ENCODED.get(id(value))
    if entry is not None and entry[0] is value:
        _ENCODED.move_to_end(id(value))
        return entry[1]
    text = encode(value)
    _ENCODED[id(value)] = (value, text)
    while len(_ENCODED) > _ENCODED_SIZE:
        _ENCODED.popitem(last=False)
    return text


def table_text(
    shared: Mapping[str, Any], live: Mapping[str, Any], personal: Mapping[str, Any]
) -> str:
    """The ``table`` object of docs/protocol.md as one reader sees it: the shared part's
    kept encoding, then the live fields and the viewer's own (which win over the shared
    part's placeholders for them, being later in the object)."""
    parts = [encoded(shared)[1:-1], dumps(live)[1:-1], dumps(personal)[1:-1]]
    return "{" + ",".join(part for part in parts if part) + "}"


_HTML_UNSAFE = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027"))


def html_safe(text: str) -> str:
    """JSON text made safe inside an HTML ``<script>`` block, as Jinja's ``tojson`` makes
    it: the characters HTML gives a meaning there are written as JSON escapes."""
    for character, escape in _HTML_UNSAFE:
        if character in text:
            text = text.replace(character, escape)
    return text
