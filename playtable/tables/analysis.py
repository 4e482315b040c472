"""The analysis of a table's game: the solver's value after every move, and the mistakes.

Proved values are stored (``Store.analysis_values``, each tied to the exact moves before its
position), so every process, and every process after a restart, reuses what any other
proved; only the other plies go to the analysis pool. Unproved positions are never stored
(another process, or a later start with a larger budget, tries again); this process
remembers its own failures so that reloading a page does not spend the budget on them twice.
One analysis per table at a time runs in each process.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from playtable.ai import analysis as solver_work
from playtable.store import Store, position_digests
from playtable.tables.errors import AnalysisRefused
from playtable.tables.pool import BotPool, BotSettings
from playtable.tables.table import LoadedTable

# Positions this process failed to prove, keyed by (table, moves hash): not tried again here
# (the budget would be the same), so a reloaded analysis page costs no solver time.
UNPROVED_SIZE = 20000

logger = logging.getLogger(__name__)


def require_open(table: LoadedTable) -> None:
    """Raise AnalysisRefused unless the table's analysis may be shown now."""
    if not solver_work.analysable(table.game):
        raise AnalysisRefused("The analysis is for Dots and Boxes only.")
    if table.outcome() is None and not table.bots:
        raise AnalysisRefused(
            "The analysis opens when the game is over; during a game only at a table "
            "against the computer."
        )


def summary(table: LoadedTable, values: list[int | None]) -> dict[str, Any]:
    """The analysis JSON of docs/protocol.md from the red margins after each ply."""
    misere = bool(table.row.options.get("misere"))
    moves = []
    for ply, row in enumerate(table.moves):
        before, after = values[ply], values[ply + 1]
        loss = None
        if before is not None and after is not None:
            loss = solver_work.move_loss(before, after, row.player, misere)
        moves.append({"ply": ply, "move": row.move, "player": row.player, "loss": loss})
    return {
        "id": table.id,
        "options": table.row.options,
        "finished": table.outcome() is not None,
        "values": values,
        "moves": moves,
    }


class Analysis:
    """Analyses tables in their own pool (a long analysis must not make the computer at other
    tables fall back to its quick move)."""

    def __init__(
        self,
        store: Store,
        settings: BotSettings,
        load: Callable[[str], Awaitable[LoadedTable]],
    ) -> None:
        self.store = store
        self.settings = settings
        self.load = load
        self.pool = BotPool(settings.analysis_workers)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._unproved: OrderedDict[tuple[str, str], None] = OrderedDict()

    async def open_table(self, table_id: str) -> LoadedTable:
        """The table if its analysis is open; raises AnalysisRefused or TableNotFound."""
        table = await self.load(table_id)
        require_open(table)
        return table

    async def analyse(self, table_id: str) -> dict[str, Any]:
        """The solver's value after each move and the mistakes; see docs/protocol.md."""
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        # A second request waits, then finds the first one's values in the store.
        async with lock:
            table = await self.open_table(table_id)
            return summary(table, await self._values(table))

    async def _values(self, table: LoadedTable) -> list[int | None]:
        played = table.move_texts()
        known: dict[int, int | None] = dict(await self.store.analysis_values(table.id, played))
        digests = position_digests(played)
        missing = [
            ply
            for ply in range(len(played) + 1)
            if ply not in known and (table.id, digests[ply]) not in self._unproved
        ]
        if missing:
            found = await self.pool.run(
                solver_work.analyse_positions,
                table.row.options,
                played,
                missing,
                self.settings.position_budget_s,
                self.settings.analysis_total_s,
            )
            known.update(found)
            for ply, value in found.items():
                if value is None:
                    self._unproved[(table.id, digests[ply])] = None
                    self._unproved.move_to_end((table.id, digests[ply]))
            while len(self._unproved) > UNPROVED_SIZE:
                self._unproved.popitem(last=False)
            proved = {ply: value for ply, value in found.items() if value is not None}
            try:
                await self.store.save_analysis_values(table.id, played, proved)
            except Exception:
                # The values are in hand: this request still gets them, a later one solves
                # them again.
                logger.warning("table %s: analysis values not saved", table.id, exc_info=True)
        return [known.get(ply) for ply in range(len(played) + 1)]

    async def best_moves(self, table_id: str, ply: int) -> dict[str, Any]:
        """Every optimal move after ``ply`` moves, if the solver proves it within budget."""
        table = await self.open_table(table_id)
        if not 0 <= ply <= table.ply:
            raise AnalysisRefused(f"There is no position after {ply} moves at this table.")
        found = await self.pool.run(
            solver_work.best_moves,
            table.row.options,
            table.move_texts()[:ply],
            self.settings.position_budget_s * 2,
        )
        if found is None:
            return {"ply": ply, "proved": False, "value": None, "best_moves": []}
        return {"ply": ply, "proved": True, **found}

    def close(self) -> None:
        self.pool.shutdown()


__all__ = ["UNPROVED_SIZE", "Analysis", "require_open", "summary"]
