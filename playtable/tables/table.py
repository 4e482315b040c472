"""A table as the service knows it: the stored row, its moves, the replayed position, the
pending offers and the result, as typed values.

Everything here is pure: no I/O, no clock, no asyncio. The store keeps offers and results
as JSON; :class:`Offers` and :class:`~playtable.games.Outcome` are read from it once, when a
table is loaded, and written back as JSON in a :class:`~playtable.store.Change`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, cast

from playtable.games import PLAYERS, Game, Outcome, Player, Termination, other
from playtable.store import MoveRow, TableRow
from playtable.tables import clocks, downtime, tokens


@dataclass(frozen=True)
class Bot:
    """The computer acting for its seat ``player``: passed where a person passes a seat token.

    It has no token at all: the service checks that the table really has a bot in that seat.
    """

    player: Player


Actor = str | Bot | None  # a seat token, the computer, or nobody (a spectator)


def _players(value: Any) -> tuple[Player, ...]:
    if not isinstance(value, list | tuple):
        return ()
    return tuple(cast(Player, p) for p in value if p in PLAYERS)


def _player(value: Any) -> Player | None:
    return cast(Player, value) if value in PLAYERS else None


def _by_player(value: Any) -> dict[Player, str]:
    if not isinstance(value, Mapping):
        return {}
    return {cast(Player, p): str(v) for p, v in value.items() if p in PLAYERS}


def _restarts(data: Mapping[str, Any]) -> tuple[clocks.Restart, ...]:
    """The stored restarts; a table stored before there could be several has one, or none."""
    stored = data.get("restarts")
    if not isinstance(stored, list):
        stored = [data.get("restart")]
    return tuple(r for r in map(clocks.Restart.from_json, stored) if r is not None)


@dataclass(frozen=True)
class Offers:
    """What is pending at a table: a draw offer, a take-back request, rematch proposals.

    A rematch proposal already names the new table and the seats each side will hold there
    (``rematch_seats``: player -> token hash, ``rematch_bots``: player -> level), so that the
    second proposal creates it in the same transaction.
    """

    draw: Player | None = None
    undo: Player | None = None
    # Whose draw offer, whose take-back request was declined since the last move: not
    # again before the next one (else a declined offer could be repeated at once, twenty
    # times a minute, while the opponent's clock ran).
    draw_declined: Player | None = None
    undo_declined: Player | None = None
    rematch: tuple[Player, ...] = ()
    rematch_table: str | None = None
    rematch_seats: Mapping[Player, str] = field(default_factory=dict)
    rematch_bots: Mapping[Player, str] = field(default_factory=dict)
    # Not offers but kept with them, as what the accepted take-backs (and the outages of the
    # site) left: where the clocks started again (clocks.Restart), in order. No player sees
    # them; a move keeps them.
    restarts: tuple[clocks.Restart, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Offers:
        return cls(
            draw=_player(data.get("draw")),
            undo=_player(data.get("undo")),
            draw_declined=_player(data.get("draw_declined")),
            undo_declined=_player(data.get("undo_declined")),
            rematch=_players(data.get("rematch")),
            rematch_table=data.get("rematch_table") or None,
            rematch_seats=_by_player(data.get("rematch_seats")),
            rematch_bots=_by_player(data.get("rematch_bots")),
            restarts=_restarts(data),
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"draw": self.draw, "undo": self.undo, "rematch": list(self.rematch)}
        if self.draw_declined is not None:
            data["draw_declined"] = self.draw_declined
        if self.undo_declined is not None:
            data["undo_declined"] = self.undo_declined
        if self.rematch_table is not None:
            data["rematch_table"] = self.rematch_table
            data["rematch_seats"] = dict(self.rematch_seats)
            data["rematch_bots"] = dict(self.rematch_bots)
        if self.restarts:
            data["restarts"] = [restart.to_json() for restart in self.restarts]
            # As the previous release reads it (it runs beside this one during a roll):
            # its clocks then run from the last take-back, as they did.
            data["restart"] = self.restarts[-1].to_json()
        return data

    def public(self) -> dict[str, Any]:
        """What everybody at the table may see (the new table's seats are not theirs to see)."""
        return {"draw": self.draw, "undo": self.undo, "rematch": list(self.rematch)}

    def cleared(self) -> Offers:
        """After a move, a take-back or the end of the game: draw and take-back lapse (and
        a declined one may be made again)."""
        return replace(self, draw=None, undo=None, draw_declined=None, undo_declined=None)

    def restarted(self, restart: clocks.Restart) -> Offers:
        """With ``restart`` the newest; one at its ply or after it (a take-back's, of moves
        now taken back) is dropped."""
        kept = tuple(r for r in self.restarts if r.ply < restart.ply)
        return replace(self, restarts=(*kept, restart))


@dataclass(frozen=True)
class LoadedTable:
    """A table as read from the store, with its position replayed."""

    row: TableRow
    moves: tuple[MoveRow, ...]
    game: Game[Any, Any, Any]
    state: Any

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def version(self) -> int:
        return self.row.version

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def last_played(self) -> datetime:
        """When the table last changed: the game's end, else its last move, else its making
        (UTC)."""
        row = self.row
        moment = row.finished_at or (self.moves[-1].at if self.moves else None) or row.created_at
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

    # Cached: a table is immutable (a change makes a new one), and a request asks these of it
    # several times (the rules, the views, the clocks).
    @cached_property
    def offers(self) -> Offers:
        return Offers.from_json(self.row.offers)

    @property
    def bots(self) -> Mapping[Player, str]:
        return self.row.bots

    def outcome(self) -> Outcome | None:
        """The stored result (a resignation, an agreement) or else what the rules say."""
        return self._outcome

    @cached_property
    def _outcome(self) -> Outcome | None:
        if self.row.outcome is not None:
            return Outcome.from_json(self.row.outcome)
        return self.game.outcome(self.state)

    def running(self) -> bool:
        return self.outcome() is None

    def to_move(self) -> Player | None:
        return None if self.outcome() is not None else self.game.to_move(self.state)

    def seated(self, player: Player) -> bool:
        return player in self.row.seats

    def seat_of(self, token: Actor) -> Player | None:
        if isinstance(token, Bot):
            return token.player if token.player in self.row.bots else None
        return tokens.seat_holding(self.row.seats, token)

    def move_texts(self) -> list[str]:
        return [m.move for m in self.moves]

    @cached_property
    def time_control(self) -> clocks.TimeControl:
        return clocks.parse(self.row.time_control)

    # Before the method ``clocks``, whose name would hide the module's in the annotation.
    @cached_property
    def _clocks(self) -> tuple[downtime.Outages, clocks.Clocks]:
        return downtime.outages(), self._derive_clocks()

    def _derive_clocks(self) -> clocks.Clocks:
        control = self.time_control
        if isinstance(control, clocks.Unlimited):
            return clocks.Clocks(control, history=(None,) * len(self.moves))
        timed = [
            clocks.Timed(m.player, m.at or self.row.created_at, m.lag_ms / 1000) for m in self.moves
        ]
        outcome = self.outcome()
        flagged = None
        if outcome is not None and outcome.reason is Termination.TIMEOUT and outcome.winner:
            flagged = other(outcome.winner)
        ended = None
        if self.row.outcome is not None and self.row.finished_at is not None:
            on_turn = self.game.to_move(self.state)  # a result off the board: who was to move
            if on_turn is not None:
                ended = (on_turn, self.row.finished_at)
        restarts = self.offers.restarts
        return clocks.derive(
            control, timed, self.to_move(), self.row.seated_at, flagged, ended, restarts
        )

    def clocks(self) -> clocks.Clocks:
        """Both clocks, derived from the moves' commit times (:mod:`playtable.tables.clocks`),
        and derived again once the site's outages are not those they were derived with."""
        known, derived = self._clocks
        if known is not downtime.outages():
            del self.__dict__["_clocks"]
            known, derived = self._clocks
        return derived

    def both_moved(self) -> bool:
        return {m.player for m in self.moves} == set(PLAYERS)


__all__ = ["Actor", "Bot", "LoadedTable", "Offers"]
