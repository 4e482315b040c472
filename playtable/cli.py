"""The ``playtable`` command: one function per subcommand, dispatched by ``main``."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from playtable.games import GameError, IllegalMove, load
from playtable.games.records import GameRecord, results_per_line


def replay_record(record: GameRecord) -> dict[str, Any]:
    """The result line of ``playtable replay`` for one record."""
    try:
        game = load(record.game, record.options)
    except GameError as error:
        return {"ok": False, "error": str(error)}
    state = game.initial()
    for ply, text in enumerate(record.moves, 1):
        try:
            state = game.play(state, text)
        except IllegalMove as error:
            return {"ok": False, "ply": ply, "error": str(error)}
    outcome = game.outcome(state)
    result: dict[str, Any] = {
        "ok": True,
        "plies": game.ply(state),
        "to_move": game.to_move(state),
        "outcome": None if outcome is None else {"winner": outcome.winner},
    }
    score = game.score(state)
    if score is not None:
        result["score"] = {"red": score[0], "blue": score[1]}
    result["legal_moves"] = game.legal_move_texts(state)
    return result


def replay_lines(lines: Iterable[str], out: TextIO) -> int:
    """Replay JSON Lines records; one result line each, whatever the earlier lines held."""
    count = 0
    for result in results_per_line(lines, replay_record):
        out.write(json.dumps(result) + "\n")
        out.flush()
        count += 1
    return count


def replay_file(path: str, out: TextIO) -> bool:
    """Print the final position of a text record as a diagram; False if it does not replay."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = GameRecord.from_text(handle.read())
        game = load(record.game, record.options)
    except (OSError, GameError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return False
    state = game.initial()
    for ply, text in enumerate(record.moves, 1):
        try:
            state = game.play(state, text)
        except IllegalMove as error:
            print(f"{path}: move {ply} ({text}): {error}", file=sys.stderr)
            return False
    out.write(f"{path}: {record.game} {json.dumps(game.options())}, {game.ply(state)} moves\n")
    out.write(game.diagram(state) + "\n")
    return True


def cmd_replay(args: argparse.Namespace) -> int:
    if not args.records:
        replay_lines(sys.stdin, sys.stdout)
        return 0
    ok = all([replay_file(path, sys.stdout) for path in args.records])
    return 0 if ok else 1


def cmd_solve(args: argparse.Namespace) -> int:
    from playtable.ai.solve import solve_lines  # the solver is only loaded when asked for

    if args.time_limit <= 0:
        print("playtable solve: --time-limit must be positive", file=sys.stderr)
        return 2
    solve_lines(sys.stdin, sys.stdout, args.time_limit)
    return 0


def cmd_atlas(args: argparse.Namespace) -> int:
    from playtable.ai import atlas

    return atlas.run(args)


class RedactLinks(logging.Filter):
    """Keep seat tokens and invitations out of the access log: they are keys to seats."""

    SECRET_PATH = re.compile(r"(/t/[^/\s]+/(?:seat|join)/)[^\s\"?]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.SECRET_PATH.sub(r"\1…", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        return True


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the site with uvicorn; the database comes from PLAYTABLE_DATABASE_URL."""
    import os

    import uvicorn

    from playtable.web.app import create_app

    logging.getLogger("uvicorn.access").addFilter(RedactLinks())
    app = create_app(args.database_url, redis_url=args.redis_url)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        # Above the protocol's 16 KiB so an oversized message gets a readable error instead
        # of a closed connection; far larger frames are still cut off by the server.
        ws_max_size=1024 * 1024,
        # Compression costs tens of KiB of zlib state per connection (and CPU per message);
        # states are small. PLAYTABLE_WS_COMPRESSION=1 turns it on.
        ws_per_message_deflate=os.environ.get("PLAYTABLE_WS_COMPRESSION", "0") == "1",
        # The app believes X-Forwarded-* only from PLAYTABLE_TRUSTED_PROXIES (create_app);
        # uvicorn's own default would trust any local peer.
        proxy_headers=False,
        log_level=args.log_level,
    )
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    """Bring the database to the newest schema (what each server also does when it starts)."""
    import asyncio
    import os

    from playtable.store import DEFAULT_URL, upgrade

    url = args.database_url or os.environ.get("PLAYTABLE_DATABASE_URL") or DEFAULT_URL
    asyncio.run(upgrade(url))
    print(f"database at head: {sa_safe(url)}")
    return 0


def sa_safe(url: str) -> str:
    """The URL without its password, for printing."""
    import sqlalchemy as sa

    return sa.make_url(url).render_as_string(hide_password=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playtable", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    replay = sub.add_parser(
        "replay",
        help="replay game records and report the final position",
        description="Without arguments: read JSON Lines records on standard input and write "
        "one JSON result line per record. With text record files: print each final position.",
    )
    replay.add_argument("records", nargs="*", help="text record files (docs/notation.md)")
    replay.set_defaults(func=cmd_replay)

    solve = sub.add_parser(
        "solve",
        help="solve Dots and Boxes positions exactly",
        description="Read JSON Lines records (as for replay) on standard input; for each, "
        'write {"ok": true, "value": v, "best_moves": [...], "nodes": n, "seconds": s}, where '
        "v is the net number of cells the side to move gets from that position on under "
        "perfect play (in misère, where each side wants fewer cells, v is still that side's "
        'net cells), or {"ok": false, "error": ...} when no proof is found in time.',
    )
    solve.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="give up on a record after this many seconds (default 60)",
    )
    solve.set_defaults(func=cmd_solve)

    atlas = sub.add_parser(
        "atlas",
        help="prove the atlas of solved Dots and Boxes boards, or check it",
        description="build: prove every board of the atlas and write playtable/ai/atlas.json; "
        "check: re-prove a sample of the stored boards (see playtable/ai/atlas.py).",
    )
    from playtable.ai.atlas import add_arguments as atlas_arguments

    atlas_arguments(atlas)
    atlas.set_defaults(func=cmd_atlas)

    serve = sub.add_parser(
        "serve",
        help="run the site",
        description="Serve the site. The database is PLAYTABLE_DATABASE_URL, by default a "
        "SQLite file under ./var/ (created when needed).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy async URL (default: PLAYTABLE_DATABASE_URL, else sqlite in ./var/)",
    )
    serve.add_argument(
        "--redis-url",
        default=None,
        help="Redis for the bus between processes (default: PLAYTABLE_REDIS_URL, else none)",
    )
    serve.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="manage the database")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_sub.add_parser(
        "upgrade",
        help="apply the Alembic migrations up to the newest schema",
        description="Apply every migration not yet applied. Safe to run while servers run "
        "and from several machines at once (PostgreSQL serialises it with an advisory lock).",
    )
    db_upgrade.add_argument(
        "--database-url", default=None, help="default: PLAYTABLE_DATABASE_URL, else ./var/"
    )
    db_upgrade.set_defaults(func=cmd_db_upgrade)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
