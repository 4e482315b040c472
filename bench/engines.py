"""Random playouts per second of our rules engines, and of OpenSpiel's C++ Dots and Boxes.

    python bench/engines.py [--seconds S] [--seed N] [--rounds K] [--compiled]

Each engine plays uniformly random games from the initial position to the end, through the
same loop a bot or the server would use: list the legal moves, pick one with
``random.choice``, apply it, ask whether the game is over. Ours goes through the public
:class:`~playtable.games.base.Game` API (``legal_moves`` / ``apply`` / ``outcome``);
OpenSpiel's ``dots_and_boxes`` goes through ``pyspiel`` (``legal_actions`` /
``apply_action`` / ``is_terminal``). Both loops bind the methods to locals once, so
neither side pays for attribute lookups the other does not.

The time budget of each engine is split into ``--rounds`` slices that alternate between
the engines, so a slow drift of the machine (frequency scaling, a noisy neighbour) hurts
both sides alike. Before timing anything, the script checks that both engines play the same
game: the same 60 lines on the 5x5-box board, and random games replayed move by move in
both engines agree on the legal moves, the player to move and the final margin.

With ``--compiled`` it first builds the mypyc-compiled Dots and Boxes engine into a temporary
directory (``bench/compiled.py``, as ``PLAYTABLE_COMPILE=1 pip install .`` does), then runs
there with one more engine: the pure-Python one, loaded from this work tree's source. The
compiled, the pure-Python and OpenSpiel's engines then share the same alternating slices, and
the agreement checks run on both of ours.

Output is plain text, one figure per line, so any line can be quoted as it stands.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import playtable
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import playtable

from playtable.games import Game, load
from playtable.games.dots import game as dots_module
from playtable.games.dots.game import DotsAndBoxes

ROOT = Path(__file__).resolve().parents[1]

ROWS = COLS = 5  # boxes, as in our rules file and in OpenSpiel's num_rows/num_cols
SWAPTIMUM_SIZE = 9
# The commit before Swaptimum's random_move and one-chain connection test (issue 12).
SWAPTIMUM_BASELINE = "b9d1c26"
MIN_SECONDS, MAX_SECONDS = 0.05, 120.0
CHECK_GAMES = 200
# CPU time of this process, not wall time: on a shared machine another process taking the
# core would otherwise count against whichever engine happened to be running. Both engines
# run single-threaded in this process, so CPU time is their whole cost.
CLOCK = time.process_time

# A playout function plays random games for about `seconds` and returns (games, moves).
Playouts = Callable[[random.Random, float], tuple[int, int]]


@dataclass
class Tally:
    label: str
    playouts: int = 0
    moves: int = 0
    seconds: float = 0.0

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds else 0.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0


# -- the loops -----------------------------------------------------------------------------------


def ours(game: Game[Any, Any, Any]) -> Playouts:
    """Random playouts of one of our games through the public Game API."""

    def run(rng: random.Random, seconds: float) -> tuple[int, int]:
        initial, legal_moves, apply, outcome = (
            game.initial,
            game.legal_moves,
            game.apply,
            game.outcome,
        )
        choice, clock = rng.choice, CLOCK
        games = moves = 0
        end = clock() + seconds
        while True:
            state = initial()
            while outcome(state) is None:
                state = apply(state, choice(legal_moves(state)))
                moves += 1
            games += 1
            if clock() >= end:
                return games, moves

    return run


def sampled(game: Game[Any, Any, Any]) -> Playouts:
    """Random playouts through ``random_move`` (one legal move drawn uniformly, none listed)."""

    def run(rng: random.Random, seconds: float) -> tuple[int, int]:
        initial, random_move, apply, outcome = (
            game.initial,
            game.random_move,
            game.apply,
            game.outcome,
        )
        clock = CLOCK
        games = moves = 0
        end = clock() + seconds
        while True:
            state = initial()
            while outcome(state) is None:
                state = apply(state, random_move(state, rng))
                moves += 1
            games += 1
            if clock() >= end:
                return games, moves

    return run


def openspiel(spiel_game: Any) -> Playouts:
    """Random playouts of an OpenSpiel game, the same loop driven through pyspiel."""

    def run(rng: random.Random, seconds: float) -> tuple[int, int]:
        new_initial_state = spiel_game.new_initial_state
        choice, clock = rng.choice, CLOCK
        games = moves = 0
        end = clock() + seconds
        while True:
            state = new_initial_state()
            legal_actions, apply_action, is_terminal = (
                state.legal_actions,
                state.apply_action,
                state.is_terminal,
            )
            while not is_terminal():
                apply_action(choice(legal_actions()))
                moves += 1
            games += 1
            if clock() >= end:
                return games, moves

    return run


# -- apples to apples ----------------------------------------------------------------------------


def openspiel_actions(game: DotsAndBoxes) -> list[int]:
    """OpenSpiel's action id of each of our lines on the square grid.

    OpenSpiel numbers the horizontal lines first, row by row from the TOP, then the vertical
    ones, also from the top (``dots_and_boxes.h``: (rows+1)*cols + rows*(cols+1) actions);
    our rows count from the bottom.
    """
    board = game.board
    rows, cols = board.dimensions
    actions = []
    for line in board.lines:
        a, b = board.dots[line.a], board.dots[line.b]
        if a.row == b.row:
            actions.append((rows - a.row) * cols + a.col)
        else:
            actions.append((rows + 1) * cols + (rows - 1 - a.row) * (cols + 1) + a.col)
    if sorted(actions) != list(range(len(board.lines))):
        raise AssertionError("the line -> OpenSpiel action table is not a bijection")
    return actions


def check_same_game(game: DotsAndBoxes, pyspiel: Any, seed: int) -> list[str]:
    """Replay random games in both engines move by move; return what was checked."""
    margin_game = pyspiel.load_game(
        f"dots_and_boxes(num_rows={ROWS},num_cols={COLS},utility_margin=true)"
    )
    to_action = openspiel_actions(game)
    rng = random.Random(seed)
    lengths = set()
    for _ in range(CHECK_GAMES):
        state, spiel = game.initial(), margin_game.new_initial_state()
        ply = 0
        while game.outcome(state) is None:
            mover = game.to_move(state)
            ours_legal = sorted(to_action[m] for m in game.legal_moves(state))
            if ours_legal != sorted(spiel.legal_actions()):
                raise AssertionError(f"legal moves differ at ply {ply}")
            if spiel.is_terminal() or spiel.current_player() != ("red", "blue").index(mover):
                raise AssertionError(f"player to move differs at ply {ply}")
            move = rng.choice(game.legal_moves(state))
            state = game.apply(state, move)
            spiel.apply_action(to_action[move])
            ply += 1
        if not spiel.is_terminal():
            raise AssertionError(f"OpenSpiel's game goes on after our last move (ply {ply})")
        red, blue = game.score(state)
        if spiel.returns()[0] != red - blue:
            raise AssertionError(f"final margin differs: ours {red - blue}, {spiel.returns()}")
        lengths.add(ply)
    (length,) = lengths  # every game on this board draws every line
    return [
        f"check: lines on the {ROWS}x{COLS} board: ours {len(game.board.lines)}, "
        f"OpenSpiel {margin_game.num_distinct_actions()} actions",
        f"check: moves in a full game: ours {length}, OpenSpiel {margin_game.max_game_length()}",
        f"check: {CHECK_GAMES} random games replayed in both engines: same legal moves, "
        "same player to move, same end, same final margin",
    ]


def pure_dots_class() -> type[DotsAndBoxes]:
    """DotsAndBoxes run by the interpreter from this work tree's source, beside the compiled one.

    Loaded under another module name, so it does not replace the compiled module; what it
    imports (``base``, ``geometry``) is the same pure-Python code either way.
    """
    name = "playtable.games.dots._bench_pure_game"
    spec = importlib.util.spec_from_file_location(name, ROOT / "playtable/games/dots/game.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while building the class
    spec.loader.exec_module(module)
    if module.COMPILED:
        raise AssertionError("the source module claims to be compiled")
    cls: type[DotsAndBoxes] = module.DotsAndBoxes
    return cls


def module_at(revision: str, path: str, name: str, replace: dict[str, str]) -> types.ModuleType:
    """The module of ``path`` as it was at a git revision, loaded from ``git show`` as
    ``name`` beside today's (``replace``: import lines redirected to other old modules)."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{revision}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for old, new in replace.items():
        source = source.replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = f"{revision}:{path}"
    sys.modules[name] = module  # dataclasses look their module up while building the class
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


