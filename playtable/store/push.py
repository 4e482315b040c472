"""The Web Push subscriptions of the seats (web/push.py): read, added and removed, each a
function of a SQLAlchemy ``Connection`` run in one transaction."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from playtable.games import Player
from playtable.store.rows import PushSubscription
from playtable.store.schema import push_subscriptions
from playtable.store.writes import utc_now


def _push_key(table_id: str, player: str, endpoint: str) -> Any:
    c = push_subscriptions.c
    return sa.and_(c.table_id == table_id, c.player == player, c.endpoint == endpoint)


def read_push(conn: Connection, table_id: str, player: Player) -> list[PushSubscription]:
    c = push_subscriptions.c
    rows = conn.execute(
        sa.select(c.endpoint, c.p256dh, c.auth, c.lang).where(
            c.table_id == table_id, c.player == player
        )
    )
    return [PushSubscription(r.endpoint, r.p256dh, r.auth, r.lang) for r in rows]


def add_push(
    conn: Connection, table_id: str, player: Player, sub: PushSubscription, keep: int
) -> None:
    conn.execute(sa.delete(push_subscriptions).where(_push_key(table_id, player, sub.endpoint)))
    conn.execute(
        sa.insert(push_subscriptions).values(
            table_id=table_id,
            player=player,
            endpoint=sub.endpoint,
            p256dh=sub.p256dh,
            auth=sub.auth,
            lang=sub.lang,
            created_at=utc_now(),
        )
    )
    c = push_subscriptions.c
    older = conn.execute(
        sa.select(c.endpoint)
        .where(c.table_id == table_id, c.player == player, c.endpoint != sub.endpoint)
        .order_by(c.created_at.desc())
        .offset(max(0, keep - 1))
    ).scalars()
    for endpoint in list(older):
        conn.execute(sa.delete(push_subscriptions).where(_push_key(table_id, player, endpoint)))


def remove_push(conn: Connection, table_id: str, player: Player, endpoint: str) -> bool:
    deleted = conn.execute(
        sa.delete(push_subscriptions).where(_push_key(table_id, player, endpoint))
    )
    return bool(deleted.rowcount)


def remove_seat_push(conn: Connection, table_id: str, player: Player) -> int:
    """Forget every subscription of the seat: its link was replaced."""
    deleted = conn.execute(
        sa.delete(push_subscriptions).where(
            push_subscriptions.c.table_id == table_id, push_subscriptions.c.player == player
        )
    )
    return int(deleted.rowcount or 0)
