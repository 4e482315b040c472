"""My games (``/games``): the tables where this browser holds a seat.

There are no accounts, and no list of a browser's seats is kept anywhere: each seat is its
own cookie, ``pt_{table_id}`` (HttpOnly, SameSite=Lax, Path=/), so a request for ``/games``
from this site already carries every seat this browser holds. The page checks each token
against its table (a cookie a visitor made up shows nothing) and lists the tables. Nothing
new is secret: the page shows what the seat cookies already allow, only to their holder,
and another site can neither read the page (same-origin policy) nor send the cookies along
with a cross-site request that could (SameSite=Lax sends them on top-level navigation only,
whose answer the other site never sees).

The seat link itself (the token in a URL) is shown only on ``/t/{id}/continue``
(:mod:`playtable.web.continue_page`), which a player opens on purpose to carry the seat to
another device (as a link or a QR code).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from babel.numbers import format_decimal
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from playtable.games import Player, other
from playtable.tables import (
    TableNotFound,
    TableService,
    clocks,
    tokens,
)
from playtable.web.budgets import Budget, over_budget
from playtable.web.csrf import csrf_token, set_csrf_cookie
from playtable.web.errors import error_page
from playtable.web.links import SEAT_COOKIE_PREFIX, set_seat_cookie, table_cookies
from playtable.web.organised import organised_tables, organiser_cookies
from playtable.web.presentation import bot_names, game_title, settings_summary
from playtable.web.result_words import result_words
from playtable.web.templating import gettext_for, language_of, render
from playtable.web.timing import moment_html, time_control_text, time_left

#: The most seat cookies one request is checked for (a browser keeps a few dozen at most).
MAX_SEATS = 100


@dataclass(frozen=True)
class MyGame:
    """One table this browser holds a seat at, as My games lists it."""

    table: Mapping[str, Any]
    you: Player
    your_move: bool
    running: bool
    token: str  # the seat's, from this browser's cookie
    #: When the table last changed: the game's end, else its last move, else its making.
    last_played: datetime

    @property
    def seconds_to_move(self) -> float | None:
        """What the side to move has left for this move (None: no clock, or the game is
        over): its clock, or, while the table waits for a first move, the time until the
        table is aborted (its clock does not run yet, and shows the whole base time)."""
        clock = self.table.get("clock")
        mover = self.table.get("to_move")
        if not clock or not self.running or mover is None:
            return None
        if clock.get("expiry") == "abort" and clock.get("waiting_for") == mover:
            deadline, now = clock.get("deadline"), clock.get("now")
            if deadline and now:
                gap = datetime.fromisoformat(deadline) - datetime.fromisoformat(now)
                return max(0.0, gap.total_seconds())
        left = (clock.get("remaining") or {}).get(mover)
        return None if left is None else float(left)

    @property
    def first_move_by(self) -> datetime | None:
        """While the table waits for the first move of the side to move (its clock does not
        run yet), the moment the table is aborted without it; else None."""
        clock = self.table.get("clock")
        mover = self.table.get("to_move")
        if not clock or not self.running or clock.get("expiry") != "abort":
            return None
        if clock.get("running") or mover in (self.table.get("movers") or ()):
            return None
        deadline = clock.get("deadline")
        return datetime.fromisoformat(deadline) if deadline else None

    @property
    def order(self) -> tuple[int, float, float]:
        """Waiting for your move, least time left first; other running games; finished.
        Within a group without a clock to go by, the game played last comes first (after a
        dozen games, the one just finished must not be at the bottom)."""
        group = 0 if self.your_move else 1 if self.running else 2
        left = self.seconds_to_move
        return group, float("inf") if left is None else left, -self.last_played.timestamp()


def seat_cookies(request: Request) -> list[tuple[str, str]]:
    """``(table id, token)`` of the seat cookies the request carries (unchecked): the newest
    ``MAX_SEATS`` (:func:`~playtable.web.links.table_cookies`). Keeping the first ones hid
    every game taken after the hundredth seat, for ever: this page renews the seats it
    lists, so the oldest never expired."""
    return table_cookies(request, SEAT_COOKIE_PREFIX, MAX_SEATS)


async def my_games(service: TableService, request: Request) -> list[MyGame]:
    """The tables whose seat token this request carries and that token opens, and their
    rematches, in the order of the page (:attr:`MyGame.order`). The cookies' tables are paid
    for by the caller (:func:`_over_budget`); each rematch followed spends a read of the
    address's budget here, and none left, it is not listed."""
    games: dict[str, MyGame] = {}
    seats = seat_cookies(request)
    held = {table_id for table_id, _ in seats}
    for table_id, token in seats:
        next_id: str | None = table_id
        # A rematch's seats are derived from the last table's keys: a browser that holds a
        # seat of the game finds its rematches too (made on another device, whose cookie
        # this one never got), unless that seat's link was replaced there since.
        while next_id is not None and next_id not in games and len(games) < MAX_SEATS:
            you = await service.seat_of(next_id, token)
            if you is None:
                break
            try:
                loaded = await service.load(next_id)
                table = await service.snapshot(next_id, you)
            except TableNotFound:
                break
            running = table["outcome"] is None
            your_move = running and table["to_move"] == you
            games[next_id] = MyGame(table, you, your_move, running, token, loaded.last_played)
            next_id = table.get("rematch_id")
            if next_id is None or next_id in held:
                break  # none, or this browser's own cookie for it lists it
            if await over_budget(request, Budget.READS) is not None:
                break  # each rematch read is a read too: one cookie could name a long line
            token = tokens.rematch_token(token, next_id)
    return sorted(games.values(), key=lambda game: game.order)


