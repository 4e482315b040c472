"""The table service: create a table, seats and tokens, play a move, offers, rematch."""

from playtable.tables.errors import (
    AnalysisRefused,
    GameOver,
    Illegal,
    NoOffer,
    NotSeated,
    NotYourTurn,
    Stale,
    TableError,
    TableNotFound,
)
from playtable.tables.service import Bot, CreatedTable, GameRecord, TableService

__all__ = [
    "AnalysisRefused",
    "Bot",
    "CreatedTable",
    "GameOver",
    "GameRecord",
    "Illegal",
    "NoOffer",
    "NotSeated",
    "NotYourTurn",
    "Stale",
    "TableError",
    "TableNotFound",
    "TableService",
]
