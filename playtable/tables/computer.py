"""The computer's turns at its tables: what it has to do, when, and within which time.

After every committed change the service hands the table to :meth:`Computer.check`, which
works out the computer's job there (a move, an answer to a take-back or a draw offer, a
rematch) as a :class:`Job` naming the position. One task per table: a new job replaces a
stale one (cancelling it), the same job keeps it, so checking twice is harmless.

The computer acts through the same table actions as a person (:class:`TableActions`, the
service), so the rules, the store's ``(table, ply)`` key and the bus all apply; a job that
another process (or the player) made pointless meanwhile ends quietly.

Time: a turn begins when its job is scheduled. The pool thinks until that moment plus
:attr:`BotSettings.move_budget_s`; if its answer is not back by the cap
(:attr:`BotSettings.move_cap_s`), the quick move is played from here and the pool's answer
is dropped. A draw offer is answered by the cap too.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from playtable.ai import BotMove, bot_move
from playtable.ai import analysis as solver_work
from playtable.ai.quick import quick_game_move
from playtable.games import PLAYERS, Player, other
from playtable.tables import computer_time
from playtable.tables.errors import GameOver, NoOffer, NotYourTurn, Stale, TableNotFound
from playtable.tables.fair import FairPool, requester
from playtable.tables.pool import BotPool, BotSettings
from playtable.tables.table import Actor, Bot, LoadedTable

logger = logging.getLogger(__name__)

# Added to the computer's workers' niceness (the analysis' are 19, and idle for the background
# one). Far below the server: with the computer thinking on every core (a dozen tables against
# the hard level), a player's move waited for a core, up to twice the quiet p99, at +5 (the
# 12-tables attack of bench/abuse.py); at +15 the server takes a core at once when it wakes.
COMPUTER_NICENESS = 15
WARM_WAIT_S = 10.0  # the longest a first move waits for the pool's first worker to come up


class JobKind(enum.Enum):
    MOVE = "move"
    UNDO = "undo"
    DRAW = "draw"
    REMATCH = "rematch"


@dataclass(frozen=True)
class Job:
    """What the computer in seat ``player`` has to do, in the position after ``moves``."""

    kind: JobKind
    player: Player
    moves: tuple[str, ...] = ()


class TableActions(Protocol):
    """What the computer may do at a table: the service's own actions."""

    async def load(self, table_id: str) -> LoadedTable: ...

    async def play_move(self, table_id: str, token: Actor, ply: int, move: str) -> int: ...

    async def answer_undo(self, table_id: str, token: Actor, accept: bool) -> int: ...

    async def answer_draw(self, table_id: str, token: Actor, accept: bool) -> int: ...

    async def rematch(self, table_id: str, token: Actor) -> int: ...


def job_at(table: LoadedTable) -> Job | None:
    """What the computer at ``table`` has to do now, if anything."""
    row = table.row
    if not row.bots:
        return None
    offers = table.offers
    if table.outcome() is not None:
        wanted = [p for p in PLAYERS if p in row.bots and p not in offers.rematch]
        if offers.rematch and wanted and row.rematch_id is None:
            return Job(JobKind.REMATCH, wanted[0])
        return None
    played = tuple(table.move_texts())
    for kind, by in ((JobKind.UNDO, offers.undo), (JobKind.DRAW, offers.draw)):
        if by is not None and other(by) in row.bots:
            return Job(kind, other(by), played)
    to_move = table.game.to_move(table.state)
    if to_move in row.bots:
        return Job(JobKind.MOVE, to_move, played)
    return None


