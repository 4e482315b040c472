"""Seats taken by the computer: the bot's level on the seat row.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("bot_level", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("bot_level")
