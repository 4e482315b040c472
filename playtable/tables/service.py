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
import dataclasses
import hmac
import logging
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, cast

from playtable import games
from playtable.bus import Bus
from playtable.games import PLAYERS, Game, GameError, Player, SettingsError, other
from playtable.games.records import GameRecord
from playtable.store import KEEP, Change, MoveRow, NewTable, Store, TableRow
from playtable.tables import tokens
from playtable.tables.errors import (
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

log = logging.getLogger(__name__)

SEAT_CHOICES = ("red", "blue", "random")
_FROM_VIEW = object()  # marks an event field to be filled in from the new position's view
# How often one request re-reads the table after losing a race to another writer.
ATTEMPTS = 5
CACHE_SIZE = 2048


@dataclass(frozen=True)
class CreatedTable:
    id: str
    seat: Player
    seat_token: str
    invite_token: str


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

    def seat_of(self, token: str | None) -> Player | None:
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

    def __init__(self, store: Store, bus: Bus, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the server secret needs at least 128 bits")
        self.store = store
        self.bus = bus
        self._secret = secret
        self.presence = Presence()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._cache: OrderedDict[str, _Table] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

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
    async def create_table(self, game: str, options: Mapping[str, Any], seat: str) -> CreatedTable:
        """A new table with its creator in ``seat``; raises :class:`SettingsError`."""
        loaded = games.load(game, options)
        if seat not in SEAT_CHOICES:
            raise SettingsError(f"seat must be one of red, blue, random (not {seat!r})")
        player: Player = secrets.choice(PLAYERS) if seat == "random" else cast(Player, seat)
        token = tokens.new_token()
        for _ in range(ATTEMPTS):
            table_id = tokens.new_table_id()
            invite = self.invite_token(table_id)
            created = await self.store.create_table(
                NewTable(
                    id=table_id,
                    game=loaded.name,
                    options=loaded.options(),
                    invite_hash=tokens.hash_token(invite),
                    seats={player: tokens.hash_token(token)},
                )
            )
            if created:
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
        return self.personalize(self.public(table, await self._online(table_id)), you)

    async def _online(self, table_id: str) -> set[str]:
        """Who is online at the table, on any server process."""
        try:
            return await self.bus.presence.online(table_id)
        except Exception:
            # Presence is a courtesy: without it a table still plays, so never fail on it.
            log.warning("table %s: presence unavailable", table_id, exc_info=True)
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
            "seats": {p: {"taken": p in row.seats, "online": p in online} for p in PLAYERS},
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
        if player is None or table.row.rematch_id is None or token is None:
            return None
        new_id = table.row.rematch_id
        return self.seat_url(new_id, self._rematch_token(token, new_id))

    # -- playing ----------------------------------------------------------------------------
    async def play_move(self, table_id: str, token: str | None, ply: int, move: str) -> int:
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

    async def resign(self, table_id: str, token: str | None) -> int:
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

    async def offer_draw(self, table_id: str, token: str | None) -> int:
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

    async def answer_draw(self, table_id: str, token: str | None, accept: bool) -> int:
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

    async def request_undo(self, table_id: str, token: str | None) -> int:
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

    async def answer_undo(self, table_id: str, token: str | None, accept: bool) -> int:
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

    async def rematch(self, table_id: str, token: str | None) -> int:
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
            # Colours swap: whoever was red sits as blue at the new table.
            new_seats[other(player)] = tokens.hash_token(self._rematch_token(token, new_id))
            asked.append(player)
            if other(player) not in asked:
                offers = {
                    **table.row.offers,
                    "rematch": asked,
                    "rematch_table": new_id,
                    "rematch_seats": new_seats,
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
            )
            return self._same_position(
                table,
                Change(offers=offers, rematch_id=new_id, new_table=new_table),
                [{"kind": "rematch_accepted", "player": player, "table": new_id}],
                offers=offers,
                rematch_id=new_id,
            )

        return await self._change(table_id, decide)

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
                log.warning("table %s: presence not reported", table_id, exc_info=True)
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
    def _require_seat(table: _Table, token: str | None) -> Player:
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
    "CreatedTable",
    "GameRecord",
    "TableError",
    "TableNotFound",
    "TableService",
]