async def _over_budget(request: Request) -> int | None:
    """Spend a read of the address's budget for each table the request's seat cookies name
    (each one a table read: a forged request can name a hundred big boards); the seconds to
    wait if it has none left."""
    tables = len(seat_cookies(request)) + len(organiser_cookies(request))
    return await over_budget(request, Budget.READS, units=max(1, tables))


async def waiting_count(request: Request) -> int:
    """How many of this browser's tables wait for its move (the home page says so; nothing,
    rather than a refused home page, past the address's reads)."""
    if not seat_cookies(request) or await _over_budget(request) is not None:
        return 0
    return sum(game.your_move for game in await my_games(request.app.state.service, request))


def seat_text(request: Request, table: Mapping[str, Any], player: Player) -> Markup:
    """Who sits at ``player``'s seat: the computer's level, or the colour (after the name
    chosen at the table, as the table page writes it: "Anna (Blue)", the name isolated in its
    own direction) and whether they are online."""
    _ = gettext_for(request).gettext
    seat = table["seats"][player]
    if seat.get("bot"):
        return Markup.escape(bot_names(gettext_for(request))[seat["bot"]])
    name = _("Red") if player == "red" else _("Blue")
    if not seat["taken"]:
        return Markup.escape(_("%(player)s (seat free)") % {"player": name})
    if seat.get("nickname"):
        nickname = Markup('<bdi dir="auto">{}</bdi>').format(seat["nickname"])
        who = Markup(_("%(name)s (%(player)s)")) % {"name": nickname, "player": name}
    else:
        who = Markup.escape(name)
    return who + " · " + (_("online") if seat["online"] else _("offline"))


def opponent_text(request: Request, table: Mapping[str, Any], you: Player) -> Markup:
    """Who plays against ``you`` (:func:`seat_text` of the other seat)."""
    return seat_text(request, table, other(you))


def _result(request: Request, game: MyGame) -> str:
    """How a finished game ended for this seat, in a few words ("You lost on time 3–5")."""
    _ = gettext_for(request).gettext
    outcome = game.table.get("outcome") or {}
    winner, reason = outcome.get("winner"), str(outcome.get("reason"))
    if reason == "aborted":
        return _("Aborted")
    if winner is None:
        words = _("Draw agreed") if reason == "draw_agreed" else _("Draw")
    elif winner == game.you:
        words = {
            "resign": _("You won: your opponent resigned"),
            "timeout": _("You won on time"),
        }.get(reason, _("You won"))
    else:
        words = {"resign": _("You resigned"), "timeout": _("You lost on time")}.get(
            reason, _("You lost")
        )
    score = outcome.get("score")
    if isinstance(score, Mapping) and game.you in score:
        mine, theirs = score[game.you], score[other(game.you)]
        # Translators: how a finished game ended and its score, this seat's boxes first,
        # written as the language writes a score (as in "%(winner)s wins ..." of the table)
        lang = language_of(request)
        return _("%(result)s · %(mine)s–%(theirs)s") % {
            "result": words,
            "mine": format_decimal(mine, locale=lang),
            "theirs": format_decimal(theirs, locale=lang),
        }
    return words