OLD_SWAPTIMUM = "playtable.games._bench_swaptimum_before"


def swaptimum_at(revision: str) -> Game[Any, Any, Any]:
    """The 9x9 Swaptimum of ``playtable/games/swaptimum.py`` as it was at a git revision (it
    imports today's ``base``, which only gained methods since)."""
    module = module_at(revision, "playtable/games/swaptimum.py", OLD_SWAPTIMUM, {})
    game: Game[Any, Any, Any] = module.Swaptimum(module.SwaptimumSettings(size=SWAPTIMUM_SIZE))
    return game


def uct_rates(revision: str, seconds: float, rounds: int, seed: int) -> tuple[float, float]:
    """The UCT bot's playouts per CPU second, the bot of ``revision`` (on its own Swaptimum)
    and today's, from the same mid-game 9x9 positions, alternating slices of ``seconds``."""
    from playtable.ai import swaptimum_mcts
    from playtable.games.swaptimum import Swaptimum, SwaptimumSettings

    old_mcts = module_at(
        revision,
        "playtable/ai/swaptimum_mcts.py",
        "playtable.ai._bench_mcts_before",
        {"from playtable.games.swaptimum import": f"from {OLD_SWAPTIMUM} import"},
    )
    old_games = sys.modules[OLD_SWAPTIMUM]
    sides = [
        (old_mcts, old_games.Swaptimum(old_games.SwaptimumSettings(SWAPTIMUM_SIZE)), old_games),
        (
            swaptimum_mcts,
            Swaptimum(SwaptimumSettings(SWAPTIMUM_SIZE)),
            sys.modules[Swaptimum.__module__],
        ),
    ]
    game = sides[1][1]
    rng = random.Random(seed)
    positions = []
    while len(positions) < 6:
        state = game.initial()
        for _ in range(rng.randrange(10, 40)):
            if state.to_move is None:
                break
            state = game.apply(state, game.random_move(state, rng))
        if state.to_move is not None:
            positions.append((state.red, state.blue, state.to_move, state.ply))
    playouts, cpu = [0, 0], [0.0, 0.0]
    slice_ = seconds / rounds / len(positions)
    for _ in range(rounds):
        for k, (mcts, swaptimum, module) in enumerate(sides):
            for red, blue, to_move, ply in positions:
                search = mcts.MCTS(swaptimum, random.Random(seed))
                start = CLOCK()
                search.choose(
                    module.SwaptimumState(red, blue, to_move, ply),
                    10**9,
                    time.perf_counter() + slice_,
                )
                cpu[k] += CLOCK() - start
                playouts[k] += search.last_playouts
    return playouts[0] / cpu[0], playouts[1] / cpu[1]