class Computer:
    """The computer players of this process: their pool, their pending work, their answers."""

    def __init__(self, settings: BotSettings, actions: TableActions) -> None:
        self.settings = settings
        self.actions = actions
        # Niced a little: a server's event loop (every player's moves) and the database
        # come before the computer's thinking, which has its deadline and a quick move.
        self.pool = BotPool(settings.workers, nice=COMPUTER_NICENESS)
        # Turns at the pool shared among the addresses that asked (tables/fair.py).
        self.fair = FairPool(self.pool)
        self._tasks: dict[str, tuple[Job, asyncio.Task[None]]] = {}
        # How the computer's moves were found: "thought" (in the pool, with time to think),
        # "quick" (in the pool, whose job started too late to think) and "fallback" (here,
        # because the pool had not answered by the cap).
        self.replies: Counter[str] = Counter()

    def pending(self, table_id: str) -> bool:
        """Whether work for the table is scheduled or under way in this process."""
        entry = self._tasks.get(table_id)
        return entry is not None and not entry[1].done()

    async def resume(self, table_ids: list[str]) -> None:
        """Restart the computer at running tables (at startup)."""
        if table_ids:
            self.pool.start()
        for table_id in table_ids:
            with contextlib.suppress(TableNotFound):
                self.check(await self.actions.load(table_id))

    def check(self, table: LoadedTable) -> None:
        """Schedule what the computer must do at ``table``, cancelling work made stale."""
        table_id = table.id
        job = job_at(table)
        current = self._tasks.get(table_id)
        if current is not None:
            key, task = current
            if key == job and not task.done():
                return
            if task is not asyncio.current_task():
                task.cancel()
            del self._tasks[table_id]
        if job is None:
            return
        # The turn begins now: its deadline and the cap count from here, so time spent
        # waiting for a worker is taken off the thinking rather than added to the answer.
        task = asyncio.create_task(self._run(table_id, job, time.time()))
        self._tasks[table_id] = (job, task)
        task.add_done_callback(lambda done: self._done(table_id, done))

    def _done(self, table_id: str, task: asyncio.Task[None]) -> None:
        current = self._tasks.get(table_id)
        if current is not None and current[1] is task:
            del self._tasks[table_id]
        if not task.cancelled() and task.exception() is not None:
            logger.error("bot at table %s failed", table_id, exc_info=task.exception())

    async def _run(self, table_id: str, job: Job, begun: float) -> None:
        bot = Bot(job.player)
        actions = self.actions
        try:
            if job.kind is JobKind.REMATCH:
                await actions.rematch(table_id, bot)
                table = await actions.load(table_id)
                if table.row.rematch_id is not None:
                    self.check(await actions.load(table.row.rematch_id))
                return
            table = await actions.load(table_id)
            if job_at(table) != job:
                return  # the position changed while the task waited to start
            if job.kind is JobKind.UNDO:
                # Take-backs are always allowed: the computer does not mind a second try.
                await actions.answer_undo(table_id, bot, True)
            elif job.kind is JobKind.DRAW:
                accept = await self._accepts_draw(table, job.player, begun)
                await actions.answer_draw(table_id, bot, accept)
            else:
                move = await self._move(table, job.player, begun)
                await actions.play_move(table_id, bot, len(job.moves), move)
        except (Stale, NotYourTurn, GameOver, NoOffer, TableNotFound):
            pass  # another process (or the player) got there first: nothing left to do

    async def _within_cap(
        self, begun: float, work: Callable[[], Awaitable[object]], cap_s: float | None = None
    ) -> object:
        """``work()``'s answer if it comes by the cap (``cap_s`` after ``begun``, by default
        the settings' cap); raises TimeoutError otherwise."""
        cap_s = self.settings.move_cap_s if cap_s is None else cap_s
        wait = begun + cap_s - time.time()
        if wait <= 0:
            raise TimeoutError
        return await asyncio.wait_for(work(), wait)

    async def _move(self, table: LoadedTable, player: Player, begun: float) -> str:
        """The computer's move at ``table``, whose turn began at ``begun`` (``time.time()``)."""
        settings = self.settings
        row = table.row
        timing = table.clocks()
        # Off the clock, a pool just started (the first move since the server started) is
        # waited for, and the turn counted from then: else the spawn would eat the thinking
        # and the first move would be the quick one.
        if not timing.runs_for(player) and await self.pool.ready(WARM_WAIT_S):
            begun = max(begun, time.time())
        # On the clock, a thinking budget from the time left (tables/clocks.py).
        at = datetime.fromtimestamp(begun, UTC)
        budget = computer_time.think_budget(timing, player, at, settings.move_budget_s)
        cap = computer_time.wait_cap(timing, player, at, budget, settings.move_cap_s)
        try:
            reply = await self._within_cap(
                begun,
                lambda: self.fair.run(
                    _owner(table),
                    bot_move,
                    row.game,
                    row.options,
                    table.move_texts(),
                    row.bots[player],
                    None,
                    budget,
                    begun + budget,
                ),
                cap,
            )
        except TimeoutError:
            logger.warning(
                "table %s: no bot move from the pool after %.2f s, playing the quick move",
                row.id,
                time.time() - begun,
            )
        except Exception:
            # A worker that died (the pool starts new ones for the next job) must not leave
            # the player waiting for a move that will never come.
            logger.exception("table %s: the bot's job failed, playing the quick move", row.id)
        else:
            assert isinstance(reply, BotMove)
            self.replies["quick" if reply.quick else "thought"] += 1
            return reply.move
        self.replies["fallback"] += 1
        move = quick_game_move(table.game, table.state, random.Random())
        return str(table.game.format_move(move))

    async def _accepts_draw(self, table: LoadedTable, player: Player, begun: float) -> bool:
        """Accept only a draw the solver shows is no worse than playing on; a solver that has
        not answered by the cap counts as "not shown", and the offer is declined."""
        if not solver_work.solvable(table.game):
            return False
        settings = self.settings
        budget = min(settings.position_budget_s, begun + settings.move_budget_s - time.time())
        if budget <= 0:
            return False
        try:
            value = await self._within_cap(
                begun,
                lambda: self.fair.run(
                    _owner(table),
                    solver_work.mover_value,
                    table.row.options,
                    table.move_texts(),
                    budget,
                ),
            )
        except TimeoutError:
            return False
        if not isinstance(value, int):
            return False
        mine = value if table.game.to_move(table.state) == player else -value
        return mine <= 0

    async def close(self) -> None:
        tasks = [task for _, task in self._tasks.values()]
        for task in tasks:
            task.cancel()
        self._tasks.clear()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        self.pool.shutdown()


def _owner(table: LoadedTable) -> str:
    """Whose turn at the pool a job takes: the address whose action made it (inherited by
    the job's task from the request that scheduled it), else the table's own."""
    return requester.get() or f"table:{table.id}"


__all__ = ["Computer", "Job", "JobKind", "TableActions", "job_at"]
