"""The home page: its form (a game and its settings, a colour, an opponent) and the table
it creates.

Each game's part of the form comes from the game registry
(:data:`playtable.games.forms.FORMS`): its fields, their defaults, the query parameters a
link may preselect them with, and how the values become table options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from playtable.games import GameError, Player, other
from playtable.games.base import N_
from playtable.games.forms import FORMS, FormError, choice
from playtable.tables import clocks
from playtable.web.budgets import Budget, over_budget
from playtable.web.csrf import csrf_ok, csrf_token, set_csrf_cookie
from playtable.web.errors import error_page
from playtable.web.form_limits import form_limits
from playtable.web.links import set_organiser_cookie, set_seat_cookie
from playtable.web.my_games import waiting_count
from playtable.web.templating import gettext_for, language_of, page_url, render
from playtable.web.timing import CUSTOM, PRESETS, TIME_KINDS, time_control_from_form, time_form
from playtable.web.timing import FORM_DEFAULTS as TIME_DEFAULTS

GAMES = tuple(FORMS)
# "none": the table is set up for two other players (a club's organiser); this browser gets
# both players' links (playtable.web.organiser) and sits at neither seat
NOBODY = "none"
SEATS = ("red", "blue", "random", NOBODY)
OPPONENTS = ("friend", "easy", "medium", "hard")  # a person by link, or the computer's level

#: The home form as a first-time visitor sees it: the first game with its defaults.
FORM_DEFAULTS: dict[str, Any] = {
    "game": GAMES[0],
    **{name: value for form in FORMS.values() for name, value in form.defaults.items()},
    "seat": "random",
    "opponent": "friend",
    **TIME_DEFAULTS,
}
#: Query parameters that preselect a choice of the whole form (``/?seat=blue``).
COMMON_CHOICES = {"game": GAMES, "seat": SEATS, "opponent": OPPONENTS}


async def _home(
    request: Request,
    form: Mapping[str, Any],
    *,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    token, new = csrf_token(request)
    response = render(
        request,
        "home.html",
        {
            "form": form,
            "error": error,
            "csrf_token": token,
            "nav": "home",
            "presets": PRESETS,
            "time": time_form(),  # the custom clock's bounds and the correspondence days
            # the board sizes' ranges, their hints' numbers and messages, from the engines
            "limits": form_limits(gettext_for(request), language_of(request)),
            "waiting": await waiting_count(request),  # "2 games are waiting for your move"
        },
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
    )
    if new:
        set_csrf_cookie(response, request, token)
    return response


def form_from_query(query: Mapping[str, str]) -> dict[str, Any]:
    """The home form with the settings a link asks for (``/?game=dots&start=swedish``, as
    the variant pages link); anything unknown or malformed is ignored (the form still checks
    every value when it is submitted)."""
    values: dict[str, Any] = dict(FORM_DEFAULTS)
    for name, allowed in COMMON_CHOICES.items():
        if query.get(name, "") in allowed:
            values[name] = query[name]
    game = FORMS[values["game"]]
    for param, name in game.query.items():
        if param not in query:
            continue
        value = query[param]
        if name in game.choices:
            if value in game.choices[name]:
                values[name] = value
        elif isinstance(game.defaults[name], bool):
            values[name] = value not in ("", "0", "false")
        elif value.isascii() and value.isdigit() and len(value) <= 2:
            values[name] = value
    values.update(_time_from_query(query))
    return values


def _time_from_query(query: Mapping[str, str]) -> dict[str, str]:
    """The clock a link asks for: ``time=realtime&minutes=10&increment=5`` (a preset when
    it is one, else the custom fields) or ``time=correspondence&days=3``."""
    values: dict[str, str] = {}
    if query.get("time", "") in TIME_KINDS:
        values["time"] = query["time"]
    minutes, increment = query.get("minutes", ""), query.get("increment", "0")
    if all(n.isascii() and n.isdigit() and len(n) <= 3 for n in (minutes, increment)):
        preset = f"{int(minutes)}+{int(increment)}"
        if preset in PRESETS:
            values["time_preset"] = preset
        else:
            values.update(
                time_preset=CUSTOM,
                time_minutes=str(int(minutes)),
                time_increment=str(int(increment)),
            )
    days = query.get("days", "")
    if days.isascii() and days.isdigit() and len(days) <= 2:
        values["time_days"] = str(int(days))
    return values


def same_settings_query(
    game: str,
    options: Mapping[str, Any],
    spec: str | None,
    computer: tuple[Player, str] | None = None,
) -> str:
    """The home page's query that preselects a table's settings and clock (the table page's
    "New table with these settings"): ``game=dots&grid=square&rows=5&...&time=realtime``.
    ``computer``: the seat and level of the computer at the table, which the new table keeps
    (the player's colour and ``opponent=medium``); else the form's own opponent, a friend."""
    params: dict[str, str] = {"game": game}
    if computer is not None:
        seat, level = computer
        params.update(seat=other(seat), opponent=level)
    for param in FORMS[game].query:
        if param in options:
            value = options[param]
            params[param] = ("1" if value else "0") if isinstance(value, bool) else str(value)
    control = clocks.parse(spec) if spec else clocks.UNLIMITED
    if isinstance(control, clocks.RealTime) and control.base_s % 60 == 0:
        params.update(
            time="realtime", minutes=str(control.base_s // 60), increment=str(control.increment_s)
        )
    elif isinstance(control, clocks.Correspondence):
        params.update(time="correspondence", days=str(control.days))
    return urlencode(params)


async def home(request: Request) -> Response:
    return await _home(request, form_from_query(request.query_params))


def _submitted(form: FormData) -> dict[str, Any]:
    """The form values to show again after an error (defaults for anything missing)."""
    values: dict[str, Any] = dict(FORM_DEFAULTS)
    for name, default in FORM_DEFAULTS.items():
        value = form.get(name)
        if isinstance(default, bool):
            values[name] = bool(value)
        elif isinstance(value, str):
            values[name] = value.strip()[:40]
    return values


def table_request(values: Mapping[str, Any]) -> tuple[str, dict[str, Any], str]:
    """The game, options and seat that the home form asks for; raises :class:`FormError`."""
    game = choice(values.get("game"), GAMES, N_("Choose a game."))
    options = FORMS[game].options(values)
    seat = choice(values.get("seat"), SEATS, N_("Choose a colour."))
    return game, options, seat


async def create_table(request: Request) -> Response:
    form = await request.form()
    catalog = gettext_for(request)
    _ = catalog.gettext
    try:
        if not csrf_ok(request, form):
            return error_page(
                request,
                403,
                _("This form has expired"),
                _(
                    "For your safety the table was not created. Reload the home page and "
                    "submit the form again."
                ),
            )
        if await over_budget(request, Budget.TABLES) is not None:
            # The same per-address limit as the API; the sentence is the translated one the
            # table page shows for rate_limited.
            return error_page(
                request, 429, _("Too many actions at once. Wait a moment and try again."), ""
            )
        values = _submitted(form)
        try:
            game, options, seat = table_request(values)
            opponent = choice(values.get("opponent"), OPPONENTS, N_("Choose an opponent."))
            bot = None if opponent == "friend" else opponent
            if seat == NOBODY and bot is not None:
                raise FormError(N_("To play the computer, choose your colour."))
            control = time_control_from_form(values)
            service = request.app.state.service
            if seat == NOBODY:
                table_id = await service.set_up_for_others(game, options, control)
            else:
                created = await service.create_table(
                    game, options, seat, bot=bot, time_control=control
                )
        except GameError as exc:
            # A game's error is a catalog message: said in the page's language.
            return await _home(
                request, values, error=_sentence(exc.translate(catalog.gettext)), status_code=400
            )
    finally:
        await form.close()
    if seat == NOBODY:
        # this browser is seated nowhere: its key opens the players' links page
        links = page_url(request, request.url_for("players_links", table_id=table_id).path)
        response = RedirectResponse(links, status_code=303)
        set_organiser_cookie(response, request, table_id, service.invitations.organiser(table_id))
        return response
    response = RedirectResponse(request.url_for("table", table_id=created.id).path, status_code=303)
    set_seat_cookie(response, request, created.id, created.seat_token)
    return response


def _sentence(reason: str) -> str:
    """A game's reason as a sentence after "The table could not be created.": the engines'
    settings errors are fragments ("rows must be a whole number from 1 to 12"), made to follow
    a field's name in the API; the form's box shows "Rows must ... from 1 to 12." (every
    language of the site ends a sentence with a full stop)."""
    reason = reason[:1].upper() + reason[1:]
    return reason if reason.endswith((".", "!", "?")) else reason + "."


async def to_home(request: Request) -> Response:
    """``GET /tables``: the address a refused form was shown at, reloaded or typed again; the
    form is on the home page, in the same language."""
    return RedirectResponse(page_url(request, "/"), status_code=303)


__all__ = [
    "FORM_DEFAULTS",
    "create_table",
    "form_from_query",
    "home",
    "same_settings_query",
    "table_request",
    "to_home",
]
