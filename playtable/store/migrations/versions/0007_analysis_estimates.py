"""The background analysis: estimates beside proofs, and Swaptimum's win rates.

Every analysed position now has a row whether the solver proved it or not: ``proved`` says
which (rows from before were all proofs). A Dots and Boxes value is still red's final margin
(``red_margin``); a Swaptimum value is red's share of the search's simulated games
(``red_share``, from 0 to 1), so ``red_margin`` may now be empty.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("analysis_values") as batch:
        batch.add_column(sa.Column("proved", sa.Boolean, nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("red_share", sa.Float, nullable=True))
        batch.alter_column("red_margin", existing_type=sa.Integer, nullable=True)
        batch.create_check_constraint(
            "analysis_values_value", "red_margin IS NOT NULL OR red_share IS NOT NULL"
        )


def downgrade() -> None:
    # Only proofs of Dots and Boxes positions fit the older table: the rest is dropped.
    op.execute("DELETE FROM analysis_values WHERE NOT proved OR red_margin IS NULL")
    with op.batch_alter_table("analysis_values") as batch:
        batch.drop_constraint("analysis_values_value", type_="check")
        batch.alter_column("red_margin", existing_type=sa.Integer, nullable=False)
        batch.drop_column("red_share")
        batch.drop_column("proved")
