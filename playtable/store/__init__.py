"""Persistence behind one small interface: SQLite by default, any async SQLAlchemy URL."""

from playtable.store.analysis import position_digests
from playtable.store.engines import DEFAULT_URL
from playtable.store.rows import (
    KEEP,
    AnalysisPoint,
    Change,
    MoveRow,
    NewTable,
    PushSubscription,
    TableRow,
)
from playtable.store.store import Store, downgrade, upgrade

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
    "downgrade",
    "position_digests",
    "upgrade",
]