def check_same_swaptimum(before: Any, after: Any, seed: int) -> str:
    """Random games (drawn by the new sampler) replayed in both engines: the same legal moves
    and the same position after every move."""
    rng = random.Random(seed)
    games = 40
    for _ in range(games):
        old, new = before.initial(), after.initial()
        while True:
            old_moves = {before.format_move(m) for m in before.legal_moves(old)}
            if old_moves != set(after.legal_move_texts(new)):
                raise AssertionError(f"swaptimum: legal moves differ at ply {new.ply}")
            if after.outcome(new) is not None:
                break
            text = after.format_move(after.random_move(new, rng))
            old, new = before.play(old, text), after.play(new, text)
            fields = ("red", "blue", "to_move", "ply", "winner", "skipped", "drawn")
            if any(getattr(old, f) != getattr(new, f) for f in fields):
                raise AssertionError(f"swaptimum: positions differ after {text} (ply {new.ply})")
    return (
        f"check: {games} random swaptimum {SWAPTIMUM_SIZE}x{SWAPTIMUM_SIZE} games replayed in "
        "the engine before and after: same legal moves, same position after every move"
    )


def run_compiled(argv: list[str]) -> int:
    """Build the compiled engine in a temporary directory and run this script there."""
    import compiled  # bench/compiled.py, beside this file

    with compiled.compiled_site() as site:
        command = [sys.executable, str(Path(__file__).resolve()), *argv]
        return subprocess.run(command, env=compiled.compiled_env(site), check=False).returncode


