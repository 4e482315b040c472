"""Time on the site: the home form's time control, how a time control is named in the
page's language, the clock's words for the browser, and the abort button's route.

The clocks themselves are the table service's (:mod:`playtable.tables.clocks`); this file
only turns them into form fields, words and one form post.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from babel import Locale
from babel.dates import format_date, format_time, get_datetime_format
from babel.lists import format_list
from babel.numbers import format_decimal
from babel.units import format_unit
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from playtable.games.base import N_
from playtable.games.forms import FormError, choice, whole_number
from playtable.tables import GameOver, NotSeated, TableError, TableNotFound, clocks
from playtable.web.csrf import csrf_ok
from playtable.web.errors import error_page, table_not_found
from playtable.web.links import seat_token_from
from playtable.web.templating import gettext_for, language_of

TIME_KINDS = ("unlimited", "realtime", "correspondence")
PRESETS = tuple(f"{minutes}+{increment}" for minutes, increment in clocks.PRESETS)
CUSTOM = "custom"

#: The home form's time fields and their defaults (merged into ``home.FORM_DEFAULTS``).
FORM_DEFAULTS: dict[str, Any] = {
    "time": "unlimited",
    "time_preset": "5+3",
    "time_minutes": "10",
    "time_increment": "5",
    "time_days": "3",
}


#: The home form's custom real-time control, in whole minutes and whole seconds, within the
#: clocks' own bounds (tables/clocks.py); the form, its messages and this check share them.
MINUTES = (1, clocks.BASE_MAX_S // 60)
INCREMENT = (0, clocks.INCREMENT_MAX_S)
MINUTES_MESSAGE = N_("Minutes: %(low)s to %(high)s.")
INCREMENT_MESSAGE = N_("Increment: %(low)s to %(high)s seconds.")


def time_form() -> dict[str, tuple[int, ...]]:
    """The numbers the home form's time control offers and checks."""
    return {"minutes": MINUTES, "increment": INCREMENT, "days": clocks.DAYS}


def time_control_from_form(values: Mapping[str, Any]) -> clocks.TimeControl:
    """The time control the home form asks for; raises :class:`FormError`."""
    kind = choice(values.get("time"), TIME_KINDS, N_("Choose a time control."))
    if kind == "unlimited":
        return clocks.UNLIMITED
    if kind == "correspondence":
        days = choice(
            values.get("time_days"), tuple(map(str, clocks.DAYS)), N_("Choose the days per move.")
        )
        return clocks.Correspondence(int(days))
    preset = choice(values.get("time_preset"), (*PRESETS, CUSTOM), N_("Choose a time control."))
    if preset != CUSTOM:
        minutes, increment = (int(part) for part in preset.split("+"))
    else:
        low, high = MINUTES
        minutes = whole_number(values.get("time_minutes"), MINUTES_MESSAGE, low=low, high=high)
        if not low <= minutes <= high:
            raise FormError(MINUTES_MESSAGE, low=low, high=high)
        low, high = INCREMENT
        increment = whole_number(
            values.get("time_increment"), INCREMENT_MESSAGE, low=low, high=high
        )
        if not low <= increment <= high:
            raise FormError(INCREMENT_MESSAGE, low=low, high=high)
    return clocks.RealTime(minutes * 60, increment)


def describe(control: clocks.TimeControl, catalog: gettext.NullTranslations, lang: str) -> str:
    """The time control in a few words of the page's language: "5 min + 3 s" ("1,5 min" in
    Finnish and Czech: the number by Babel)."""
    _ = catalog.gettext
    if isinstance(control, clocks.RealTime):
        shown = format_decimal(round(control.base_s / 60, 2), locale=lang)
        return _("%(minutes)s min + %(seconds)d s") % {
            "minutes": shown,
            "seconds": control.increment_s,
        }
    if isinstance(control, clocks.Correspondence):
        return catalog.ngettext("%(num)d day per move", "%(num)d days per move", control.days) % {
            "num": control.days
        }
    return _("No clock")


# (seconds in the unit, Babel's unit): a time left is told in its largest unit and the next.
_UNITS = ((86400, "duration-day"), (3600, "duration-hour"), (60, "duration-minute"))


def time_control_text(request: Request, table: Mapping[str, Any]) -> str:
    """The table's time control in the words of the table page ("5 min + 3 s"); "" unclocked."""
    clock = table.get("clock")
    if not clock:
        return ""
    return describe(clocks.parse(clock["spec"]), gettext_for(request), language_of(request))


def time_left(seconds: float, request: Request) -> str:
    """A time left in words of the page's language (:func:`time_left_in`)."""
    return time_left_in(seconds, language_of(request))


