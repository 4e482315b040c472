"""Clocks: the table's time control and deadline (indexed for the sweep), each move's
credited transit.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Existing tables have no clock: "-" (unlimited) and no deadline.
    op.add_column(
        "tables", sa.Column("time_control", sa.String(32), nullable=False, server_default="-")
    )
    op.add_column("tables", sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_tables_deadline", "tables", ["deadline"])
    op.add_column("moves", sa.Column("lag_ms", sa.Integer, nullable=True))


def downgrade() -> None:
    # Plain DROP COLUMN (SQLite 3.35 and later have it): a batch copy of "tables" would
    # drop the old table, and with it, by the foreign keys' cascade, every move and seat.
    op.drop_column("moves", "lag_ms")
    op.drop_index("ix_tables_deadline", table_name="tables")
    op.drop_column("tables", "deadline")
    op.drop_column("tables", "time_control")
