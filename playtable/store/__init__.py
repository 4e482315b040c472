"""Persistence behind one small interface: SQLite by default, any async SQLAlchemy URL."""

from playtable.store.store import (
    DEFAULT_URL,
    KEEP,
    AnalysisPoint,
    Change,
    MoveRow,
    NewTable,
    PushSubscription,
    Store,
    TableRow,
    position_digests,
    upgrade,
)

__all__ = [
    "DEFAULT_URL",
    "KEEP",
    "AnalysisPoint",
    "Change",
    "MoveRow",
    "NewTable",
    "PushSubscription",
    "Store",
    "TableRow",
    "position_digests",
    "upgrade",
]
