"""The site's heartbeat: the last moment any server process was known to be running.

One row, renewed every few seconds by every process (``tables/downtime.py``). A process that
starts and finds it old knows the whole site was down since then, and gives the running
clocks that time back.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "site_heartbeat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("id = 1", name="site_heartbeat_one_row"),
    )


def downgrade() -> None:
    op.drop_table("site_heartbeat")
