"""Web Push subscriptions: a player's browser asks to be told of their move at a table.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column(
            "table_id",
            sa.String(16),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("player", sa.String(8), primary_key=True),
        sa.Column("endpoint", sa.String(1024), primary_key=True),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("player IN ('red', 'blue')", name="push_subscriptions_player"),
    )


def downgrade() -> None:
    op.drop_table("push_subscriptions")
