"""The bots: legal and quick on every board, and the behaviour each level promises."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from playtable.ai import choose_move
from playtable.ai.dots_solver import DotsSolver, plain_value
from playtable.ai.swaptimum_mcts import MCTS
from playtable.games import GameError, load
from playtable.games.dots.game import DotsAndBoxes
from playtable.games.swaptimum import Swaptimum

LIMIT_S = 2.0
# Each grid at its largest size, plus boards the tests can reason about.
BOARDS: list[dict[str, Any]] = [
    {"rows": 12, "cols": 12},
    {"rows": 5, "cols": 5, "start": "icelandic", "misere": True},
    {"grid": "triangle", "size": 10},
    {"grid": "hexagon", "size": 6, "start": "swedish"},
]


def random_moves(name: str, options: dict[str, Any], count: int, seed: int) -> list[str]:
    game = load(name, options)
    rng = random.Random(seed)
    state = game.initial()
    moves: list[str] = []
    while len(moves) < count and game.to_move(state) is not None:
        text = rng.choice(game.legal_move_texts(state))
        state = game.play(state, text)
        moves.append(text)
    return moves


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.parametrize("options", BOARDS, ids=lambda o: "-".join(map(str, o.values())))
def test_dots_bot_legal_and_quick(options: dict[str, Any], level: str) -> None:
    game = load("dots", options)
    total = len(game.legal_moves(game.initial()))
    # The start, and a late position where the hard bot searches in earnest.
    for played in (0, total - 20):
        moves = random_moves("dots", options, played, seed=played)
        start = time.perf_counter()
        text = choose_move("dots", options, moves, level, seed=1, budget_s=0.5)
        assert time.perf_counter() - start < LIMIT_S
        assert text in game.legal_move_texts(game.replay(moves))


def test_easy_takes_an_offered_box_and_gives_none_away() -> None:
    options = {"rows": 2, "cols": 2}
    game = load("dots", options)
    # Red drew three sides of the lower-left box (blue answered elsewhere in between).
    moves = ["a1-b1", "c2-c3", "a1-a2", "b3-c3", "b1-b2"]
    state = game.replay(moves)
    assert game.to_move(state) == "blue"
    for seed in range(5):
        assert choose_move("dots", options, moves, "easy", seed=seed) == "a2-b2"
    # With nothing offered and safe lines left, it never makes a third side.
    moves = ["a1-b1"]
    for seed in range(10):
        text = choose_move("dots", options, moves, "easy", seed=seed)
        after = game.play(game.replay(moves), text)
        board = game.board
        for cell in board.cells:
            drawn = sum(after.drawn >> line & 1 for line in cell.lines)
            assert drawn < 3


def test_easy_plays_misere_to_take_fewer_boxes() -> None:
    """In misère the fewer boxes win: the easy computer leaves an offered box and gives
    boxes away, and so beats a player drawing random lines most of the time (it played the
    normal game and lost every misère game, mostly 9-0 on 3x3)."""
    options = {"rows": 2, "cols": 2, "misere": True}
    moves = ["a1-b1", "c2-c3", "a1-a2", "b3-c3", "b1-b2"]  # the lower-left box is offered
    for seed in range(5):
        assert choose_move("dots", options, moves, "easy", seed=seed) != "a2-b2"
    wins = 0
    for seed in range(40):  # 28 of these 40 won today
        three = {"rows": 3, "cols": 3, "misere": True}
        game = load("dots", three)
        state, rng, played = game.initial(), random.Random(seed), []
        easy = "red" if seed % 2 else "blue"
        while (outcome := game.outcome(state)) is None:
            if game.to_move(state) == easy:
                text = choose_move("dots", three, played, "easy", seed=seed + len(played))
            else:
                text = game.format_move(rng.choice(game.legal_moves(state)))
            state = game.play(state, text)
            played.append(text)
        wins += outcome.winner == easy
    assert wins >= 24


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_stronger_bots_also_take_a_lone_box(level: str) -> None:
    options = {"rows": 2, "cols": 2}
    moves = ["a1-b1", "c2-c3", "a1-a2", "b3-c3", "b1-b2"]
    assert choose_move("dots", options, moves, level, seed=0) == "a2-b2"


@pytest.mark.parametrize(
    "options",
    [
        {"rows": 2, "cols": 3},
        {"rows": 3, "cols": 3},
        {"grid": "triangle", "size": 3},
        {"rows": 2, "cols": 3, "misere": True},
    ],
    ids=lambda o: "-".join(map(str, o.values())),
)
def test_hard_plays_optimal_moves_in_small_endgames(options: dict[str, Any]) -> None:
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    rng = random.Random(4)
    total = len(game.legal_moves(game.initial()))
    for trial in range(6):
        moves = random_moves("dots", options, total - rng.randint(6, 12), seed=trial)
        state = game.replay(moves)
        if game.to_move(state) is None:
            continue
        best = plain_value(game, state.drawn)
        text = choose_move("dots", options, moves, "hard", seed=trial)
        before = state
        after = game.play(state, text)
        claimed = game.claimed_by(before, after)
        child = plain_value(game, after.drawn)
        value = claimed + child if claimed or after.to_move is None else -child
        assert value == best, (moves, text)


@pytest.mark.parametrize(
    ("options", "moves"),
    [
        ({"rows": 3, "cols": 3}, ["c2-d2", "d2-d3", "b3-b4", "b3-c3", "c3-c4", "b4-c4"]),
        ({"grid": "triangle", "size": 4}, ["a1-c1", "c1-e1"]),
    ],
    ids=["3x3", "triangle4"],
)
def test_hard_keeps_the_proved_value_on_small_boards_from_the_opening(
    options: dict[str, Any], moves: list[str]
) -> None:
    """Small boards prove in well under a second from their first moves: the hard computer
    plays a move that keeps the proved value (a review: c1-c2 here turned +4 into +2 on 3x3,
    g3-f4 turned 0 into -6 on the triangle, the middle-game heuristic choosing)."""
    game = load("dots", options)
    assert isinstance(game, DotsAndBoxes)
    solver = DotsSolver(game)
    state = game.replay(moves)
    best = solver.solve(state, time_limit=30, deepening=False).value
    for seed in range(2):
        # a budget no busy machine exhausts: what is tested is the move once the proof fits
        # (under load the default 1.4 s of wall time missed the triangle's proof now and then)
        chosen = choose_move("dots", options, moves, "hard", seed=seed, budget_s=10)
        after = game.play(state, chosen)
        claimed = game.claimed_by(state, after)
        child = solver.solve(after, time_limit=30, deepening=False).value
        assert (claimed + child if after.to_move == state.to_move else claimed - child) == best


def test_swaptimum_bots_legal_and_quick_on_9x9() -> None:
    options = {"size": 9}
    game = load("swaptimum", options)
    for level in ("easy", "medium", "hard"):
        for played in (0, 30):
            moves = random_moves("swaptimum", options, played, seed=played)
            start = time.perf_counter()
            text = choose_move("swaptimum", options, moves, level, seed=2, budget_s=0.5)
            assert time.perf_counter() - start < LIMIT_S
            assert text in game.legal_move_texts(game.replay(moves))


def test_mcts_finds_an_immediate_win() -> None:
    # Red has a1..a4 of column a on a 5x5 board (rows 1-4); a5 joins row 1 to row 5.
    options = {"size": 5}
    moves = ["a1", "e1", "a2", "e2", "a3", "e3", "a4", "d5"]
    game = load("swaptimum", options)
    state = game.replay(moves)
    assert game.to_move(state) == "red"
    for level in ("easy", "hard"):
        text = choose_move("swaptimum", options, moves, level, seed=3, budget_s=0.5)
        assert game.play(state, text).winner == "red"


def test_mcts_blocks_a_threat() -> None:
    # Red has a1..a4: a5 would join row 1 to row 5. Blue, to move, must take a5.
    options = {"size": 5}
    moves = ["a1", "e1", "a2", "e2", "a3", "d3", "a4"]
    game = load("swaptimum", options)
    assert isinstance(game, Swaptimum)
    state = game.replay(moves)
    assert game.to_move(state) == "blue"
    mcts = MCTS(game, random.Random(0))
    assert mcts.immediate_win(game.play(state, "b1")) is not None  # a careless move loses
    text = choose_move("swaptimum", options, moves, "hard", seed=3, budget_s=1.0)
    assert mcts.immediate_win(game.play(state, text)) is None


# A 9x9 game of random play (a review): red threatens d6 three ways (d6:c4-d5, d6:c5-d6,
# d6:e6-f7); only blue's d6 stops them all, and the playouts preferred f6.
LATE_9X9 = [
    "e4",
    "a8",
    "h4",
    "a1",
    "h7",
    "a2",
    "h8",
    "d9",
    "e2",
    "e9",
    "b2",
    "f8",
    "c5",
    "d2",
    "f5",
    "b5",
    "f4",
    "d5",
    "f7",
    "i6",
    "e5",
    "i5",
    "c9",
    "c4",
    "f2",
    "b6",
    "c7",
    "b9",
    "g1",
    "g7",
    "h5",
    "f1",
    "i3",
    "i4",
    "e7",
    "g9",
    "a9",
    "f9",
    "h3",
    "b1",
    "g8:e7-f8",
    "h1",
    "d8",
    "g4",
    "d4:b5-c5",
    "i2",
    "g3",
    "f3:f4-g4",
    "c6:b5-c4",
    "g6",
    "b8:a9-b9",
    "h6",
    "a5",
    "g2:g2-g3",
    "a6",
    "c3",
    "b7",
    "e6",
    "e3",
]


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_medium_and_hard_stop_a_win_in_one_the_playouts_miss(level: str) -> None:
    options = {"size": 9}
    game = load("swaptimum", options)
    assert isinstance(game, Swaptimum)
    state = game.replay(LATE_9X9)
    assert game.to_move(state) == "blue"
    mcts = MCTS(game, random.Random(0))
    assert mcts.immediate_win(game.play(state, "f6")) is not None
    for seed in range(3):
        text = choose_move("swaptimum", options, LATE_9X9, level, seed=seed, budget_s=0.5)
        assert mcts.immediate_win(game.play(state, text)) is None, text


def test_the_guard_blocks_a_win_in_one_even_when_its_time_is_up() -> None:
    """On a busy machine (CI under load) the search used the whole budget, the guard found
    its deadline passed before it tried the block, and the bot played f6, after which red
    wins at once."""
    game = load("swaptimum", {"size": 9})
    assert isinstance(game, Swaptimum)
    state = game.replay(LATE_9X9)
    mcts = MCTS(game, random.Random(0))
    careless = game.parse_move("f6")
    ranked = [careless, *(m for m in game.legal_moves(state) if m != careless)]
    move = mcts.guarded(state, ranked, time.perf_counter() - 1.0)
    assert move is not None and move != careless
    assert mcts.immediate_win(game.apply(state, move)) is None


# A 5x5 game of random play, blue to move: the swap b5:b5-c5 hands red b5 and c5 and with
# them red's chain from row 1 to row 5, so it loses on the spot.
SELF_LOSING_5X5 = ["d2", "e1", "a1", "c4", "b1", "d4", "b2", "e3", "a2", "e5", "c5", "e4", "b4",
                   "c3", "b3"]  # fmt: skip


@pytest.mark.parametrize("first", [True, False])
def test_the_guard_never_picks_a_move_that_completes_the_opponents_chain(first: bool) -> None:
    """The guard took any move that ended the game as safe, so a swap that completed the
    opponent's chain passed its check: among the search's best-ranked moves it lost at once."""
    game = load("swaptimum", {"size": 5})
    assert isinstance(game, Swaptimum)
    state = game.replay(SELF_LOSING_5X5)
    assert game.to_move(state) == "blue"
    losing = game.parse_move("b5:b5-c5")
    assert game.apply(state, losing).winner == "red"
    mcts = MCTS(game, random.Random(0))
    others = [m for m in game.legal_moves(state) if m != losing]
    # Ranked first by the search, or first among the moves that touch red's threat after
    # a careless first choice.
    careless = [m for m in others if mcts.immediate_win(game.apply(state, m)) is not None]
    ranked = [losing, *others] if first else [careless[0], losing, *others]
    move = mcts.guarded(state, ranked, time.perf_counter() + 60)
    assert move is not None and move != losing
    after = game.apply(state, move)
    assert after.winner is None and mcts.immediate_win(after) is None


def test_choose_move_errors() -> None:
    with pytest.raises(ValueError):
        choose_move("dots", {"rows": 2, "cols": 2}, [], "grandmaster")
    with pytest.raises(GameError):
        choose_move("dots", {"rows": 1, "cols": 1}, ["a1-b1", "a1-a2", "b1-b2", "a2-b2"], "easy")
    with pytest.raises(GameError):
        choose_move("chess", {}, [], "easy")
