"""A browser's seats carried to another device at once (web/carry.py).

``carries``: one row per carry, its seats sealed with a key only the carry's code gives,
taken once and pruned once expired (by its index).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "carries",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("sealed", sa.Text, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_carries_expires_at", "carries", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_carries_expires_at", table_name="carries")
    op.drop_table("carries")
