"""The analysed positions' values, proved or estimated, each tied by its digest to the exact
moves that led to it: read and upserted, each a function of a SQLAlchemy ``Connection`` run in
one transaction."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from playtable.store.rows import AnalysisPoint
from playtable.store.schema import analysis_values


def position_digests(moves: Sequence[str]) -> list[str]:
    """``result[ply]`` is the SHA-256 (hex) of ``moves[:ply]``, for every ply from 0 to the end.

    Each move counts as its length in bytes, a colon and its text, so no two different lists
    of moves share an encoding.
    """
    running = hashlib.sha256()
    digests = [running.hexdigest()]
    for move in moves:
        data = move.encode()
        running.update(b"%d:%s" % (len(data), data))
        digests.append(running.hexdigest())
    return digests


def read_analysis(conn: Connection, table_id: str, digests: list[str]) -> dict[int, int]:
    points = read_points(conn, table_id, digests)
    return {ply: p.red_margin for ply, p in points.items() if p.proved and p.red_margin is not None}


def read_points(conn: Connection, table_id: str, digests: list[str]) -> dict[int, AnalysisPoint]:
    c = analysis_values.c
    rows = conn.execute(
        sa.select(c.ply, c.moves_hash, c.red_margin, c.red_share, c.proved).where(
            c.table_id == table_id, c.ply < len(digests)
        )
    )
    return {
        r.ply: AnalysisPoint(bool(r.proved), red_margin=r.red_margin, red_share=r.red_share)
        for r in rows
        if r.moves_hash == digests[r.ply]
    }


_ANALYSIS_BATCH = 200  # rows per statement: far below SQLite's limit of bound parameters


def save_analysis(conn: Connection, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), _ANALYSIS_BATCH):
        chunk = rows[start : start + _ANALYSIS_BATCH]
        # Both dialects spell the upsert INSERT ... ON CONFLICT; SQLAlchemy builds it for each.
        statement: postgresql.Insert | sqlite.Insert
        if conn.dialect.name == "postgresql":
            statement = postgresql.insert(analysis_values).values(chunk)
        elif conn.dialect.name == "sqlite":
            statement = sqlite.insert(analysis_values).values(chunk)
        else:
            raise NotImplementedError(f"no upsert for {conn.dialect.name}")
        new = statement.excluded
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[analysis_values.c.table_id, analysis_values.c.ply],
                set_={
                    "moves_hash": new.moves_hash,
                    "red_margin": new.red_margin,
                    "red_share": new.red_share,
                    "proved": new.proved,
                    "solved_at": new.solved_at,
                },
                # The same position solved twice (two processes at once) keeps its row; a
                # row left by other moves at this ply (a take-back) is replaced, and so is
                # an estimate by a proof.
                where=sa.or_(
                    analysis_values.c.moves_hash != new.moves_hash,
                    sa.and_(sa.not_(analysis_values.c.proved), new.proved),
                ),
            )
        )
