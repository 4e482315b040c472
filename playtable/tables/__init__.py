"""The table service: create a table, seats and tokens, play a move, offers, rematch."""

from playtable.tables.errors import (
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

__all__ = [
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
