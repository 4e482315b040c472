"""How ``playtable serve`` logs: every line with its time, level and source, at the level the
operator chose (``--log-level``), seat tokens and invitations never written.

Without this the application's own loggers (``playtable.*``) fell through to Python's
last-resort handler: bare text, warnings and errors only, whatever the level asked for.
"""

from __future__ import annotations

import logging
import logging.config
import re
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from playtable.access_log import RedactLinks

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
ACCESS_FORMAT = (
    '%(asctime)s %(levelname)s access: %(client_addr)s - "%(request_line)s" %(status_code)s'
)
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
SECRET_KEY = re.compile(r"pass|secret|token|key|auth|cred", re.IGNORECASE)


def config(level: str) -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for the server (uvicorn's loggers and ours)."""
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactLinks}},
        "formatters": {
            "plain": {"format": FORMAT, "datefmt": DATE_FORMAT},
            "access": {
                "()": "uvicorn.logging.AccessFormatter",
                "fmt": ACCESS_FORMAT,
                "datefmt": DATE_FORMAT,
                "use_colors": False,
            },
        },
        "handlers": {
            "plain": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "stream": "ext://sys.stderr",
                "filters": ["redact"],
            },
            "access": {
                "class": "logging.StreamHandler",
                "formatter": "access",
                "stream": "ext://sys.stdout",
                "filters": ["redact"],
            },
        },
        "loggers": {
            "playtable": {"handlers": ["plain"], "level": level, "propagate": False},
            "uvicorn": {"handlers": ["plain"], "level": level, "propagate": False},
            "uvicorn.access": {"handlers": ["access"], "level": level, "propagate": False},
        },
    }


def configure(level: str) -> None:
    logging.config.dictConfig(config(level))


def shown_url(url: str | None) -> str:
    """A database or Redis URL as a log may show it: no password, a SQLite file's full path."""
    if not url:
        return "none"
    try:
        parsed = make_url(url)
    except Exception:
        return "(an address that does not parse)"
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        parsed = parsed.set(database=str(Path(parsed.database).resolve()))
    # a password may also come in the query (?password=..., both drivers read it there)
    query = {key: "***" if SECRET_KEY.search(key) else value for key, value in parsed.query.items()}
    shown = parsed.set(query=query).render_as_string(hide_password=True)
    return shown.replace("%2A%2A%2A", "***")


__all__ = ["config", "configure", "shown_url"]