def time_left_in(seconds: float, lang: str) -> str:
    """A time left in words of ``lang``, never more than there is: whole days and hours
    ("1 day, 13 hours"), hours and minutes, or minutes; seconds under a minute (Babel's
    units and lists). Rounded, 37 hours read "2 days", and a player believed it."""
    whole = max(0, int(seconds))

    def told(count: int, unit: str) -> str:
        return format_unit(count, unit, length="long", locale=lang)

    for i, (size, unit) in enumerate(_UNITS):
        if whole >= size:
            parts = [told(whole // size, unit)]
            if i + 1 < len(_UNITS):
                smaller, smaller_unit = _UNITS[i + 1]
                rest = whole % size // smaller
                if rest:
                    parts.append(told(rest, smaller_unit))
            return format_list(parts, style="unit", locale=lang)
    return told(whole, "duration-second")


def moment_in(moment: datetime, lang: str, *, with_date: bool) -> str:
    """A moment in words of ``lang`` (Babel), in UTC and saying so (the server does not know
    the visitor's time zone): a time of day to the second ("12:02:30 AM UTC"), or, for a
    moment days away, its date and time ("Dec 7, 2026, 12:02 AM UTC"), as the table page's
    first-move note writes it in the visitor's own time zone."""
    locale = Locale.parse(lang)
    length = "short" if with_date else "medium"
    time = format_time(
        moment, f"{locale.time_formats[length].pattern} z", tzinfo=UTC, locale=locale
    )
    if not with_date:
        return time
    day = format_date(moment.astimezone(UTC), "medium", locale=locale)
    pattern = str(get_datetime_format("medium", locale=locale))  # "{1}, {0}": date, time
    return pattern.replace("{0}", time).replace("{1}", day)


def moment_html(moment: datetime, lang: str, *, with_date: bool) -> Markup:
    """:func:`moment_in` as a ``<time>`` element that ``js/local_times.js`` writes again in
    the visitor's own time zone (Intl, in the page's language, as the table page's clock
    does); without scripts it stays in UTC, saying so."""
    iso = moment.astimezone(UTC).isoformat(timespec="seconds")
    shown = "date" if with_date else "time"
    return Markup('<time datetime="{}" data-local="{}">{}</time>').format(
        iso, shown, moment_in(moment, lang, with_date=with_date)
    )


def clock_strings(catalog: gettext.NullTranslations) -> dict[str, str]:
    """The clock's words for the browser (merged into the page's client strings)."""
    _ = catalog.gettext
    return {
        "clock_label": _("Time left for %(player)s"),
        # Translators: a clock's name for screen readers while the replay of a finished game
        # shows an earlier position: the time that player had then
        "clock_label_after": _("Time left for %(player)s after move %(ply)s"),
        "clock_label_start": _("Time left for %(player)s in the starting position"),
        "clock_first_move_in": _(
            "%(player)s must make a first move within %(time)s, or the table is aborted."
        ),
        "clock_first_move_in_you": _(
            "You must make your first move within %(time)s, or the table is aborted."
        ),
        "clock_first_move_abort": _(
            "If %(player)s makes no first move by the deadline on the clock, the table is "
            "aborted without a result."
        ),
        "clock_first_move_abort_you": _(
            "If you make no first move by the deadline on the clock, the table is aborted "
            "without a result."
        ),
        "clock_deadline": _("Next move by %(time)s"),
        "clock_low": _("%(player)s has %(seconds)s seconds left."),
        "clock_minute": _("%(player)s has one minute left."),
        "clock_running": _("running"),
        "wins_timeout": _("%(loser)s ran out of time. %(winner)s wins."),
        "aborted": _("The table was aborted: no result."),
        "aborted_turn": _("Aborted"),
        "notify_your_move": _("Your move at Playtable"),
        "notify_enable": _("Tell me when it is my move"),
        "notify_on": _("You will be told when it is your move."),
        "notify_denied": _("Notifications are blocked for this site in your browser."),
        "notify_dismissed": _(
            "Notifications were not allowed. Press the button again to be asked again."
        ),
        "push_on": _("This device will tell you when it is your move, even with the tab closed."),
        "push_off": _("This device will no longer tell you when it is your move."),
        "push_failed": _("This browser could not turn on push notifications."),
    }


def table_time(request: Request, table: Mapping[str, Any], you: str | None) -> dict[str, Any]:
    """What the table page's template shows of the time: the time control in words, and
    whether the abort button is offered (a player, before both have moved)."""
    clock = table.get("clock")
    catalog = gettext_for(request)
    control = clocks.parse(clock["spec"]) if clock else clocks.UNLIMITED
    movers = set(table.get("movers") or ())
    return {
        "time_control": describe(control, catalog, language_of(request)) if clock else "",
        "can_abort": bool(you) and table.get("outcome") is None and len(movers) < 2,
    }


async def abort(request: Request) -> Response:
    """``POST /t/{id}/abort``: the abort button's form (before both players have moved)."""
    table_id = request.path_params["table_id"]
    form = await request.form()
    catalog = gettext_for(request)
    _ = catalog.gettext
    try:
        if not csrf_ok(request, form):
            return error_page(
                request,
                403,
                _("This form has expired"),
                _("Reload the table page and try again."),
            )
        service = request.app.state.service
        try:
            await service.abort(table_id, seat_token_from(request, table_id))
        except TableNotFound:
            return table_not_found(request)
        except NotSeated:  # a spectator, or a seat cookie this browser no longer holds
            return error_page(
                request, 403, _("The table was not aborted"), _("Only the two players can do that.")
            )
        except GameOver:
            return error_page(
                request, 409, _("The table was not aborted"), _("The game is already over.")
            )
        except TableError:
            return error_page(
                request,
                409,
                _("The table was not aborted"),
                _("A table can be aborted only before both players have moved."),
            )
    finally:
        await form.close()
    return RedirectResponse(request.url_for("table", table_id=table_id).path, status_code=303)


routes: list[BaseRoute] = [
    Route("/t/{table_id}/abort", abort, methods=["POST"], name="abort"),
]

__all__ = [
    "FORM_DEFAULTS",
    "clock_strings",
    "describe",
    "moment_html",
    "moment_in",
    "routes",
    "table_time",
    "time_control_from_form",
    "time_left",
    "time_left_in",
]
