"""The log's filter: seat tokens and invitations never reach the log."""

from __future__ import annotations

import logging
import re

_MIXED = re.compile(r"[A-Z].*[a-z0-9]|[a-z0-9].*[A-Z]")
# A class or file name in words (ConnectionDoesNotExistError), not a key: kept.
_WORDS = re.compile(r"(?:[A-Z][a-z]+)+")


def _key_like(match: re.Match[str]) -> str:
    run = match.group()
    return "…" if _MIXED.search(run) and not _WORDS.fullmatch(run) else run


class RedactLinks(logging.Filter):
    """Keep seat tokens and invitations out of the log: they are keys to seats. Set on the
    server's handlers, so every line is filtered: the access log's, and uvicorn's own
    (its WebSocket lines name the path too).

    A seat link's key goes, and so does any run of 24 or more URL-safe characters mixing
    capitals with small letters or digits: a token spelled another way (``seat%2F...``,
    ``/SEAT/``, ``//seat/``) is still a token, and a seat's tokens are 32 random such
    characters (one without a capital: 1 in 16 million). Paths and names stay."""

    SECRET_PATH = re.compile(r"(/t/[^/\s]+/(?:seat|join)/)[^\s\"?]+", re.IGNORECASE)
    KEY_LIKE = re.compile(r"(?<![\w-])[\w-]{24,}(?![\w-])", re.ASCII)

    def _redact(self, text: str) -> str:
        text = self.SECRET_PATH.sub(r"\1…", text)
        return self.KEY_LIKE.sub(_key_like, text)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = self._redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                self._redact(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        if record.exc_info and not record.exc_text:
            # the traceback as the handler would write it, keys taken out
            record.exc_text = self._redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        return True
