"""The PLAYTABLE_* settings read from the environment: a value a setting cannot take stops
the server with one line that names the variable (``playtable serve`` prints it), never a
traceback, and never a site that runs oddly (a negative thinking budget made the hard
computer answer in a tenth of a second; a pending limit of 0 answered 503 to everyone)."""

from __future__ import annotations

import math
import os


class SettingError(ValueError):
    """A setting the server cannot start with; the message says which and why."""


def number(
    name: str,
    default: float,
    *,
    minimum: float | None = None,
    above: float | None = None,
    whole: bool = False,
) -> float:
    """The variable ``name`` as a number (``default`` when unset or empty): a whole one if
    ``whole``, at least ``minimum``, more than ``above``."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    kind = "a whole number" if whole else "a number"
    try:
        value = float(raw)
    except ValueError:
        raise SettingError(f"{name} must be {kind}, not {raw!r}") from None
    if not math.isfinite(value) or (whole and not value.is_integer()):
        raise SettingError(f"{name} must be {kind}, not {raw!r}")
    if minimum is not None and value < minimum:
        raise SettingError(f"{name} must be at least {minimum:g}, not {raw}")
    if above is not None and value <= above:
        raise SettingError(f"{name} must be more than {above:g}, not {raw}")
    return value


def whole_number(name: str, default: int, *, minimum: int = 0) -> int:
    return int(number(name, default, minimum=minimum, whole=True))


def flag(name: str) -> bool:
    """The on/off variable ``name``: ``1`` on, ``0`` or unset off. Anything else raises
    (``true`` or ``yes`` left the setting off without a word)."""
    raw = os.environ.get(name, "").strip()
    if raw not in ("", "0", "1"):
        raise SettingError(f"{name} must be 1 (on) or 0 (off), not {raw!r}")
    return raw == "1"


__all__ = ["SettingError", "flag", "number", "whole_number"]
