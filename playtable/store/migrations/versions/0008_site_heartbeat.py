"""The site's heartbeat and its outages: no clock runs while the whole site is down.

``site_heartbeat``: one row, the last moment any server process was known to be running,
renewed every few seconds by every process (``tables/downtime.py``). ``site_outages``: each
time a process started and found it old, the whole site was down from then to that start;
the clocks leave those intervals out.

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
    op.create_table(
        "site_outages",
        sa.Column("down_at", sa.DateTime(timezone=True), primary_key=True),
        sa.Column("up_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("up_at > down_at", name="site_outages_order"),
    )


def downgrade() -> None:
    op.drop_table("site_outages")
    op.drop_table("site_heartbeat")