async def _organised_rows(request: Request) -> list[dict[str, Any]]:
    """The tables this browser set up for two other players: who sits where, and how the
    game stands or ended (an evening's results at a glance)."""
    catalog = gettext_for(request)
    _ = catalog.gettext
    lang = language_of(request)
    rows = []
    for organised in await organised_tables(request.app.state.service, request):
        table = organised.table
        if table["outcome"] is not None:
            status = result_words(table["outcome"], catalog, lang)
        elif not (table["seats"]["red"]["taken"] or table["seats"]["blue"]["taken"]):
            status = _("Waiting for both players to take their seats")
        elif not table["seats"]["red"]["taken"]:
            status = _("Waiting for Red to take the seat")
        elif not table["seats"]["blue"]["taken"]:
            status = _("Waiting for Blue to take the seat")
        else:
            mover = _("Red") if table["to_move"] == "red" else _("Blue")
            status = _("%(player)s to move") % {"player": mover}
        rows.append(
            {
                "table": table,
                "running": organised.running,
                "title": game_title(table["game"], catalog),
                "rematch": organised.rematch,
                "rematch_number": format_decimal(organised.rematch, locale=lang),
                "summary": settings_summary(table["game"], table["options"], catalog),
                "time_control": time_control_text(request, table),
                "red": seat_text(request, table, "red"),
                "blue": seat_text(request, table, "blue"),
                "status": status,
                "when": moment_html(organised.last_played, lang, with_date=True),
                "played": bool(table.get("moves")),
            }
        )
    return rows


async def games_page(request: Request) -> Response:
    catalog = gettext_for(request)
    wait = await _over_budget(request)
    if wait is not None:
        message = catalog.gettext("Too many actions at once. Wait a moment and try again.")
        refused = error_page(request, 429, message, "")
        refused.headers["Retry-After"] = str(wait)
        return refused
    rows = []
    games = await my_games(request.app.state.service, request)
    lang = language_of(request)
    for game in games:
        left, clock = game.seconds_to_move, game.table.get("clock")
        control = clocks.parse(clock["spec"]) if clock else None
        # a correspondence first move is days away: its date too, not a bare time
        due = game.first_move_by
        correspondence = isinstance(control, clocks.Correspondence)
        rows.append(
            {
                "game": game,
                "title": game_title(game.table["game"], catalog),
                "summary": settings_summary(game.table["game"], game.table["options"], catalog),
                "time_control": time_control_text(request, game.table),
                "opponent": opponent_text(request, game.table, game.you),
                "time_left": None if left is None else time_left(left, request),
                "first_move_by": moment_html(due, lang, with_date=correspondence) if due else None,
                "result": None if game.running else _result(request, game),
                # when it ended, or was last played, or set up: the day matters most
                "when": moment_html(game.last_played, lang, with_date=True),
                "played": bool(game.table.get("moves")),
            }
        )
    csrf, new_csrf = csrf_token(request)  # the form that carries the games elsewhere
    response = render(
        request,
        "my_games.html",
        {
            "rows": rows,
            "organised": await _organised_rows(request),
            "nav": "games",
            "csrf": csrf,
        },
        headers={"Cache-Control": "no-store"},
    )
    if new_csrf:
        set_csrf_cookie(response, request, csrf)
    for game in games:  # each seat listed is renewed, as by a visit to its table
        set_seat_cookie(response, request, game.table["id"], game.token)
    return response


routes: list[BaseRoute] = [
    Route("/games", games_page, methods=["GET", "HEAD"], name="my_games"),
]

__all__ = [
    "MyGame",
    "my_games",
    "opponent_text",
    "routes",
    "seat_cookies",
    "seat_text",
    "waiting_count",
]
