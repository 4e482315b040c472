"""The tables of the store as SQLAlchemy Core objects, used to build queries.

The schema itself is created and changed only by the Alembic migrations in ``migrations/``;
these definitions must describe the head revision (``tests/store`` checks they agree).
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("options", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # Bumped by every change; the compare-and-set on it orders all writers of a table.
    sa.Column("version", sa.Integer, nullable=False),
    # The result once the game is over (by the rules, a resignation or an agreed draw).
    sa.Column("outcome", sa.JSON, nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("invite_hash", sa.String(64), nullable=False),
    sa.Column("offers", sa.JSON, nullable=False),
    sa.Column("rematch_id", sa.String(16), sa.ForeignKey("tables.id"), nullable=True),
    # The time control (tables/clocks.py spec: "-", "300+3", "1/259200") and the moment the
    # side to move runs out of time, which every process's sweep looks up by its index.
    sa.Column("time_control", sa.String(32), nullable=False, server_default="-"),
    sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_tables_deadline", "deadline"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column(
        "table_id", sa.String(16), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("player", sa.String(8), primary_key=True),
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # The level of the computer playing this seat; its token hash is of a token nobody has.
    sa.Column("bot_level", sa.String(16), nullable=True),
    # The name its player chose to be shown to the table (migration 0006).
    sa.Column("nickname", sa.String(24), nullable=True),
    sa.CheckConstraint("player IN ('red', 'blue')", name="seats_player"),
)

moves = sa.Table(
    "moves",
    metadata,
    sa.Column(
        "table_id", sa.String(16), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    # The number of moves played before this one: (table_id, ply) is the key that lets only
    # one writer ever append move N, whichever server process it runs in.
    sa.Column("ply", sa.Integer, primary_key=True),
    sa.Column("move", sa.String(64), nullable=False),
    sa.Column("player", sa.String(8), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # Milliseconds of transit credited to the mover's clock (tables/clocks.py); null: none.
    sa.Column("lag_ms", sa.Integer, nullable=True),
    sa.CheckConstraint("player IN ('red', 'blue')", name="moves_player"),
    sa.CheckConstraint("ply >= 0", name="moves_ply"),
)

analysis_values = sa.Table(
    "analysis_values",
    metadata,
    sa.Column(
        "table_id", sa.String(16), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    # The position after ``ply`` moves of the table, and which moves those were: the SHA-256
    # of ``moves[:ply]`` (``store.position_digests``). After a take-back another move can be
    # played at the same ply; a row whose hash is not that of the table's moves is ignored,
    # and replaced once the new position is solved.
    sa.Column("ply", sa.Integer, primary_key=True),
    sa.Column("moves_hash", sa.String(64), nullable=False),
    # Dots and Boxes: the final margin for red from that position under perfect play, as
    # the solver proved it or (``proved`` false) as the bots' search estimates it.
    sa.Column("red_margin", sa.Integer, nullable=True),
    sa.Column("solved_at", sa.DateTime(timezone=True), nullable=False),
    # Whether the value is a proof; an estimate is replaced by a proof, never the other way.
    sa.Column("proved", sa.Boolean, nullable=False, server_default=sa.true()),
    # Swaptimum: red's share (0 to 1) of the search's simulated games from that position, or
    # 1 / 0 where the game is decided (``proved``).
    sa.Column("red_share", sa.Float, nullable=True),
    sa.CheckConstraint("ply >= 0", name="analysis_values_ply"),
    sa.CheckConstraint(
        "red_margin IS NOT NULL OR red_share IS NOT NULL", name="analysis_values_value"
    ),
)

push_subscriptions = sa.Table(
    "push_subscriptions",
    metadata,
    sa.Column(
        "table_id", sa.String(16), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("player", sa.String(8), primary_key=True),
    # A browser's Web Push subscription (RFC 8030 endpoint, RFC 8291 keys), for this seat only;
    # removed when the player revokes it or the push service says it is gone.
    sa.Column("endpoint", sa.String(1024), primary_key=True),
    sa.Column("p256dh", sa.String(128), nullable=False),
    sa.Column("auth", sa.String(64), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),  # the notification's language
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("player IN ('red', 'blue')", name="push_subscriptions_player"),
)

# The last moment a server process was known to be running (one row, id 1; migration 0008):
# a process that starts and finds it old knows the site was down since (tables/downtime.py).
# ``stopped_at`` (migration 0009): the moment of the beat a process wrote as it stopped, while
# no beat came since (it equals ``at``); every other beat clears it.
site_heartbeat = sa.Table(
    "site_heartbeat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("stopped_at", sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("id = 1", name="site_heartbeat_one_row"),
)

# The running server processes, one row each (a random id per process), renewed with its
# every beat and removed as it stops (migration 0009): a process that starts finds a stop
# of the last one, or one that kept the site up (tables/downtime.py).
site_processes = sa.Table(
    "site_processes",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
)

# A browser's seats on their way to another device (web/carry.py, migration 0010): the keys
# sealed with a key derived from the carry's code, which only the code's holder has (the
# store keeps its SHA-256 as the row's key); taken once, and gone when it expires.
carries = sa.Table(
    "carries",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("sealed", sa.Text, nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_carries_expires_at", "expires_at"),
)

# The whole site's outages: each time a process started and found the heartbeat old, the site
# was down from the last beat to that start; no clock runs through one (migration 0008).
site_outages = sa.Table(
    "site_outages",
    metadata,
    sa.Column("down_at", sa.DateTime(timezone=True), primary_key=True),
    sa.Column("up_at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("up_at > down_at", name="site_outages_order"),
)
