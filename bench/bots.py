"""Bot matches: each level against the levels below it, the hard Dots and Boxes bot against
a plain greedy player, and against OpenSpiel's MCTS bot. Colours alternate game by game;
results (and the average margin in boxes) are from the first named player's side.

    python bench/bots.py --dots-games 20 --swaptimum-games 100 --openspiel-games 20
    python bench/bots.py --only swaptimum --swaptimum-games 100
    python bench/bots.py --only greedy --greedy-games 100 --greedy-boards 4x4,5x5,6x6 --budget 0.5
    python bench/bots.py --only openspiel --openspiel-boards 5x5 --simulations 10000 \
        --openspiel-games 20 --openspiel-minutes 45
    git worktree add /tmp/base HEAD~3 && cp playtable/ai/_dotscore*.so /tmp/base/playtable/ai/
    python bench/bots.py --only versus --versus /tmp/base --versus-boards 5x5-misere \
        --versus-games 20 --budget 0.5

``--only versus`` plays this checkout's hard bot against the hard bot of another checkout of
the project (``--versus PATH``, named ``base`` in the results), which runs in a child process
of its own with that checkout first on its path: a change to the bot measured against the
code before it, in the same run and on the same seeds.

The greedy player (issue 16) takes every box it is offered, else draws a line that gives no
box away, else the line that gives away the fewest boxes it can see; no chain control, no
double-dealing. It is written out here, apart from the bots, so that a change to the bots'
levels cannot change the yardstick.

OpenSpiel (``pip install -e '.[bench]'``) is needed for the last table only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from typing import Any

from playtable.ai import choose_move
from playtable.ai.dots_middle import greedy_losses
from playtable.games import Game, load
from playtable.games.dots.game import DotsAndBoxes, DotsState

PAIRS = [("medium", "easy"), ("hard", "easy"), ("hard", "medium")]


def greedy_move(game: DotsAndBoxes, state: DotsState, rng: random.Random) -> int:
    """The greedy player's line: a capture, else a line that gives nothing, else the fewest."""
    full = (1 << len(game.board.lines)) - 1
    free = full & ~state.drawn
    captures, safe, sacrifices = [], [], []
    for line in game.legal_moves(state):
        counts = [(free & mask).bit_count() for _, mask in game._line_cells[line]]
        if 1 in counts:
            captures.append(line)
        elif 2 in counts:
            sacrifices.append(line)
        else:
            safe.append(line)
    if captures:
        return rng.choice(captures)
    if safe:
        return rng.choice(safe)
    given = greedy_losses(game, state.drawn, sacrifices)
    fewest = min(given.values())
    return rng.choice([line for line in sacrifices if given[line] == fewest])


# The child of ``--versus``: each line in is one question, each line out the move.
_CHILD = """
import json, sys, time
from playtable.ai import choose_move
for line in sys.stdin:
    q = json.loads(line)
    deadline = time.time() + q["budget"]
    args = (q["name"], q["options"], q["moves"], q["level"], q["seed"], q["budget"])
    move = choose_move(*args, deadline)
    print(json.dumps(move), flush=True)
"""