# -- the run ---------------------------------------------------------------------------------------


def measure(engines: list[tuple[Tally, Playouts]], seconds: float, rounds: int, seed: int) -> None:
    """Give each engine `seconds` in `rounds` alternating slices, each engine its own RNG."""
    rngs = [random.Random(seed) for _ in engines]
    for (_, run), rng in zip(engines, rngs, strict=True):
        run(rng, 0.0)  # warm up: first playout builds lazy tables, fills caches
    for _ in range(rounds):
        for (tally, run), rng in zip(engines, rngs, strict=True):
            start = CLOCK()
            games, moves = run(rng, seconds / rounds)
            tally.seconds += CLOCK() - start
            tally.playouts += games
            tally.moves += moves


def _revision() -> str:
    """The git commit of the code measured (the compiled build is made from this work tree
    too), marked when the work tree has changes."""
    root = ROOT
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown revision"
    return f"{head} with uncommitted changes" if dirty else head


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="budget per engine")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="alternating slices")
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="also measure the mypyc-compiled Dots and Boxes engine (builds it first)",
    )
    parser.add_argument(
        "--baseline",
        default=SWAPTIMUM_BASELINE,
        help="git revision of the Swaptimum engine to measure beside today's ('' for none; "
        f"default {SWAPTIMUM_BASELINE}, before random_move)",
    )
    args = parser.parse_args(argv)
    if args.compiled:
        rest = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--compiled"]
        return run_compiled(rest)
    compiled = dots_module.COMPILED
    if os.environ.get("PLAYTABLE_EXPECT_COMPILED") == "1" and not compiled:
        raise SystemExit(f"expected the compiled engine, imported {dots_module.__file__}")
    seconds = min(max(args.seconds, MIN_SECONDS), MAX_SECONDS)
    rounds = min(max(args.rounds, 1), 100)

    try:
        import pyspiel
    except ImportError as error:
        pyspiel = None
        missing = f"open_spiel: not importable ({error}); pip install -e '.[bench]'"

    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    print(f"machine: {platform.machine()} {platform.system()}")
    print(f"playtable: {playtable.__file__} at {_revision()}")
    print(f"dots engine: {dots_module.__file__}")
    if hasattr(os, "getloadavg"):  # others' work on a shared machine skews every figure
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if pyspiel is not None:
        from importlib.metadata import version

        print(f"open_spiel: {version('open_spiel')}")
    else:
        print(missing)
    print(
        f"budget: {seconds:g} s of CPU time per engine in {rounds} alternating slices, "
        f"seed {args.seed}"
    )

    dots_options = {"rows": ROWS, "cols": COLS}
    dots = load("dots", dots_options)
    assert isinstance(dots, DotsAndBoxes)
    # Ours: the engine imported; with the compiled one, the pure-Python one beside it.
    ours_dots: list[tuple[Tally, DotsAndBoxes]] = []
    if compiled:
        ours_dots.append((Tally(f"dots {ROWS}x{COLS} ours compiled"), dots))
        pure_class = pure_dots_class()  # not a subclass of the compiled DotsAndBoxes
        pure = pure_class(pure_class.parse_settings(dots_options))
        ours_dots.append((Tally(f"dots {ROWS}x{COLS} ours pure"), pure))
    else:
        ours_dots.append((Tally(f"dots {ROWS}x{COLS} ours"), dots))
    engines: list[tuple[Tally, Playouts]] = [(tally, ours(game)) for tally, game in ours_dots]
    spiel_dots = None
    if pyspiel is not None:
        for tally, game in ours_dots:
            for line in check_same_game(game, pyspiel, args.seed):
                print(f"{line} ({tally.label})" if compiled else line)
        spiel_game = pyspiel.load_game(f"dots_and_boxes(num_rows={ROWS},num_cols={COLS})")
        spiel_dots = Tally(f"dots {ROWS}x{COLS} openspiel")
        engines.append((spiel_dots, openspiel(spiel_game)))
    board = f"swaptimum {SWAPTIMUM_SIZE}x{SWAPTIMUM_SIZE}"
    swaptimum = load("swaptimum", {"size": SWAPTIMUM_SIZE})
    swap_before = None
    if args.baseline:
        before = swaptimum_at(args.baseline)
        print(check_same_swaptimum(before, swaptimum, args.seed))
        swap_before = Tally(f"{board} before ({args.baseline}), listing")
        engines.append((swap_before, ours(before)))
    swap_listing = Tally(f"{board} ours, listing")
    swap_sampled = Tally(f"{board} ours, random_move")
    engines.append((swap_listing, ours(swaptimum)))
    engines.append((swap_sampled, sampled(swaptimum)))

    measure(engines, seconds, rounds, args.seed)

    width = max(len(tally.label) for tally, _ in engines)
    print()
    print(
        f"{'engine':<{width}}  {'playouts':>9}  {'moves':>9}  {'cpu s':>7}  "
        f"{'playouts/s':>10}  {'moves/s':>10}  {'moves/game':>10}"
    )
    for tally, _ in engines:
        print(
            f"{tally.label:<{width}}  {tally.playouts:>9}  {tally.moves:>9}  "
            f"{tally.seconds:>7.2f}  {tally.playouts_per_second:>10.0f}  "
            f"{tally.moves_per_second:>10.0f}  {tally.moves / max(tally.playouts, 1):>10.1f}"
        )
    print()
    for tally, _ in engines:
        print(f"{tally.label} playouts/s: {tally.playouts_per_second:.0f}")
        print(f"{tally.label} moves/s: {tally.moves_per_second:.0f}")
    if spiel_dots is not None:
        for tally, _ in ours_dots:
            ratio = tally.playouts_per_second / spiel_dots.playouts_per_second
            print(f"ratio {tally.label}/openspiel playouts/s: {ratio:.2f}")
    else:
        print(f"ratio dots {ROWS}x{COLS} ours/openspiel: not measured (open_spiel missing)")
    if swap_before is not None:
        for tally in (swap_listing, swap_sampled):
            ratio = tally.playouts_per_second / swap_before.playouts_per_second
            print(f"ratio {tally.label}/before playouts/s: {ratio:.2f}")
        before, after = uct_rates(args.baseline, seconds, rounds, args.seed)
        print(
            f"{board} UCT bot (ai/swaptimum_mcts.py) playouts/s, {rounds} alternating slices "
            f"from 6 mid-game positions: before ({args.baseline}) {before:.0f}, ours {after:.0f}"
        )
        print(f"ratio {board} UCT bot playouts/s ours/before: {after / before:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
