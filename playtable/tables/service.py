"""The table service: tables, seats, moves, offers and rematches, with no HTTP and no SQL.

Every request follows the one road of docs/architecture.md: check the seat token and the
turn, let the game's rules judge the move, commit the change to the store (compare-and-set on
the table's version, unique ply), and only then publish it on the bus to every socket of the
table. The store is the only truth: the service caches replayed positions, but reads are
checked against the stored version and a change decided on the cache commits only if the
stored version still matches (else the table is re-read), so several server processes can
serve the same table.

Bus messages are ``{"type": "table", "version", "events": [...], "table": public}`` where
``public`` is the ``table`` object of docs/protocol.md with the viewer's own fields (``you``,
``invite_url``) empty; :meth:`TableService.personalize` fills them in per socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import random
import secrets
import time
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, cast

from playtable import games
from playtable.ai import LEVELS, BotMove, bot_move
from playtable.ai import analysis as solver_work
from playtable.ai.quick import quick_game_move
from playtable.bus import Bus
from playtable.games import PLAYERS, Game, GameError, Player, SettingsError, other
from playtable.games.records import GameRecord
from playtable.store import KEEP, Change, MoveRow, NewTable, Store, TableRow, position_digests
from playtable.tables import tokens
from playtable.tables.bots import BotPool, BotSettings
from playtable.tables.errors import (
    AnalysisRefused,
    Busy,
    GameOver,
    Illegal,
    NoOffer,
    NotSeated,
    NotYourTurn,
    Stale,
    TableError,
    TableNotFound,
)

SEAT_CHOICES = ("red", "blue", "random")
_FROM_VIEW = object()  # marks an event field to be filled in from the new position's view
# How often one request re-reads the table after losing a race to another writer.
ATTEMPTS = 5
CACHE_SIZE = 2048
# Positions this process failed to prove, keyed by (table, moves hash): not tried again here
# (the budget would be the same), so a reloaded analysis page costs no solver time.
UNPROVED_SIZE = 20000

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CreatedTable:
    id: str
    seat: Player
    seat_token: str
    invite_token: str


@dataclass(frozen=True)
class Bot:
    """The computer acting for its seat ``player``: passed where a person passes a seat token.

    It has no token at all: the service checks that the table really has a bot in that seat.
    """

    player: Player


Actor = str | Bot | None  # a seat token, the computer, or nobody (a spectator)


@dataclass(frozen=True)
class _Table:
    """A table as read from the store, with its position replayed."""

    row: TableRow
    moves: tuple[MoveRow, ...]
    game: Game[Any, Any, Any]
    state: Any

    @property
    def ply(self) -> int:
        return len(self.moves)

    def outcome(self) -> dict[str, Any] | None:
        if self.row.outcome is not None:
            return self.row.outcome
        result = self.game.outcome(self.state)
        return result.to_json() if result is not None else None

    def seat_of(self, token: Actor) -> Player | None:
        if isinstance(token, Bot):
            return token.player if token.player in self.row.bots else None
        found: Player | None = None
        # Compare against every seat so the time taken does not tell which one matched.
        for player in PLAYERS:
            if tokens.matches(token, self.row.seats.get(player)):
                found = player
        return found


@dataclass(frozen=True)
class _Decision:
    change: Change
    events: list[dict[str, Any]]
    moves: tuple[MoveRow, ...]
    state: Any
    row_updates: dict[str, Any]


Decide = Callable[[_Table], _Decision | None]


class Presence:
    """How many sockets each player has open, per table, in this process.

    The bus's :class:`~playtable.bus.Presence` adds up these counts across processes.
    """

    def __init__(self) -> None:
        self._counts: dict[tuple[str, Player], int] = {}

    def add(self, table_id: str, player: Player) -> bool:
        """Count one more socket; ``True`` if the player just came online."""
        key = (table_id, player)
        self._counts[key] = self._counts.get(key, 0) + 1
        return self._counts[key] == 1

    def remove(self, table_id: str, player: Player) -> bool:
        """Count one socket less; ``True`` if the player just went offline."""
        key = (table_id, player)
        left = self._counts.get(key, 0) - 1
        if left > 0:
            self._counts[key] = left
            return False
        self._counts.pop(key, None)
        return left == 0

    def count(self, table_id: str, player: Player) -> int:
        return self._counts.get((table_id, player), 0)


class TableService:
    """Everything a table page, a script or a bot can do at a table."""

    def __init__(
        self, store: Store, bus: Bus, secret: bytes, bots: BotSettings | None = None
    ) -> None:
        if len(secret) < 16:
            raise ValueError("the server secret needs at least 128 bits")
        self.store = store
        self.bus = bus
        self._secret = secret
        self.presence = Presence()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._cache: OrderedDict[str, _Table] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()
        self.bot_settings = bots if bots is not None else BotSettings()
        self.pool = BotPool(self.bot_settings.workers)
        # The analysis has its own workers: a long analysis must not make the bots of other
        # tables fall back to their quick move.
        self.analysis_pool = BotPool(self.bot_settings.analysis_workers)
        # One pending piece of bot work per table: (what it is about, the task doing it).
        self._bot_tasks: dict[str, tuple[tuple[Any, ...], asyncio.Task[None]]] = {}
        # How the computer's moves were found: "thought" (in the pool, with time to think),
        # "quick" (in the pool, whose job started too late to think) and "fallback" (here,
        # because the pool had not answered by the cap).
        self.bot_replies: Counter[str] = Counter()
        self._analysis_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._unproved: OrderedDict[tuple[str, str], None] = OrderedDict()

    # -- links ------------------------------------------------------------------------------
    def invite_token(self, table_id: str) -> str:
        # Derived from the server secret rather than stored, so the store keeps only its hash
        # and yet a seated player can be shown the invitation link at any time.
        return tokens.derive(self._secret, f"invite:{table_id}")

    @staticmethod
    def seat_url(table_id: str, token: str) -> str:
        return f"/t/{table_id}/seat/{token}"

    def invite_url(self, table_id: str) -> str:
        return f"/t/{table_id}/join/{self.invite_token(table_id)}"

    @staticmethod
    def watch_url(table_id: str) -> str:
        return f"/t/{table_id}/watch"

    # -- creating and seating ---------------------------------------------------------------
    async def create_table(
        self, game: str, options: Mapping[str, Any], seat: str, bot: str | None = None
    ) -> CreatedTable:
        """A new table with its creator in ``seat``; raises :class:`SettingsError`.

        With ``bot`` (a level of :data:`playtable.ai.LEVELS`) the computer takes the other
        seat at once, and plays first if that seat is red.
        """
        loaded = games.load(game, options)
        if seat not in SEAT_CHOICES:
            raise SettingsError(f"seat must be one of red, blue, random (not {seat!r})")
        if bot is not None and bot not in LEVELS:
            raise SettingsError(f"the computer's level must be one of {', '.join(LEVELS)}")
        player: Player = secrets.choice(PLAYERS) if seat == "random" else cast(Player, seat)
        token = tokens.new_token()
        seats: dict[str, str] = {player: tokens.hash_token(token)}
        bots: dict[str, str] = {}
        if bot is not None:
            # The hash of a token thrown away at once: nobody can ever sit in the bot's seat.
            seats[other(player)] = tokens.hash_token(tokens.new_token())
            bots[other(player)] = bot
        for _ in range(ATTEMPTS):
            table_id = tokens.new_table_id()
            invite = self.invite_token(table_id)
            created = await self.store.create_table(
                NewTable(
                    id=table_id,
                    game=loaded.name,
                    options=loaded.options(),
                    invite_hash=tokens.hash_token(invite),
                    seats=seats,
                    bots=bots,
                )
            )
            if created:
                if bots:
                    self.pool.start()  # the player's first move must not wait for a spawn
                    self._bot_check(await self._load(table_id))
                return CreatedTable(table_id, player, token, invite)
        raise RuntimeError("could not find a free table id")

    async def seat_of(self, table_id: str, token: str | None) -> Player | None:
        """The seat ``token`` holds at the table; ``None`` for no token, a wrong one or no table."""
        if not token:
            return None
        row = await self.store.table(table_id)
        if row is None:
            return None
        player: Player | None = None
        for candidate in PLAYERS:
            if tokens.matches(token, row.seats.get(candidate)):
                player = candidate
        return player

    async def claim_invite(self, table_id: str, invite_token: str) -> tuple[Player, str] | None:
        """Seat the bearer of the invitation in the free seat: ``(seat, seat token)``.

        ``None`` when the token is wrong, the table unknown, or no seat is free any more.
        """
        async with self._lock(table_id):
            for _ in range(ATTEMPTS):
                row = await self.store.table(table_id)
                if row is None or not tokens.matches(invite_token, row.invite_hash):
                    return None
                free = [p for p in PLAYERS if p not in row.seats]
                if not free:
                    return None
                player = free[0]
                token = tokens.new_token()
                change = Change(seat=(player, tokens.hash_token(token)))
                if await self.store.update(table_id, row.version, change):
                    table = await self._load(table_id)
                    await self._publish(table, [{"kind": "seated", "player": player}])
                    return player, token
        return None

    # -- reading ----------------------------------------------------------------------------
    async def snapshot(self, table_id: str, you: Player | None) -> dict[str, Any]:
        """The ``table`` object of docs/protocol.md as ``you`` see it; raises TableNotFound."""
        table = await self._load(table_id)
        self._bot_check(table)  # after a restart, a bot to move resumes when its table is seen
        return self.personalize(self.public(table, await self._online(table_id)), you)

    async def _online(self, table_id: str) -> set[str]:
        """Who is online at the table, on any server process."""
        try:
            return await self.bus.presence.online(table_id)
        except Exception:
            # Presence is a courtesy: without it a table still plays, so never fail on it.
            logger.warning("table %s: presence unavailable", table_id, exc_info=True)
            return set()

    def public(self, table: _Table, online: set[str]) -> dict[str, Any]:
        row = table.row
        outcome = table.outcome()
        view = table.game.view(table.state)
        if outcome is not None and table.game.outcome(table.state) is None:
            # Ended by resignation or agreement while the rules would still allow moves:
            # the board must not offer any.
            view = dict(view)
            for key, nothing in (("legal_moves", []), ("placements", {}), ("to_move", None)):
                if key in view:
                    view[key] = nothing
        return {
            "id": row.id,
            "game": row.game,
            "options": row.options,
            "version": row.version,
            "ply": table.ply,
            "moves": [m.move for m in table.moves],
            "movers": [m.player for m in table.moves],
            "to_move": None if outcome is not None else table.game.to_move(table.state),
            "outcome": outcome,
            "you": None,
            "seats": {p: self._seat_view(row, p, online) for p in PLAYERS},
            "offers": {
                "draw": row.offers.get("draw"),
                "undo": row.offers.get("undo"),
                "rematch": list(row.offers.get("rematch", [])),
            },
            "rematch_id": row.rematch_id,
            "invite_url": None,
            "watch_url": self.watch_url(row.id),
            "view": view,
        }

    @staticmethod
    def _seat_view(row: TableRow, player: Player, online: set[str]) -> dict[str, Any]:
        if player in row.bots:
            return {"taken": True, "online": True, "bot": row.bots[player]}
        return {"taken": player in row.seats, "online": player in online}

    def personalize(self, public: Mapping[str, Any], you: Player | None) -> dict[str, Any]:
        """Add the viewer's own fields; the invitation only for a player facing a free seat."""
        table = dict(public)
        table["you"] = you
        table["invite_url"] = None
        if you is not None and not public["seats"][other(you)]["taken"]:
            table["invite_url"] = self.invite_url(public["id"])
        return table

    async def api_view(self, table_id: str) -> dict[str, Any]:
        """The public summary of ``GET /api/tables/{id}``: no token, no view."""
        table = await self._load(table_id)
        outcome = table.outcome()
        running = outcome is None
        return {
            "id": table.row.id,
            "game": table.row.game,
            "options": table.row.options,
            "moves": [m.move for m in table.moves],
            "ply": table.ply,
            "version": table.row.version,
            "to_move": table.game.to_move(table.state) if running else None,
            "outcome": outcome,
            "legal_moves": table.game.legal_move_texts(table.state) if running else [],
        }

    async def record(self, table_id: str) -> GameRecord:
        """The game so far as a record (``to_text()``, ``to_json()``); raises TableNotFound."""
        table = await self._load(table_id)
        outcome = table.outcome()
        result = None if outcome is None else (outcome["winner"] or "draw")
        return GameRecord(
            table.row.game, table.row.options, tuple(m.move for m in table.moves), result
        )

    async def exists(self, table_id: str) -> bool:
        return await self.store.table(table_id) is not None

    def is_invite(self, table_id: str, invite_token: str) -> bool:
        """Whether ``invite_token`` is this table's invitation (constant-time compare)."""
        return hmac.compare_digest(invite_token.encode(), self.invite_token(table_id).encode())

    async def rematch_url(self, table_id: str, token: str | None) -> str | None:
        """The seat link at the rematch table for the holder of ``token``, once there is one."""
        table = await self._load(table_id)
        player = table.seat_of(token)
        if player is None or table.row.rematch_id is None or not isinstance(token, str):
            return None
        new_id = table.row.rematch_id
        return self.seat_url(new_id, self._rematch_token(token, new_id))

    # -- playing ----------------------------------------------------------------------------
    async def play_move(self, table_id: str, token: Actor, ply: int, move: str) -> int:
        """Play ``move`` from the position after ``ply`` moves; returns the new version."""

        def decide(table: _Table) -> _Decision:
            player = self._require_seat(table, token)
            self._require_running(table)
            if ply != table.ply:
                raise Stale(
                    f"That move was meant for move {ply + 1}, but the table is at move "
                    f"{table.ply + 1}; here is the current position.",
                    version=table.row.version,
                )
            to_move = table.game.to_move(table.state)
            if to_move != player:
                raise NotYourTurn(f"It is {to_move}'s turn, not yours.", version=table.row.version)
            try:
                parsed = table.game.parse_move(move)
                state = table.game.apply(table.state, parsed)
            except GameError as error:
                raise Illegal(str(error), version=table.row.version) from None
            text = table.game.format_move(parsed)
            event: dict[str, Any] = {"kind": "move", "player": player, "move": text, "ply": ply}
            before, after = table.game.score(table.state), table.game.score(state)
            if before is not None and after is not None:
                event["claimed"] = sum(after) - sum(before)
            # A game that skips turns says so in its view; _publish copies it into the event,
            # so the view of the new position is built only once.
            event["skipped"] = _FROM_VIEW
            events = [event]
            result = table.game.outcome(state)
            outcome = result.to_json() if result is not None else None
            if outcome is not None:
                events.append({"kind": "game_over", "outcome": outcome})
            offers = {**table.row.offers, "draw": None, "undo": None}
            played = MoveRow(ply, text, player)
            return _Decision(
                Change(append=played, offers=offers, outcome=outcome if outcome else KEEP),
                events,
                (*table.moves, played),
                state,
                {"offers": offers, "outcome": outcome},
            )

        return await self._change(table_id, decide)

    async def resign(self, table_id: str, token: Actor) -> int:
        def decide(table: _Table) -> _Decision:
            player = self._require_seat(table, token)
            self._require_running(table)
            outcome = self._ended(table, other(player), "resign")
            offers = {**table.row.offers, "draw": None, "undo": None}
            return self._same_position(
                table,
                Change(outcome=outcome, offers=offers),
                [{"kind": "resign", "player": player}, {"kind": "game_over", "outcome": outcome}],
                outcome=outcome,
                offers=offers,
            )

        return await self._change(table_id, decide)

    async def offer_draw(self, table_id: str, token: Actor) -> int:
        def decide(table: _Table) -> _Decision:
            player = self._require_seat(table, token)
            self._require_running(table)
            self._require_opponent(table, player)
            pending = table.row.offers.get("draw")
            if pending == player:
                raise Illegal("You have already offered a draw.", version=table.row.version)
            if pending == other(player):
                return self._agree_draw(table, player)
            offers = {**table.row.offers, "draw": player}
            return self._same_position(
                table,
                Change(offers=offers),
                [{"kind": "draw_offered", "player": player}],
                offers=offers,
            )

        return await self._change(table_id, decide)

    async def answer_draw(self, table_id: str, token: Actor, accept: bool) -> int:
        def decide(table: _Table) -> _Decision:
            player = self._require_seat(table, token)
            self._require_running(table)
            if table.row.offers.get("draw") != other(player):
                raise NoOffer("There is no draw offer to answer.", version=table.row.version)
            if accept:
                return self._agree_draw(table, player)
            offers = {**table.row.offers, "draw": None}
            return self._same_position(
                table,
                Change(offers=offers),
                [{"kind": "draw_declined", "player": player}],
                offers=offers,
            )

        return await self._change(table_id, decide)

    async def request_undo(self, table_id: str, token: Actor) -> int:
        def decide(table: _Table) -> _Decision:
            player = self._require_seat(table, token)
            self._require_running(table)
            self._require_opponent(table, player)
            if not table.moves or table.moves[-1].player != player:
                raise Illegal(
                    "You can take back only your own last move, right after playing it.",
                    version=table.row.version,
                )
            if table.row.offers.get("undo") == player:
                raise Illegal("You have already asked to take it back.", version=table.row.version)
            offers = {**table.row.offers, "undo": player}
            return self._same_position(
                table,
                Change(offers=offers),
                [{"kind": "undo_requested", "player": player}],
                offers=offers,
            )

        return await self._change(table_id, decide)

    async def answer_undo(self, table_id: str, token: Actor, accept: bool) -> int:
        def decide(table: _Table) -> _Decision:
            player = self._require_seat(table, token)
            self._require_running(table)
            requester = other(player)
            if table.row.offers.get("undo") != requester:
                raise NoOffer("There is no take-back request to answer.", version=table.row.version)
            if not accept:
                offers = {**table.row.offers, "undo": None}
                return self._same_position(
                    table,
                    Change(offers=offers),
                    [{"kind": "undo_declined", "player": player}],
                    offers=offers,
                )
            last = table.moves[-1]
            remaining = table.moves[:-1]
            offers = {**table.row.offers, "undo": None, "draw": None}
            return _Decision(
                Change(drop_ply=last.ply, offers=offers),
                [{"kind": "undo", "player": requester, "move": last.move}],
                remaining,
                table.game.replay([m.move for m in remaining]),
                {"offers": offers},
            )

        return await self._change(table_id, decide)

    async def rematch(self, table_id: str, token: Actor) -> int:
        """Propose a rematch with colours swapped, or accept the opponent's proposal.

        The new table's seat tokens are derived from each player's current seat token, so
        each player's own socket can compute its link and no secret ever travels on the bus.
        """

        def decide(table: _Table) -> _Decision | None:
            player = self._require_seat(table, token)
            assert token is not None
            version = table.row.version
            if table.outcome() is None:
                raise Illegal("A rematch can be proposed once the game is over.", version=version)
            self._require_opponent(table, player)
            if table.row.rematch_id is not None:
                return None  # already agreed: the socket sends the link again
            asked: list[Player] = list(table.row.offers.get("rematch", []))
            if player in asked:
                raise Illegal(
                    "You have proposed a rematch; your opponent has not answered yet.",
                    version=version,
                )
            new_id = table.row.offers.get("rematch_table") or tokens.new_table_id()
            new_seats = dict(table.row.offers.get("rematch_seats", {}))
            new_bots = dict(table.row.offers.get("rematch_bots", {}))
            # Colours swap: whoever was red sits as blue at the new table.
            if isinstance(token, Bot):
                new_seats[other(player)] = tokens.hash_token(tokens.new_token())
                new_bots[other(player)] = table.row.bots[player]
            else:
                new_seats[other(player)] = tokens.hash_token(self._rematch_token(token, new_id))
            asked.append(player)
            if other(player) not in asked:
                offers = {
                    **table.row.offers,
                    "rematch": asked,
                    "rematch_table": new_id,
                    "rematch_seats": new_seats,
                    "rematch_bots": new_bots,
                }
                return self._same_position(
                    table,
                    Change(offers=offers),
                    [{"kind": "rematch_offered", "player": player}],
                    offers=offers,
                )
            offers = {**table.row.offers, "rematch": asked}
            new_table = NewTable(
                id=new_id,
                game=table.row.game,
                options=table.row.options,
                invite_hash=tokens.hash_token(self.invite_token(new_id)),
                seats=new_seats,
                bots=new_bots,
            )
            return self._same_position(
                table,
                Change(offers=offers, rematch_id=new_id, new_table=new_table),
                [{"kind": "rematch_accepted", "player": player, "table": new_id}],
                offers=offers,
                rematch_id=new_id,
            )

        return await self._change(table_id, decide)

    # -- the computer -----------------------------------------------------------------------
    async def resume_bots(self) -> int:
        """Restart the bots of running tables (at startup); returns how many tables."""
        ids = await self.store.tables_with_bots()
        if ids:
            self.pool.start()
        for table_id in ids:
            with contextlib.suppress(TableNotFound):
                self._bot_check(await self._load(table_id))
        return len(ids)

    def bot_pending(self, table_id: str) -> bool:
        """Whether bot work for the table is scheduled or under way in this process."""
        entry = self._bot_tasks.get(table_id)
        return entry is not None and not entry[1].done()

    def _bot_job(self, table: _Table) -> tuple[Any, ...] | None:
        """What the computer at ``table`` has to do now, as a key naming the position."""
        row = table.row
        if not row.bots:
            return None
        if table.outcome() is not None:
            asked = row.offers.get("rematch", [])
            wanted = [p for p in PLAYERS if p in row.bots and p not in asked]
            if asked and wanted and row.rematch_id is None:
                return ("rematch", wanted[0])
            return None
        played = tuple(m.move for m in table.moves)
        for offer in ("undo", "draw"):
            by = row.offers.get(offer)
            if by is not None and other(by) in row.bots:
                return (offer, other(by), played)
        to_move = table.game.to_move(table.state)
        if to_move in row.bots:
            return ("move", to_move, played)
        return None

    def _bot_check(self, table: _Table) -> None:
        """Schedule what the computer must do at ``table``, cancelling work made stale.

        Called after every committed change: a new position (a move, a take-back), a new
        offer or the end of the game replaces the bot's pending work, the same position
        keeps it, so scheduling twice is harmless.
        """
        table_id = table.row.id
        job = self._bot_job(table)
        current = self._bot_tasks.get(table_id)
        if current is not None:
            key, task = current
            if key == job and not task.done():
                return
            if task is not asyncio.current_task():
                task.cancel()
            del self._bot_tasks[table_id]
        if job is None:
            return
        # The bot's turn begins now: its deadline and the cap count from here, so time spent
        # waiting for a worker is taken off its thinking rather than added to the answer.
        task = asyncio.create_task(self._run_bot(table_id, job, time.time()))
        self._bot_tasks[table_id] = (job, task)
        task.add_done_callback(lambda done: self._bot_done(table_id, done))

    def _bot_done(self, table_id: str, task: asyncio.Task[None]) -> None:
        current = self._bot_tasks.get(table_id)
        if current is not None and current[1] is task:
            del self._bot_tasks[table_id]
        if not task.cancelled() and task.exception() is not None:
            logger.error("bot at table %s failed", table_id, exc_info=task.exception())

    async def _run_bot(self, table_id: str, job: tuple[Any, ...], begun: float) -> None:
        kind, player = job[0], cast(Player, job[1])
        bot = Bot(player)
        try:
            if kind == "rematch":
                await self.rematch(table_id, bot)
                table = await self._load(table_id)
                if table.row.rematch_id is not None:
                    self._bot_check(await self._load(table.row.rematch_id))
                return
            table = await self._load(table_id)
            if self._bot_job(table) != job:
                return  # the position changed while the task waited to start
            played = job[2]
            if kind == "undo":
                # Take-backs are always allowed: the computer does not mind a second try.
                await self.answer_undo(table_id, bot, True)
            elif kind == "draw":
                accept = await self._bot_accepts_draw(table, player, begun)
                await self.answer_draw(table_id, bot, accept)
            else:
                move = await self._bot_move(table, player, begun)
                await self.play_move(table_id, bot, len(played), move)
        except (Stale, NotYourTurn, GameOver, NoOffer, TableNotFound):
            pass  # another process (or the player) got there first: nothing left to do

    async def _bot_move(self, table: _Table, player: Player, begun: float) -> str:
        """The computer's move at ``table``, whose turn began at ``begun`` (``time.time()``).

        The pool thinks until ``begun`` + the move budget; if its answer is not back by
        ``begun`` + the cap (a queue of other tables' jobs, a slow spawn, a busy machine), the
        quick move is played from here, in milliseconds, and the pool's answer is dropped.
        """
        settings = self.bot_settings
        row = table.row
        wait = begun + settings.move_cap_s - time.time()
        if wait > 0:
            job = self.pool.run(
                bot_move,
                row.game,
                row.options,
                [m.move for m in table.moves],
                row.bots[player],
                None,
                settings.move_budget_s,
                begun + settings.move_budget_s,
            )
            try:
                reply: BotMove = await asyncio.wait_for(job, wait)
            except TimeoutError:
                logger.warning(
                    "table %s: no bot move from the pool after %.2f s, playing the quick move",
                    row.id,
                    time.time() - begun,
                )
            except Exception:
                # A worker that died (the pool starts new ones for the next job) must not
                # leave the player waiting for a move that will never come.
                logger.exception("table %s: the bot's job failed, playing the quick move", row.id)
            else:
                self.bot_replies["quick" if reply.quick else "thought"] += 1
                return reply.move
        self.bot_replies["fallback"] += 1
        move = quick_game_move(table.game, table.state, random.Random())
        return str(table.game.format_move(move))

    async def _bot_accepts_draw(self, table: _Table, player: Player, begun: float) -> bool:
        """Accept only a draw the solver shows is no worse than playing on.

        Like a move, the answer comes by the cap: a solver that has not answered by then
        counts as "not shown", and the offer is declined.
        """
        if table.row.game != "dots":
            return False
        settings = self.bot_settings
        played = [m.move for m in table.moves]
        budget = min(settings.position_budget_s, begun + settings.move_budget_s - time.time())
        wait = begun + settings.move_cap_s - time.time()
        if budget <= 0 or wait <= 0:
            return False
        try:
            value = await asyncio.wait_for(
                self.pool.run(solver_work.mover_value, table.row.options, played, budget), wait
            )
        except TimeoutError:
            return False
        if value is None:
            return False
        mine = value if table.game.to_move(table.state) == player else -value
        return mine <= 0

    # -- analysis (Dots and Boxes) ----------------------------------------------------------
    async def check_analysis(self, table_id: str) -> _Table:
        """The table if its analysis is open; raises AnalysisRefused or TableNotFound."""
        table = await self._load(table_id)
        if table.row.game != "dots":
            raise AnalysisRefused("The analysis is for Dots and Boxes only.")
        if table.outcome() is None and not table.row.bots:
            raise AnalysisRefused(
                "The analysis opens when the game is over; during a game only at a table "
                "against the computer."
            )
        return table

    async def analysis(self, table_id: str) -> dict[str, Any]:
        """The solver's value after each move and the mistakes; see docs/protocol.md."""
        # One analysis per table at a time in this process: a second request waits, then
        # finds the first one's values in the store.
        async with self._analysis_lock(table_id):
            return await self._analyse(table_id)

    def _analysis_lock(self, table_id: str) -> asyncio.Lock:
        lock = self._analysis_locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            self._analysis_locks[table_id] = lock
        return lock

    async def _analyse(self, table_id: str) -> dict[str, Any]:
        table = await self.check_analysis(table_id)
        played = [m.move for m in table.moves]
        # The values any process proved before, for exactly these moves (a value left from
        # before a take-back belongs to other moves and is not returned).
        known: dict[int, int | None] = dict(await self.store.analysis_values(table_id, played))
        digests = position_digests(played)
        missing = [
            ply
            for ply in range(len(played) + 1)
            if ply not in known and (table_id, digests[ply]) not in self._unproved
        ]
        if missing:
            found = await self.analysis_pool.run(
                solver_work.analyse_positions,
                table.row.options,
                played,
                missing,
                self.bot_settings.position_budget_s,
                self.bot_settings.analysis_total_s,
            )
            known.update(found)
            # Only proofs are stored: another process, or this one after a restart (maybe
            # with a larger budget), tries the others again.
            proved = {ply: value for ply, value in found.items() if value is not None}
            for ply, value in found.items():
                if value is None:
                    self._unproved[(table_id, digests[ply])] = None
                    self._unproved.move_to_end((table_id, digests[ply]))
            while len(self._unproved) > UNPROVED_SIZE:
                self._unproved.popitem(last=False)
            try:
                await self.store.save_analysis_values(table_id, played, proved)
            except Exception:
                # The values are in hand: this request still gets them, a later one solves
                # them again.
                logger.warning("table %s: analysis values not saved", table_id, exc_info=True)
        values = [known.get(ply) for ply in range(len(played) + 1)]
        misere = bool(table.row.options.get("misere"))
        moves = []
        for ply, row in enumerate(table.moves):
            before, after = values[ply], values[ply + 1]
            loss = None
            if before is not None and after is not None:
                # The red margin moves against red by what red threw away, and for blue the
                # other way round; in misère every box counts against its owner.
                lost = before - after if row.player == "red" else after - before
                loss = -lost if misere else lost
            moves.append({"ply": ply, "move": row.move, "player": row.player, "loss": loss})
        return {
            "id": table_id,
            "options": table.row.options,
            "finished": table.outcome() is not None,
            "values": values,
            "moves": moves,
        }

    async def best_moves(self, table_id: str, ply: int) -> dict[str, Any]:
        """Every optimal move after ``ply`` moves, if the solver proves it within budget."""
        table = await self.check_analysis(table_id)
        if not 0 <= ply <= table.ply:
            raise AnalysisRefused(f"There is no position after {ply} moves at this table.")
        found = await self.analysis_pool.run(
            solver_work.best_moves,
            table.row.options,
            [m.move for m in table.moves[:ply]],
            self.bot_settings.position_budget_s * 2,
        )
        if found is None:
            return {"ply": ply, "proved": False, "value": None, "best_moves": []}
        return {"ply": ply, "proved": True, **found}

    # -- presence ---------------------------------------------------------------------------
    def connected(self, table_id: str, player: Player) -> None:
        """A socket of ``player`` opened; tell the table if the player just came online here."""
        if self.presence.add(table_id, player):
            self._in_background(self._announce_presence(table_id, player))

    def disconnected(self, table_id: str, player: Player) -> None:
        """A socket of ``player`` closed; tell the table if it was the last one here."""
        if self.presence.remove(table_id, player):
            self._in_background(self._announce_presence(table_id, player))

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        # A closing socket's task may already be cancelled, and the news that a player left
        # must not be lost with it: the service runs it and waits for it when it closes.
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Finish the announcements still under way; call before closing the store."""
        bot_tasks = [task for _, task in self._bot_tasks.values()]
        for task in bot_tasks:
            task.cancel()
        self._bot_tasks.clear()
        if bot_tasks:
            await asyncio.wait(bot_tasks, timeout=5)
        self.pool.shutdown()
        self.analysis_pool.shutdown()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        for task in set(self._tasks):
            task.cancel()

    async def _announce_presence(self, table_id: str, player: Player) -> None:
        async with self._lock(table_id):
            # The count as it is now, not as it was when the task was made: of a quick close
            # and reopen, whichever task runs last reports the truth.
            try:
                await self.bus.presence.report(
                    table_id, player, self.presence.count(table_id, player)
                )
                table = await self._load(table_id)
            except TableNotFound:
                return
            except Exception:
                logger.warning("table %s: presence not reported", table_id, exc_info=True)
                return
            online = await self._online(table_id)
            # Another process may still hold a socket of the player: the event tells the
            # sum over all processes, which is what the players see.
            event = {"kind": "presence", "player": player, "online": player in online}
            await self._publish(table, [event], online)

    def observed(self, table_id: str, version: int) -> None:
        """The bus told of ``version`` of the table: a cached older position is now stale.

        Dropping it costs nothing, and spares the next request here a commit doomed to fail
        its compare-and-set (with several processes, players of one table alternate between
        them, so without this nearly every move would first try on a stale cache).
        """
        cached = self._cache.get(table_id)
        if cached is not None and cached.row.version < version:
            del self._cache[table_id]

    # -- the machinery ----------------------------------------------------------------------
    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[table_id] = lock
        return lock

    async def _load(self, table_id: str) -> _Table:
        row = await self.store.table(table_id)
        if row is None:
            raise TableNotFound(f"There is no table {table_id!r}.")
        cached = self._cache.get(table_id)
        if cached is not None and cached.row.version == row.version:
            self._cache.move_to_end(table_id)
            table = dataclasses.replace(cached, row=row)
        else:
            moves = tuple(await self.store.moves(table_id))
            game = cached.game if cached is not None else games.load(row.game, row.options)
            table = _Table(row, moves, game, game.replay([m.move for m in moves]))
        self._remember(table)
        return table

    def _remember(self, table: _Table) -> None:
        self._cache[table.row.id] = table
        self._cache.move_to_end(table.row.id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    async def _change(self, table_id: str, decide: Decide) -> int:
        """Decide, commit under compare-and-set, publish; re-read after a lost race.

        The first attempt decides on the cached table when there is one, saving a read: if
        another process changed the table meanwhile, the compare-and-set refuses the commit
        and the service re-reads. A refusal is never based on the cache alone: the table is
        read afresh and the request decided again before the player is told no.
        """
        async with self._lock(table_id):
            cached = self._cache.get(table_id)
            table = cached if cached is not None else await self._load(table_id)
            fresh = cached is None
            for _ in range(ATTEMPTS):
                try:
                    decision = decide(table)
                except TableError:
                    if fresh:
                        raise
                    decision = None
                if decision is None and not fresh:
                    table, fresh = await self._load(table_id), True
                    continue
                if decision is None:
                    return table.row.version
                if await self.store.update(table_id, table.row.version, decision.change):
                    row = dataclasses.replace(
                        table.row, version=table.row.version + 1, **decision.row_updates
                    )
                    updated = _Table(row, decision.moves, table.game, decision.state)
                    self._remember(updated)
                    await self._publish(updated, decision.events)
                    self._bot_check(updated)
                    return row.version
                table, fresh = await self._load(table_id), True
            raise Busy("The table changed several times at once; please try again.")

    async def _publish(
        self, table: _Table, events: list[dict[str, Any]], online: set[str] | None = None
    ) -> None:
        if online is None:
            online = await self._online(table.row.id)
        public = self.public(table, online)
        for event in events:
            if event.get("skipped") is _FROM_VIEW:
                if "skipped" in public["view"]:
                    event["skipped"] = public["view"]["skipped"]
                else:
                    del event["skipped"]
        await self.bus.publish(
            table.row.id,
            {"type": "table", "version": table.row.version, "events": events, "table": public},
        )

    def _rematch_token(self, token: str, new_id: str) -> str:
        return tokens.derive(token, f"rematch:{new_id}")

    @staticmethod
    def _require_seat(table: _Table, token: Actor) -> Player:
        player = table.seat_of(token)
        if player is None:
            reason = (
                "Your seat token is not valid at this table."
                if token
                else "You are watching this table; only its players can do that."
            )
            raise NotSeated(reason, version=table.row.version)
        return player

    @staticmethod
    def _require_running(table: _Table) -> None:
        if table.outcome() is not None:
            raise GameOver("The game is over.", version=table.row.version)

    @staticmethod
    def _require_opponent(table: _Table, player: Player) -> None:
        if other(player) not in table.row.seats:
            raise Illegal("Nobody is seated opposite you yet.", version=table.row.version)

    @staticmethod
    def _ended(table: _Table, winner: Player | None, reason: str) -> dict[str, Any]:
        outcome: dict[str, Any] = {"winner": winner, "reason": reason}
        score = table.game.score(table.state)
        if score is not None:
            outcome["score"] = {"red": score[0], "blue": score[1]}
        return outcome

    def _agree_draw(self, table: _Table, player: Player) -> _Decision:
        outcome = self._ended(table, None, "draw_agreed")
        offers = {**table.row.offers, "draw": None, "undo": None}
        return self._same_position(
            table,
            Change(outcome=outcome, offers=offers),
            [{"kind": "draw_agreed", "player": player}, {"kind": "game_over", "outcome": outcome}],
            outcome=outcome,
            offers=offers,
        )

    @staticmethod
    def _same_position(
        table: _Table, change: Change, events: list[dict[str, Any]], **row_updates: Any
    ) -> _Decision:
        return _Decision(change, events, table.moves, table.state, row_updates)


__all__ = [
    "Bot",
    "CreatedTable",
    "GameRecord",
    "TableError",
    "TableNotFound",
    "TableService",
]
