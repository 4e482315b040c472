"""A stop of the last running process begins an outage, however short the restart.

``site_heartbeat.stopped_at``: set to the beat's moment by the beat a process writes as it
stops gracefully, cleared by every other beat; while it equals ``at`` nothing has beaten
since that stop (a process of an older release renews ``at`` only, which voids it too).
``site_processes``: one row per running process, renewed with its every beat and removed
as it stops, so that a process that starts finds out whether another one kept the site up
(``tables/downtime.py``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("site_heartbeat") as batch:
        batch.add_column(sa.Column("stopped_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "site_processes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("site_processes")
    with op.batch_alter_table("site_heartbeat") as batch:
        batch.drop_column("stopped_at")
