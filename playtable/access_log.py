"""The access log's filter: seat tokens and invitations never reach the log."""

from __future__ import annotations

import logging
import re


class RedactLinks(logging.Filter):
    """Keep seat tokens and invitations out of the access log: they are keys to seats."""

    SECRET_PATH = re.compile(r"(/t/[^/\s]+/(?:seat|join)/)[^\s\"?]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.SECRET_PATH.sub(r"\1…", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        return True
