"""The analysis of Dots and Boxes games: the solver's proved value after each move.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis_values",
        sa.Column(
            "table_id",
            sa.String(16),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("ply", sa.Integer, primary_key=True),
        sa.Column("moves_hash", sa.String(64), nullable=False),
        sa.Column("red_margin", sa.Integer, nullable=False),
        sa.Column("solved_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("ply >= 0", name="analysis_values_ply"),
    )


def downgrade() -> None:
    op.drop_table("analysis_values")