class OtherCheckout:
    """The bots of another checkout of the project, in a child process of their own."""

    def __init__(self, path: str) -> None:
        environment = dict(os.environ, PYTHONPATH=os.path.abspath(path))
        self.child = subprocess.Popen(
            [sys.executable, "-c", _CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=environment,
            cwd=path,
        )

    def move(
        self, name: str, options: dict[str, Any], moves: list[str], level: str, seed: int, b: float
    ) -> str:
        question = {"name": name, "options": options, "moves": moves, "level": level}
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(json.dumps(dict(question, seed=seed, budget=b)) + "\n")
        self.child.stdin.flush()
        answer: str = json.loads(self.child.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=30)


#: ``level@base`` players: the levels of ``--versus``'s checkout.
OTHERS: dict[str, OtherCheckout] = {}


def play(
    name: str, options: dict[str, Any], red: str, blue: str, seed: int, budget: float
) -> tuple[str | None, float, int, list[str]]:
    """One game between two levels ("greedy" is the greedy player above); (winning colour
    or None, the slowest bot move in seconds, red's boxes minus blue's, the moves)."""
    game: Game[Any, Any, Any] = load(name, options)
    state = game.initial()
    moves: list[str] = []
    slowest = 0.0
    rng = random.Random(seed)
    while game.to_move(state) is not None:
        level = red if game.to_move(state) == "red" else blue
        start = time.perf_counter()
        if level == "greedy":
            assert isinstance(game, DotsAndBoxes)
            text = game.format_move(greedy_move(game, state, rng))
        elif "@" in level:
            own, _, where = level.partition("@")
            text = OTHERS[where].move(name, options, moves, own, seed + len(moves), budget)
            slowest = max(slowest, time.perf_counter() - start)
        else:
            # As the table service does: the deadline counts from the start of the turn.
            text = choose_move(
                name, options, moves, level, seed + len(moves), budget, time.time() + budget
            )
            slowest = max(slowest, time.perf_counter() - start)
        state = game.play(state, text)
        moves.append(text)
    outcome = game.outcome(state)
    assert outcome is not None
    score = game.score(state)
    margin = 0 if score is None else score[0] - score[1]
    return outcome.winner, slowest, margin, moves


def match(
    name: str, options: dict[str, Any], first: str, second: str, games: int, budget: float
) -> str:
    wins = draws = losses = 0
    slowest = 0.0
    margins: list[int] = []
    start = time.perf_counter()
    for i in range(games):
        red, blue = (first, second) if i % 2 == 0 else (second, first)
        winner, slow, margin, moves = play(name, options, red, blue, seed=1000 * i, budget=budget)
        slowest = max(slowest, slow)
        # From the first named level's side, in boxes it did better by (misère: fewer).
        better = -margin if options.get("misere") else margin
        margins.append(better if i % 2 == 0 else -better)
        print(
            f"  game {i + 1}: {red} (red) vs {blue} (blue): {winner} ({margin:+d} for red)",
            file=sys.stderr,
            flush=True,
        )
        if winner is None:
            draws += 1
        elif (winner == "red") == (i % 2 == 0):
            wins += 1
        else:
            losses += 1
        if winner is None or (winner == "red") != (i % 2 == 0):
            # The first named level did not win: its game, to look into.
            print(f"    moves: {' '.join(moves)}", file=sys.stderr, flush=True)
    board = ",".join(f"{k}={v}" for k, v in options.items())
    average = sum(margins) / len(margins) if margins and name == "dots" else 0.0
    closest = min(margins) if margins and name == "dots" else 0
    return (
        f"| {name} {board} | {first} vs {second} | {games} | {wins} | {draws} | {losses} "
        f"| {average:+.2f} | {closest:+d} | {slowest:.2f} | {time.perf_counter() - start:.0f} |"
    )


def openspiel_match(
    rows: int, cols: int, games: int, simulations: int, budget: float, minutes: float = 0.0
) -> str:
    """The hard bot against OpenSpiel's MCTS bot (random rollouts, solver on): ``games``
    games, or fewer if ``minutes`` (when given) have passed before the next one starts."""
    import pyspiel

    options = {"rows": rows, "cols": cols}
    game = load("dots", options)
    spiel = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    # OpenSpiel names lines h(r,c) and v(r,c) by dot row and column; our names use the
    # same numbers (row from the bottom instead of the top: a reflection, same game).
    to_action: dict[str, int] = {}
    probe = spiel.new_initial_state()
    for action in probe.legal_actions():
        kind, r, c = probe.action_to_string(action)[3:-1].split(",")
        r_, c_ = int(r), int(c)
        a = f"{chr(97 + c_)}{r_ + 1}"
        b = f"{chr(98 + c_)}{r_ + 1}" if kind == "h" else f"{chr(97 + c_)}{r_ + 2}"
        to_action[f"{a}-{b}"] = action
    from_action = {v: k for k, v in to_action.items()}
    wins = draws = losses = 0
    margins: list[int] = []
    began = time.perf_counter()
    for i in range(games):
        if minutes and time.perf_counter() - began > 60 * minutes:
            break
        # OpenSpiel's own C++ MCTS (the Python one is the same search, 20 to 40 times
        # slower): uct_c 2, one random rollout a leaf, at most 1,000 MB of tree, solver on.
        bot = pyspiel.MCTSBot(
            spiel, pyspiel.RandomRolloutEvaluator(1, i), 2.0, simulations, 1000, True, i, False
        )
        ours = "red" if i % 2 == 0 else "blue"
        state = game.initial()
        spiel_state = spiel.new_initial_state()
        moves: list[str] = []
        while game.to_move(state) is not None:
            if game.to_move(state) == ours:
                deadline = time.time() + budget
                text = choose_move("dots", options, moves, "hard", i, budget, deadline)
                action = to_action[text]
            else:
                action = bot.step(spiel_state)
                text = from_action[action]
            spiel_state.apply_action(action)
            state = game.play(state, text)
            moves.append(text)
        outcome = game.outcome(state)
        assert outcome is not None and spiel_state.is_terminal()
        red, blue = game.score(state)
        margins.append(red - blue if ours == "red" else blue - red)
        print(
            f"  game {i + 1}: hard plays {ours}: {outcome.winner} ({margins[-1]:+d} for hard)",
            file=sys.stderr,
            flush=True,
        )
        if outcome.winner is None:
            draws += 1
        elif outcome.winner == ours:
            wins += 1
        else:
            losses += 1
        if outcome.winner != ours:
            print(f"    moves: {' '.join(moves)}", file=sys.stderr, flush=True)
    label = f"hard vs OpenSpiel MCTS {simulations}"
    average = sum(margins) / max(len(margins), 1)
    return (
        f"| dots {rows}x{cols} | {label} | {len(margins)} | {wins} | {draws} | {losses} "
        f"| {average:+.2f} | {min(margins, default=0):+d} | {time.perf_counter() - began:.0f} |"
    )


def board_options(text: str) -> dict[str, Any]:
    """``3x3`` or ``3x3-misere`` as Dots and Boxes options."""
    size, _, variant = text.partition("-")
    rows, cols = (int(n) for n in size.split("x"))
    options: dict[str, Any] = {"rows": rows, "cols": cols}
    if variant == "misere":
        options["misere"] = True
    elif variant:
        raise SystemExit(f"unknown board variant {variant!r}")
    return options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dots-games", type=int, default=20)
    parser.add_argument("--swaptimum-games", type=int, default=100)
    parser.add_argument("--openspiel-games", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument(
        "--openspiel-minutes",
        type=float,
        default=0.0,
        help="start no OpenSpiel game after this many minutes (0: no limit)",
    )
    parser.add_argument("--budget", type=float, default=1.4, help="seconds per bot move")
    parser.add_argument("--only", choices=["dots", "swaptimum", "openspiel", "greedy", "versus"])
    parser.add_argument("--versus", metavar="PATH", help="another checkout, for --only versus")
    parser.add_argument("--versus-games", type=int, default=20)
    parser.add_argument("--versus-boards", default="5x5-misere", help="boards for --only versus")
    parser.add_argument("--greedy-games", type=int, default=100)
    parser.add_argument("--greedy-boards", default="4x4,5x5,6x6", help="boards for hard-greedy")
    parser.add_argument(
        "--openspiel-boards", default="3x3,4x4", help="boards for hard against OpenSpiel"
    )
    parser.add_argument(
        "--pairs", default="all", help="comma list such as hard-easy (default: every pair)"
    )
    parser.add_argument(
        "--dots-boards",
        default="3x3,4x4",
        help="comma list of Dots and Boxes boards, RxC with an optional -misere",
    )
    args = parser.parse_args(argv)
    random.seed(0)
    pairs = PAIRS
    if args.pairs != "all":
        pairs = [tuple(p.split("-")) for p in args.pairs.split(",")]  # type: ignore[misc]
    header = (
        "| game | match | games | wins | draws | losses | average margin | worst margin "
        "| slowest move s | total s |"
    )
    rule = "|---|---|---|---|---|---|---|---|---|---|"
    if args.only in (None, "swaptimum"):
        print(header, rule, sep="\n", flush=True)
        for first, second in pairs:
            print(
                match("swaptimum", {"size": 7}, first, second, args.swaptimum_games, args.budget),
                flush=True,
            )
    if args.only in (None, "dots"):
        print(header, rule, sep="\n", flush=True)
        for options in map(board_options, args.dots_boards.split(",")):
            for first, second in pairs:
                print(
                    match("dots", options, first, second, args.dots_games, args.budget), flush=True
                )
    if args.only in (None, "greedy"):
        print(header, rule, sep="\n", flush=True)
        for options in map(board_options, args.greedy_boards.split(",")):
            print(
                match("dots", options, "hard", "greedy", args.greedy_games, args.budget),
                flush=True,
            )
    if args.only == "versus":
        if not args.versus:
            raise SystemExit("--only versus needs --versus PATH (another checkout)")
        OTHERS["base"] = OtherCheckout(args.versus)
        try:
            print(header, rule, sep="\n", flush=True)
            for options in map(board_options, args.versus_boards.split(",")):
                print(
                    match("dots", options, "hard", "hard@base", args.versus_games, args.budget),
                    flush=True,
                )
        finally:
            OTHERS.pop("base").close()
        return 0
    if args.only in (None, "openspiel"):
        print(
            "| game | match | games | wins | draws | losses | average margin | worst margin "
            "| total s |",
            "|---|---|---|---|---|---|---|---|---|",
            sep="\n",
        )
        for board in args.openspiel_boards.split(","):
            rows, cols = (int(n) for n in board.split("x"))
            print(
                openspiel_match(
                    rows,
                    cols,
                    args.openspiel_games,
                    args.simulations,
                    args.budget,
                    args.openspiel_minutes,
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
