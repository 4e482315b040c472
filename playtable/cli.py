"""Playtable: two people play Dots and Boxes or Swaptimum in the browser by sharing a link.

Run the site (``serve``; its settings are environment variables, see docs/deploy.md), manage
its database, replay and solve game records, and build the atlas of solved boards.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from playtable.games import GameError, IllegalMove, load
from playtable.games.records import GameRecord, results_per_line

if TYPE_CHECKING:
    import argparse


def replay_record(record: GameRecord) -> dict[str, Any]:
    """The result line of ``playtable replay`` for one record."""
    try:
        game = load(record.game, record.options)
    except GameError as error:
        return {"ok": False, "error": str(error)}
    try:
        state = game.replay(record.moves)  # a game may play a whole record at once
    except IllegalMove:
        state = game.initial()
        for ply, text in enumerate(record.moves, 1):  # again, to say which move and why
            try:
                state = game.play(state, text)
            except IllegalMove as error:
                return {"ok": False, "ply": ply, "error": str(error)}
        raise  # replay() refused a record that plays move by move: a bug in the game
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
        out.write(result_line(result))
        out.flush()
        count += 1
    return count


def replay_stream(source: BinaryIO, out: TextIO) -> int:
    """:func:`replay_lines` on a byte stream, taken as it arrives.

    Each read takes what is there (up to 64 KiB); the result lines of every whole line read
    so far are written and flushed together, so a program that sends one record and waits
    gets its answer at once, and a file of records costs one write per read, not per line.
    Lines end at ``\n``, ``\r\n`` or ``\r``, as for a text stream.
    """
    read = getattr(source, "read1", source.read)
    count = 0
    pending = b""
    while True:
        chunk = read(1 << 16)
        pending += chunk
        cut = len(pending) if not chunk else pending.rfind(b"\n") + 1
        if cut:
            text = pending[:cut].decode("utf-8", "replace")
            pending = pending[cut:]
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = [result_line(r) for r in results_per_line(text.split("\n"), replay_record)]
            out.write("".join(lines))
            out.flush()
            count += len(lines)
        if not chunk:
            return count


_JSON_PLAYER = {None: "null", "red": '"red"', "blue": '"blue"'}


def result_line(result: dict[str, Any]) -> str:
    """``json.dumps(result)`` and a newline; written directly for a replayed record, which
    is most lines (json.dumps costs more than replaying a whole 5x5 record at once)."""
    if len(result) == 6 and result["ok"] is True:  # the keys of replay_record, in its order
        outcome, score, moves = result["outcome"], result["score"], result["legal_moves"]
        plies, red, blue = result["plies"], score["red"], score["blue"]
        if type(plies) is int and type(red) is int and type(blue) is int:  # not bool
            return (
                f'{{"ok": true, "plies": {plies}, "to_move": {_JSON_PLAYER[result["to_move"]]}, '
                f'"outcome": {"null" if outcome is None else _winner_json(outcome)}, '
                f'"score": {{"red": {red}, "blue": {blue}}}, '
                f'"legal_moves": {json.dumps(moves) if moves else "[]"}}}\n'
            )
    return json.dumps(result) + "\n"


def _winner_json(outcome: dict[str, Any]) -> str:
    return f'{{"winner": {_JSON_PLAYER[outcome["winner"]]}}}'


def replay_file(path: str, out: TextIO) -> bool:
    """Print the final position of a text record as a diagram; False if it does not replay."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = GameRecord.from_text(handle.read())
        game = load(record.game, record.options)
    except (OSError, GameError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return False
    except UnicodeDecodeError as error:  # a traceback before
        print(f"{path}: not UTF-8 text (byte {error.start})", file=sys.stderr)
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
        replay_stream(sys.stdin.buffer, sys.stdout)
        return 0
    ok = all([replay_file(path, sys.stdout) for path in args.records])
    return 0 if ok else 1


def cmd_solve(args: argparse.Namespace) -> int:
    from playtable.ai.solve import solve_lines  # the solver is only loaded when asked for

    if not args.time_limit > 0:  # nan too, which solved without a limit
        print("playtable solve: --time-limit must be positive", file=sys.stderr)
        return 2
    solve_lines(sys.stdin, sys.stdout, args.time_limit)
    return 0


def cmd_atlas(args: argparse.Namespace) -> int:
    from playtable.ai import atlas

    return atlas.run(args)


def __getattr__(name: str) -> Any:
    # RedactLinks lives with logging, which only `serve` needs: `replay` starts without it.
    if name == "RedactLinks":
        from playtable.access_log import RedactLinks

        return RedactLinks
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the site with uvicorn; the database comes from PLAYTABLE_DATABASE_URL."""
    import os

    import uvicorn

    from playtable import logs, preflight, settings
    from playtable.store import DEFAULT_URL

    logs.configure(args.log_level)  # times, levels, sources; no seat token (playtable/logs.py)
    url = args.database_url or os.environ.get("PLAYTABLE_DATABASE_URL") or DEFAULT_URL
    redis_url = args.redis_url or os.environ.get("PLAYTABLE_REDIS_URL") or None
    try:
        # One line for a setting or a database the site cannot run with (playtable/preflight.py).
        lock = preflight.check(url, redis_url)  # held for the process's life
        from playtable.web.app import create_app
        from playtable.web.collector import frozen_after_start_up
        from playtable.web.server import WS_PROTOCOL, GuardedHttpProtocol

        app = create_app(url, redis_url=redis_url)
        compression = settings.flag("PLAYTABLE_WS_COMPRESSION")
    except settings.SettingError as error:
        print(f"playtable: {error}", file=sys.stderr)
        return 2
    uvicorn.run(
        # The start-up's objects out of the collector's full walks (web/collector.py).
        frozen_after_start_up(app),
        host=args.host,
        port=args.port,
        # Above the protocol's 16 KiB so an oversized message gets a readable error instead
        # of a closed connection; far larger frames are still cut off by the server.
        ws_max_size=1024 * 1024,
        # Compression costs tens of KiB of zlib state per connection (and CPU per message);
        # states are small. PLAYTABLE_WS_COMPRESSION=1 turns it on.
        ws_per_message_deflate=compression,
        # The app believes X-Forwarded-* only from PLAYTABLE_TRUSTED_PROXIES (create_app);
        # uvicorn's own default would trust any local peer.
        proxy_headers=False,
        # A request must arrive whole within PLAYTABLE_READ_TIMEOUT seconds, and one address
        # may send PLAYTABLE_PENDING_PER_ADDRESS at once (slow clients, web/server.py).
        http=GuardedHttpProtocol,
        ws=WS_PROTOCOL,
        log_config=None,  # configured above
        log_level=args.log_level,
    )
    if lock is not None:
        lock.close()
    return 0


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    """Bring the database to the newest schema (what each server also does when it starts)."""
    import os

    from playtable.logs import shown_url
    from playtable.preflight import database_ready, database_url
    from playtable.settings import SettingError
    from playtable.store import DEFAULT_URL

    url = args.database_url or os.environ.get("PLAYTABLE_DATABASE_URL") or DEFAULT_URL
    try:
        database_url(url)
        database_ready(url)
    except SettingError as error:
        print(f"playtable: {error}", file=sys.stderr)
        return 2
    # No password, in the user part or the query (?password=...), as the server's log shows it.
    print(f"database at head: {shown_url(url)}")
    return 0


def cmd_db_downgrade(args: argparse.Namespace) -> int:
    """Bring the database back to an older schema, for an older release to start on it."""
    import asyncio
    import os

    import sqlalchemy as sa
    from alembic.util import CommandError

    from playtable.logs import shown_url
    from playtable.preflight import database_url, serve_alone, sqlite_file
    from playtable.settings import SettingError
    from playtable.store import DEFAULT_URL, downgrade
    from playtable.store.engines import DowngradeRefused, SchemaTooNew

    url = args.database_url or os.environ.get("PLAYTABLE_DATABASE_URL") or DEFAULT_URL
    try:
        path = sqlite_file(database_url(url))
        if path is not None and not path.exists():
            raise SettingError(f"there is no database at {path}: nothing to bring back")
        # A server still serving the file would run on a schema it does not know.
        try:
            lock = serve_alone(path) if path is not None else None
        except SettingError:
            raise SettingError(
                f"a 'playtable serve' is serving {path}: stop every server first"
            ) from None
        try:
            asyncio.run(downgrade(url, args.revision))
        finally:
            if lock is not None:
                lock.close()
    except (SettingError, SchemaTooNew, DowngradeRefused, CommandError) as error:
        print(f"playtable: {error}", file=sys.stderr)
        return 2
    except (OSError, sa.exc.SQLAlchemyError) as error:
        return _unusable(url, error)
    print(f"database at {args.revision}: {shown_url(url)}")
    return 0


def cmd_db_prune(args: argparse.Namespace) -> int:
    """Remove the tables nobody played, older than ``--days`` (store/prune.py)."""
    import asyncio
    import os
    from datetime import UTC, datetime, timedelta

    import sqlalchemy as sa

    from playtable.logs import shown_url
    from playtable.preflight import database_url
    from playtable.settings import SettingError
    from playtable.store import DEFAULT_URL, Store
    from playtable.store.engines import SchemaTooNew

    url = args.database_url or os.environ.get("PLAYTABLE_DATABASE_URL") or DEFAULT_URL
    before = datetime.now(UTC) - timedelta(days=args.days)

    async def prune() -> list[str]:
        store = Store(url)
        try:
            await store.open()
            return await store.remove_unplayed(before, dry_run=args.dry_run)
        finally:
            await store.close()

    try:
        database_url(url)
        ids = asyncio.run(prune())
    except (SettingError, SchemaTooNew) as error:
        print(f"playtable: {error}", file=sys.stderr)
        return 2
    except (OSError, sa.exc.SQLAlchemyError) as error:
        return _unusable(url, error)
    verb = "would remove" if args.dry_run else "removed"
    print(
        f"{verb} {len(ids)} table(s) nobody played, created before "
        f"{before:%Y-%m-%d %H:%M} UTC: {shown_url(url)}"
    )
    return 0


def _unusable(url: str, error: BaseException) -> int:
    """Say in one line, as `db upgrade` does, why the database at ``url`` cannot be used (no
    password shown); the command's exit status."""
    from playtable.logs import shown_url

    reason = str(getattr(error, "orig", None) or error).splitlines()[0]
    print(f"playtable: the database at {shown_url(url)} cannot be used: {reason}", file=sys.stderr)
    return 2


def _port(text: str) -> int:
    """A TCP port: 99999 listened on 34463 (its remainder by 65536) and said 99999."""
    import argparse

    port = int(text)  # argparse: "invalid port value" for a word
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, not {text}")
    return port


_port.__name__ = "port"


def _days(text: str) -> float:
    """A number of days, at least 1: a table created a minute ago may be about to be played."""
    import argparse

    days = float(text)  # argparse: "invalid days value" for a word
    if not 1 <= days <= 36500:
        raise argparse.ArgumentTypeError(f"must be 1 to 36500, not {text}")
    return days


_days.__name__ = "days"


def build_parser() -> argparse.ArgumentParser:
    import argparse  # only when there is a command line to parse (not for a bare `replay`)

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
        "SQLite file under ./var/ (created when needed). Every setting is an environment "
        "variable (PLAYTABLE_*): docs/deploy.md lists them. The first log line says which "
        "database, bus and secret this process uses.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on")
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
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="the least severe lines logged, the site's and the access log's (default info)",
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
    db_downgrade = db_sub.add_parser(
        "downgrade",
        help="bring the schema back to an older revision (to roll back to an older release)",
        description="Undo the migrations after REVISION (the newest revision the older "
        "release knows: its playtable/store/migrations/versions). What the newer schema's "
        "tables and columns held is dropped; stop every server first.",
    )
    db_downgrade.add_argument("revision", help="the revision to go back to, e.g. 0007")
    db_downgrade.add_argument(
        "--database-url", default=None, help="default: PLAYTABLE_DATABASE_URL, else ./var/"
    )
    db_downgrade.set_defaults(func=cmd_db_downgrade)
    db_prune = db_sub.add_parser(
        "prune",
        help="remove the tables nobody played, after some days",
        description="Remove every table created more than DAYS days ago that holds no move "
        "and did not end (or was aborted), unless another table names it as its rematch; "
        "its seats and analysis go with it. Games with a move are never removed. Safe while "
        "servers run; run it daily (docs/deploy.md).",
    )
    db_prune.add_argument(
        "--days", type=_days, default=30, help="older than this many days (default 30)"
    )
    db_prune.add_argument("--dry-run", action="store_true", help="only count what would be removed")
    db_prune.add_argument(
        "--database-url", default=None, help="default: PLAYTABLE_DATABASE_URL, else ./var/"
    )
    db_prune.set_defaults(func=cmd_db_prune)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words == ["replay"]:  # the filter of JSON Lines, as scripts call it: argparse unneeded
        replay_stream(sys.stdin.buffer, sys.stdout)
        return 0
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
