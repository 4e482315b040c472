"""The table service: the wiring between the table rules, the store and the bus.

Every request follows the one road of docs/architecture.md: load the table (a replayed
position cached by version, never trusted past it), let :mod:`playtable.tables.decisions`
judge the request, commit the decision to the store (compare-and-set on the table's version,
unique ply), and only then publish its events on the bus to every socket of the table. A lost
race re-reads and decides again, so several server processes can serve the same table.

What the service does not do lives beside it, one concern a file: the rules
(``decisions.py``), what a table looks like from outside (``views.py``), the computer's turns
(``computer.py``), the analysis (``analysis.py``), who is connected (``presence.py``),
publishing on the bus (``announcer.py``), the worker processes (``pool.py``), the time the
site was down (``downtime.py``, ``sweep.py``). It knows no HTTP, no SQL and no URL format.

Bus messages (``announcer.py``) carry the public ``table`` object of docs/protocol.md with
the viewer's own fields empty; :meth:`TableService.personal` gives them per socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from playtable import games
from playtable.bus import Bus, Subscription
from playtable.games import Player
from playtable.games.records import GameRecord
from playtable.store import Store
from playtable.tables import clocks, decisions, downtime, seating, takeback, tokens, views
from playtable.tables import rematch as rematches
from playtable.tables.analysis import Analysis
from playtable.tables.announcer import Announcer
from playtable.tables.best_moves import BestMoves
from playtable.tables.computer import Computer
from playtable.tables.decisions import Decision
from playtable.tables.errors import NOT_A_QUICK_MESSAGE, Busy, Illegal, TableError, TableNotFound
from playtable.tables.events import QUICK_MESSAGES, Event, QuickMessage
from playtable.tables.invitations import Invitations
from playtable.tables.pool import BotPool, BotSettings
from playtable.tables.presence import TablePresence
from playtable.tables.rematch import RematchSeats
from playtable.tables.table import Actor, Bot, LoadedTable
from playtable.tables.views import Census, Links

SEAT_CHOICES = seating.SEAT_CHOICES
# How often one request re-reads the table after losing a race to another writer.
ATTEMPTS = 5
CACHE_SIZE = 2048

logger = logging.getLogger(__name__)

Decide = Callable[[LoadedTable], Decision | None]


@dataclass(frozen=True)
class CreatedTable:
    id: str
    seat: Player
    seat_token: str
    invite_token: str


class TableService:
    """Everything a table page, a script or a bot can do at a table."""

    def __init__(
        self,
        store: Store,
        bus: Bus,
        secret: bytes,
        bots: BotSettings | None = None,
        *,
        links: Links,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        if len(secret) < 16:
            raise ValueError("the server secret needs at least 128 bits")
        self.store = store
        self.bus = bus
        self.links = links
        self.invitations = Invitations(secret)
        self.announcer = Announcer(bus, links, clock)
        self.presence = TablePresence(bus.presence, self.announcer, self.load, self._lock)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._cache: OrderedDict[str, LoadedTable] = OrderedDict()
        self.bot_settings = bots if bots is not None else BotSettings()
        self.computer = Computer(self.bot_settings, self)
        self.analyses = Analysis(store, self.bot_settings, self.load)
        self.clock = clock  # the time of moves and clocks (tests inject their own)
        self.on_deadline: Callable[[datetime], None] = lambda deadline: None  # the sweep's
        # Web Push's: every committed change, with its events (a move, a game's end)
        self.on_change: Callable[[LoadedTable, tuple[Event, ...]], None] = lambda t, e: None
        self.confirm_outages: Callable[[], Awaitable[bool]] = downtime.none_learnt  # the sweep's

    @property
    def pool(self) -> BotPool:  # the computer's (``analyses.pool`` is the analysis')
        return self.computer.pool

    # -- secrets and links -------------------------------------------------------------------
    def invite_url(self, table_id: str) -> str:
        return self.links.invite(table_id, self.invitations.table(table_id))

    async def rematch_url(self, table_id: str, token: str | None) -> str | None:
        """The seat link at the rematch table for the holder of ``token``, once there is one."""
        table = await self.load(table_id)
        new_id = table.row.rematch_id
        if table.seat_of(token) is None or new_id is None or not isinstance(token, str):
            return None
        return self.links.seat(new_id, tokens.rematch_token(token, new_id))

    # -- creating and seating ---------------------------------------------------------------
    async def create_table(
        self,
        game: str,
        options: Mapping[str, Any],
        seat: str,
        bot: str | None = None,
        time_control: clocks.TimeControl = clocks.UNLIMITED,
    ) -> CreatedTable:
        """A new table with its creator in ``seat`` (see :func:`seating.plan`); raises
        :class:`SettingsError`. Against the computer, it plays first if its seat is red."""
        plan = seating.plan(game, options, seat, bot, time_control, self.clock())
        table_id = await self._insert(plan)
        if plan.deadline is not None:
            self.on_deadline(plan.deadline)
        if plan.bots:
            self.pool.start()  # the player's first move must not wait for a spawn
            self.computer.check(await self.load(table_id))
        assert plan.player is not None and plan.token is not None
        return CreatedTable(table_id, plan.player, plan.token, self.invitations.table(table_id))

    async def set_up_for_others(
        self, game: str, options: Mapping[str, Any], control: clocks.TimeControl
    ) -> str:
        """A table with both seats free, each for its own invitation; its id."""
        return await self._insert(seating.for_others(game, options, control, self.clock()))

    async def _insert(self, plan: seating.TablePlan) -> str:
        for _ in range(ATTEMPTS):
            table_id = tokens.new_table_id()
            invite = tokens.hash_token(self.invitations.table(table_id))
            if await self.store.create_table(plan.table(table_id, invite)):
                return table_id
        raise RuntimeError("could not find a free table id")

    async def seat_at(self, table_id: str, token: str | None) -> tuple[bool, Player | None]:
        """Whether the table exists, and the seat ``token`` holds there (one read)."""
        row = await self.store.table(table_id)
        if row is None:
            return False, None
        return True, tokens.seat_holding(row.seats, token) if token else None

    async def seat_of(self, table_id: str, token: str | None) -> Player | None:
        """The seat ``token`` holds at the table; ``None`` for no token, a wrong one or no table."""
        return (await self.seat_at(table_id, token))[1] if token else None

    async def claim_invite(self, table_id: str, invite_token: str) -> tuple[Player, str] | None:
        """Seat the bearer of the invitation in the free seat (or the seat it is for):
        ``(seat, seat token)``; ``None`` for a wrong token or table, or no such seat free."""
        invitation = self.invitations.opened_by(table_id, invite_token)
        if invitation is None:
            return None
        async with self._lock(table_id):
            for _ in range(ATTEMPTS):
                try:
                    table = await self.load(table_id)
                except TableNotFound:
                    return None
                player = invitation.free_seat(table.row.seats)
                stored = table.row.invite_hash  # the table's own invitation is also stored
                if player is None or not (invitation.seat or tokens.matches(invite_token, stored)):
                    return None
                token = tokens.new_token()
                seated = decisions.take_seat(table, player, tokens.hash_token(token), self.clock())
                if await self._commit(seated):
                    return player, token
        return None

    async def exists(self, table_id: str) -> bool:
        return await self.store.table(table_id) is not None

    # -- reading ----------------------------------------------------------------------------
    async def snapshot(self, table_id: str, you: Player | None) -> dict[str, Any]:
        """The ``table`` object of docs/protocol.md as ``you`` see it; raises TableNotFound."""
        shared, live, _ = await self.snapshot_parts(table_id)
        return self.personalize({**shared, **live}, you)

    async def snapshot_parts(
        self, table_id: str, token: str | None = None
    ) -> tuple[dict[str, Any], dict[str, Any], Player | None]:
        """The public ``table`` object in two parts, what only a new version changes (one
        object for every request at that version, its encoding reused: never change it) and
        the :data:`~playtable.tables.views.LIVE_FIELDS`; and the seat ``token`` holds then."""
        table = await self.load(table_id)
        self.computer.check(table)  # after a restart, a bot to move resumes when it is seen
        census = await self.announcer.census(table_id)
        seat = tokens.seat_holding(table.row.seats, token) if token else None
        return self.announcer.versioned(table), views.live(table, census, self.clock()), seat

    def public(self, table: LoadedTable, census: Census) -> dict[str, Any]:
        return self.announcer.public(table, census)

    def personalize(self, public: Mapping[str, Any], you: Player | None) -> dict[str, Any]:
        """``public`` with the viewer's own fields filled in."""
        return {**public, **self.personal(public, you)}

    def personal(self, public: Mapping[str, Any], you: Player | None) -> dict[str, Any]:
        """Only the viewer's own fields (:data:`~playtable.tables.views.VIEWER_FIELDS`)."""
        return views.personal(public, you, lambda: self.invite_url(public["id"]))

    async def api_view(self, table_id: str) -> dict[str, Any]:
        """The public summary of ``GET /api/tables/{id}``: no token, no view."""
        return views.api_view(await self.load(table_id))

    async def record(self, table_id: str) -> GameRecord:
        """The game so far as a record (``to_text()``, ``to_json()``); raises TableNotFound."""
        return views.record(await self.load(table_id))

    async def subscribe(self, table_id: str, *, seated: bool = False) -> Subscription:
        """The bus messages about the table from now on (a socket relays them); a seated
        player's socket hears each before the spectators'."""
        return await self.bus.subscribe(table_id, seated=seated)

    # -- playing: each action a decision of decisions.py, committed by _change ---------------
    async def play_move(
        self, table_id: str, token: Actor, ply: int, move: str, think_s: float | None = None
    ) -> int:
        """Play ``move`` from the position after ``ply`` moves; returns the new version
        (``think_s``: the thinking time the page measured, for the lag compensation)."""
        now = self.clock()
        return await self._change(
            table_id, lambda t: decisions.play(t, token, ply, move, now, think_s)
        )

    async def abort(self, table_id: str, token: Actor) -> int:
        return await self._change(table_id, lambda t: decisions.abort(t, token, self.clock()))

    async def end_if_due(self, table_id: str) -> int:
        """End the table on time if its deadline has passed (any process may; one does)."""
        return await self._change(table_id, lambda t: decisions.flag(t, self.clock()))

    async def new_seat_token(self, table_id: str, token: Actor, new: str | None = None) -> str:
        """A new key (``new``, or a random one) for the seat ``token`` holds (the old one
        opens it no more)."""
        new = new or tokens.new_token()
        hashed = tokens.hash_token(new)
        await self._change(table_id, lambda t: decisions.new_seat_key(t, token, hashed))
        return new

    async def resign(self, table_id: str, token: Actor) -> int:
        return await self._change(table_id, lambda t: decisions.resign(t, token, self.clock()))

    async def offer_draw(self, table_id: str, token: Actor) -> int:
        return await self._change(table_id, lambda t: decisions.offer_draw(t, token, self.clock()))

    async def answer_draw(self, table_id: str, token: Actor, accept: bool) -> int:
        return await self._change(
            table_id, lambda t: decisions.answer_draw(t, token, accept, self.clock())
        )

    async def request_undo(self, table_id: str, token: Actor) -> int:
        return await self._change(table_id, lambda t: takeback.request_undo(t, token, self.clock()))

    async def answer_undo(self, table_id: str, token: Actor, accept: bool) -> int:
        return await self._change(
            table_id, lambda t: takeback.answer_undo(t, token, accept, self.clock())
        )

    async def rematch(self, table_id: str, token: Actor) -> int:
        """Propose a rematch with colours swapped, or accept the opponent's proposal.

        The new table's seat tokens are derived from each player's current seat token, so
        each player's own socket can compute its link and no secret ever travels on the bus.
        """
        seats = RematchSeats(
            fresh_id=tokens.new_table_id(),
            seat_hash=lambda old, new_id: tokens.hash_token(tokens.rematch_token(old, new_id)),
            invite_hash=lambda new_id: tokens.hash_token(self.invitations.table(new_id)),
            now=self.clock(),
        )
        return await self._change(table_id, lambda t: rematches.rematch(t, token, seats))

    async def set_nickname(self, table_id: str, token: Actor, name: str) -> int:
        """The name the table sees for the holder of ``token`` (cleaned; empty: none)."""
        return await self._change(table_id, lambda t: decisions.set_nickname(t, token, name))

    async def decline_rematch(self, table_id: str, token: Actor) -> int:
        return await self._change(table_id, lambda t: rematches.decline_rematch(t, token))

    # -- the computer and the analysis ------------------------------------------------------
    async def resume_bots(self) -> int:
        """Restart the bots of running tables (at startup); returns how many tables."""
        ids = await self.store.tables_with_bots()
        await self.computer.resume(ids)
        return len(ids)

    def bot_pending(self, table_id: str) -> bool:
        """Whether bot work for the table is scheduled or under way in this process."""
        return self.computer.pending(table_id)

    async def check_analysis(self, table_id: str) -> LoadedTable:
        """The table if its analysis is open; raises AnalysisRefused or TableNotFound."""
        return await self.analyses.open_table(table_id)

    async def analysis(self, table_id: str, requester: str = "") -> dict[str, Any]:
        """The values stored so far after each move and the mistakes (docs/protocol.md); the
        rest is queued for the background analysis (AnalysisBusy when its queue is full)."""
        return await self.analyses.analyse(table_id, requester)

    async def best_moves(
        self, table_id: str, ply: int, requester: str = "", wait_s: int | None = None
    ) -> BestMoves:
        """Every optimal move after ``ply`` moves, if the solver proves it within budget."""
        return await self.analyses.best_moves(table_id, ply, requester, wait_s)

    # -- presence and the table's talk -------------------------------------------------------
    def connected(self, table_id: str, player: Player | None) -> None:
        """A socket of ``player`` (``None``: a spectator) opened."""
        self.presence.connected(table_id, player)

    def disconnected(self, table_id: str, player: Player | None) -> None:
        """A socket of ``player`` (``None``: a spectator) closed."""
        self.presence.disconnected(table_id, player)

    async def say(self, table_id: str, token: Actor, message: str) -> None:
        """A player's quick message to the table (one of :data:`QUICK_MESSAGES`); nothing is
        stored, and the table's version does not change."""
        table = await self.load(table_id)
        player = decisions.require_seat(table, token)
        if message not in QUICK_MESSAGES:
            raise Illegal(NOT_A_QUICK_MESSAGE, version=table.version)
        await self.announcer.publish(table, [QuickMessage(player, message)])

    async def close(self) -> None:
        """Finish the announcements still under way; call before closing the store."""
        await self.computer.close()
        self.analyses.close()
        await self.announcer.close()

    # -- the machinery ----------------------------------------------------------------------
    def observed(self, message: Mapping[str, Any]) -> None:
        """A bus message told of a version of a table, made by its events: bring the cached
        position up to it, or drop it if it is older; keep its public version for the next
        patch and the joins (:meth:`Announcer.observed`). With several processes nearly every
        move is news from another one: a single move after the cached version is played on
        the cached position (the next request then reads only the row); anything else drops
        the cache, sparing the next request a commit doomed to fail its compare-and-set."""
        self.announcer.observed(message)
        table_id, version = message.get("table_id"), message.get("version")
        cached = self._cache.get(table_id) if isinstance(table_id, str) else None
        if cached is None or not isinstance(version, int) or cached.version >= version:
            return
        advanced = decisions.heard(cached, version, message.get("events") or ())
        if advanced is None:
            del self._cache[cached.id]
        else:
            self._cache[cached.id] = advanced

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[table_id] = lock
        return lock

    async def load(self, table_id: str) -> LoadedTable:
        """The table as stored now, its position replayed (or the cached one, same version);
        raises TableNotFound. Outages learnt first if a beat goes in (else reads go on)."""
        with contextlib.suppress(Exception):
            await self.confirm_outages()
        row = await self.store.table(table_id)
        if row is None:
            raise TableNotFound(f"There is no table {table_id!r}.")
        cached = self._cache.get(table_id)
        if cached is not None and cached.version == row.version:
            table = dataclasses.replace(cached, row=row)
        else:
            moves = tuple(await self.store.moves(table_id))
            game = cached.game if cached is not None else games.load(row.game, row.options)
            table = LoadedTable(row, moves, game, game.replay([m.move for m in moves]))
        self._remember(table)
        return table

    def _remember(self, table: LoadedTable) -> None:
        self._cache[table.id] = table
        self._cache.move_to_end(table.id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    async def _change(self, table_id: str, decide: Decide) -> int:
        """Decide, commit under compare-and-set, publish; re-read after a lost race. The first
        attempt decides on the cached table if any (a read saved: the compare-and-set refuses
        it if another process changed the table); a refusal is never the cache's alone: the
        table is read afresh and the request decided again before the player is told no."""
        async with self._lock(table_id):
            await self.confirm_outages()  # a stale beat: the database may have been away
            cached = self._cache.get(table_id)
            table = cached if cached is not None else await self.load(table_id)
            fresh = cached is None
            for _ in range(ATTEMPTS):
                try:
                    decision = decide(table)
                except TableError:
                    if fresh:
                        raise
                    decision = None
                if decision is None and not fresh:
                    table, fresh = await self.load(table_id), True
                    continue
                if decision is None:
                    return table.version
                # Shielded: once the commit is under way it is seen through, announced and
                # followed up even if the request is cancelled meanwhile (a socket closing,
                # the computer's stale job being replaced), so no stored change goes unsaid.
                if await asyncio.shield(self._commit(decision)):
                    return decision.after.version
                table, fresh = await self.load(table_id), True
            raise Busy("The table changed several times at once; please try again.")

    async def _commit(self, decision: Decision) -> bool:
        """Commit ``decision`` under compare-and-set; once stored, announce it and let the
        computer, the sweep and Web Push (``on_change``) know. ``False`` if another writer
        changed the table first."""
        after = decision.after
        events = list(decision.events)
        stored = self.store.submit(after.id, after.version - 1, decision.change)
        # The announcement is made while the store writes; it goes out once the commit is
        # known, and is dropped if the commit is refused.
        draft = await self.announcer.draft_meanwhile(after, events)
        if not await stored:
            return False
        self._remember(after)
        await self.announcer.announce(after, events, draft)
        self.computer.check(after)
        self.analyses.game_over(after)  # if the game is over: its background analysis
        if after.row.deadline is not None:
            self.on_deadline(after.row.deadline)
        self.on_change(after, decision.events)
        return True


__all__ = ["Bot", "CreatedTable", "GameRecord", "TableError", "TableNotFound", "TableService"]
