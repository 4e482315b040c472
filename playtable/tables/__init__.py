"""The table service: create a table, seats and tokens, play a move, offers, rematch.

One concern a file: ``decisions`` (the rules of table actions, pure), ``service`` (wiring),
``views`` (the JSON a viewer gets), ``computer`` (the computer's turns), ``analysis``,
``presence``, ``pool`` (worker processes), ``table`` (the loaded table, offers), ``events``.
"""

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
from playtable.tables.service import CreatedTable, GameRecord, TableService
from playtable.tables.table import Bot, LoadedTable, Offers
from playtable.tables.views import Links

__all__ = [
    "AnalysisRefused",
    "Bot",
    "Busy",
    "CreatedTable",
    "GameOver",
    "GameRecord",
    "Illegal",
    "Links",
    "LoadedTable",
    "NoOffer",
    "NotSeated",
    "NotYourTurn",
    "Offers",
    "Stale",
    "TableError",
    "TableNotFound",
    "TableService",
]
