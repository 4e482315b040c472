"""Swaptimum: hand-built positions checked against hand-derived answers, and the engine checked
against a deliberately naive whole-board implementation of the rules written here."""

from __future__ import annotations

import doctest
import itertools
import os
import random
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playtable.games import swaptimum as swaptimum_module
from playtable.games.base import IllegalMove, NotationError, Outcome, Player, SettingsError
from playtable.games.swaptimum import Swaptimum, SwaptimumMove, SwaptimumSettings, SwaptimumState

GAMES = {n: Swaptimum(SwaptimumSettings(size=n)) for n in range(2, 10)}


# -- helpers -----------------------------------------------------------------------------------
def position(picture: str, to_move: Player = "red") -> tuple[Swaptimum, SwaptimumState]:
    """A game and state from a picture: rank N first, ``R``/``B``/``.``, spaces ignored."""
    rows = [line.replace(" ", "") for line in textwrap.dedent(picture).strip().splitlines()]
    n = len(rows)
    assert all(len(row) == n for row in rows), picture
    red = blue = 0
    for top, row in enumerate(rows):
        for col, cell in enumerate(row):
            bit = 1 << ((n - 1 - top) * n + col)
            if cell == "R":
                red |= bit
            elif cell == "B":
                blue |= bit
            else:
                assert cell == ".", cell
    cells = naive_cells(n, red, blue)
    assert not naive_crosscuts(n, cells), "a test position must hold no crosscut"
    state = SwaptimumState(red, blue, to_move, ply=bin(red | blue).count("1"))
    return GAMES[n] if n in GAMES else Swaptimum(SwaptimumSettings(n)), state


def texts(game: Swaptimum, state: SwaptimumState, square: str | None = None) -> list[str]:
    moves = game.legal_move_texts(state)
    if square is None:
        return moves
    return [m for m in moves if m.split(":")[0] == square]


# -- the naive reference: lists of cells and whole-board scans, straight from the rules ---------
def naive_cells(n: int, red: int, blue: int) -> list[str]:
    return ["R" if red >> i & 1 else "B" if blue >> i & 1 else "." for i in range(n * n)]


def naive_name(n: int, square: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[square % n] + str(square // n + 1)


def naive_block(n: int, corner: int) -> list[int]:
    return [corner, corner + 1, corner + n, corner + n + 1]


def naive_crosscuts(n: int, cells: list[str]) -> list[int]:
    """Corners of the 2x2 blocks holding two red and two blue, like colours diagonally opposite."""
    found = []
    for row in range(n - 1):
        for col in range(n - 1):
            a, b, c, d = (cells[i] for i in naive_block(n, row * n + col))
            if "." not in (a, b, c, d) and a == d and b == c and a != b:
                found.append(row * n + col)
    return found


def naive_adjacent(n: int, s: int, t: int) -> bool:
    return s != t and abs(s // n - t // n) <= 1 and abs(s % n - t % n) <= 1


def naive_legal(n: int, red: int, blue: int, player: str) -> set[str]:
    """Every legal move text, by the letter: rules a. and b. for each crosscut just formed."""
    cells = naive_cells(n, red, blue)
    before = set(naive_crosscuts(n, cells))
    colour = "R" if player == "red" else "B"
    legal: set[str] = set()
    for square in range(n * n):
        if cells[square] != ".":
            continue
        placed = list(cells)
        placed[square] = colour
        formed = [c for c in naive_crosscuts(n, placed) if c not in before]
        if not formed:
            legal.add(naive_name(n, square))
            continue
        for corner in formed:
            block = naive_block(n, corner)
            for first in block:
                for second in range(n * n):
                    in_block = second in block and second != first
                    if not (in_block or naive_adjacent(n, first, second)):
                        continue
                    if placed[second] == "." or placed[second] == placed[first]:
                        continue
                    swapped = list(placed)
                    swapped[first], swapped[second] = placed[second], placed[first]
                    if naive_crosscuts(n, swapped):
                        continue
                    pair = sorted((first, second), key=lambda s: (s % n, s // n))
                    names = [naive_name(n, s) for s in pair]
                    legal.add(f"{naive_name(n, square)}:{names[0]}-{names[1]}")
    return legal


def naive_connected(n: int, cells: list[str], colour: str) -> bool:
    """Plain BFS: red from rank 1 to rank N, blue from file a to the last file."""
    if colour == "R":
        frontier = [i for i in range(n) if cells[i] == "R"]
    else:
        frontier = [i * n for i in range(n) if cells[i * n] == "B"]
    seen = set(frontier)
    while frontier:
        square = frontier.pop()
        if (colour == "R" and square // n == n - 1) or (colour == "B" and square % n == n - 1):
            return True
        row, col = divmod(square, n)
        for r, c in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
            nxt = r * n + c
            if 0 <= r < n and 0 <= c < n and cells[nxt] == colour and nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


def random_playout_state(rng: random.Random, n: int) -> SwaptimumState:
    """A position reached by random play, stopped at a random ply before the end."""
    game = GAMES[n]
    state = game.initial()
    for _ in range(rng.randrange(n * n)):
        nxt = game.apply(state, rng.choice(game.legal_moves(state)))
        if game.outcome(nxt) is not None:
            break
        state = nxt
    return state


def random_filled_state(rng: random.Random, n: int) -> SwaptimumState:
    """A random crosscut-free board (not necessarily reachable), either side to move."""
    red = blue = 0
    squares = list(range(n * n))
    rng.shuffle(squares)
    game = GAMES[n]
    for square in squares[: rng.randrange(n * n)]:
        if rng.random() < 0.5:
            if not game._crosscuts(red | 1 << square, blue):
                red |= 1 << square
        elif not game._crosscuts(red, blue | 1 << square):
            blue |= 1 << square
    return SwaptimumState(red, blue, rng.choice(("red", "blue")))


def random_state(rng: random.Random, n: int) -> SwaptimumState:
    if rng.random() < 0.5:
        return random_playout_state(rng, n)
    return random_filled_state(rng, n)


def play_random_game(game: Swaptimum, rng: random.Random) -> list[SwaptimumState]:
    states = [game.initial()]
    while game.outcome(states[-1]) is None:
        states.append(game.apply(states[-1], rng.choice(game.legal_moves(states[-1]))))
    return states


# -- settings ----------------------------------------------------------------------------------
def test_settings_default_and_round_trip() -> None:
    assert Swaptimum.parse_settings({}) == SwaptimumSettings(size=9)
    game = Swaptimum.from_options({"size": 13})
    assert game.options() == {"size": 13}
    assert Swaptimum.from_options(game.options()).options() == {"size": 13}
    assert Swaptimum.parse_settings({"size": 2}).size == 2
    assert Swaptimum.parse_settings({"size": 26}).size == 26


@pytest.mark.parametrize("size", [1, 27, 0, -3, "7", True, False, 7.0, None])
def test_settings_bad_size(size: object) -> None:
    with pytest.raises(SettingsError, match="size must be a whole number from 2 to 26"):
        Swaptimum.parse_settings({"size": size})


def test_settings_unknown_option_is_named() -> None:
    with pytest.raises(SettingsError, match="unknown option 'misere'"):
        Swaptimum.parse_settings({"size": 7, "misere": True})
    with pytest.raises(SettingsError, match="size"):
        Swaptimum(SwaptimumSettings(size=30))


# -- notation ----------------------------------------------------------------------------------
def test_parse_and_format() -> None:
    game = GAMES[9]
    assert game.parse_move("d4") == SwaptimumMove(30)
    assert game.parse_move("d4:c3-d4") == SwaptimumMove(30, (20, 30))
    assert game.parse_move("i9") == SwaptimumMove(80)
    # Board order is column first: a2 comes before b1.
    assert game.format_move(SwaptimumMove(1, (1, 9))) == "b1:a2-b1"
    assert game.format_move(SwaptimumMove(1, (9, 1))) == "b1:a2-b1"
    big = Swaptimum(SwaptimumSettings(26))
    assert big.format_move(big.parse_move("z26:y25-z26")) == "z26:y25-z26"


@pytest.mark.parametrize(
    "text",
    ["z99", "d4:", "d4:c3", "D4 ", "D4", " d4", "d4 ", "d04", "j1", "a10", "a0", "", ":", "d4-c3",
     "d4:c3-", "d4:-c3", "d4:c3-d4:", "d4:c3-d4-e5", "d4:d4-c3", "d4:c3-c3", "d4::c3-d4", "4d"],
)  # fmt: skip
def test_parse_errors(text: str) -> None:
    with pytest.raises(NotationError):
        GAMES[9].parse_move(text)


def test_parse_error_messages_are_readable() -> None:
    game = GAMES[9]
    with pytest.raises(NotationError, match=r"'z99' is not a square of the board \(a1 to i9"):
        game.parse_move("z99")
    with pytest.raises(NotationError, match="board order: c3-d4"):
        game.parse_move("d4:d4-c3")
    with pytest.raises(NotationError, match="A move is a text, not 30"):
        game.parse_move(30)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdijz0123456789:- D", max_size=12))
def test_parse_never_crashes_and_round_trips(text: str) -> None:
    game = GAMES[9]
    try:
        move = game.parse_move(text)
    except NotationError:
        return
    assert game.format_move(move) == text


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.integers(2, 9))
def test_notation_round_trip_for_every_legal_move(seed: int, n: int) -> None:
    game = GAMES[n]
    state = random_state(random.Random(seed), n)
    moves = game.legal_moves(state)
    move_texts = [game.format_move(m) for m in moves]
    assert len(set(move_texts)) == len(moves)
    for move, text in zip(moves, move_texts, strict=True):
        assert game.parse_move(text) == move
        assert game.play(state, text) == game.apply(state, move)
    assert game.legal_move_texts(state) == sorted(move_texts, key=sort_text)


def sort_text(text: str) -> tuple[tuple[int, int], ...]:
    """The documented order: placement by column then row, bare first, then the swap squares."""
    squares = text.replace(":", " ").replace("-", " ").split()
    return tuple((ord(s[0]) - ord("a"), int(s[1:])) for s in squares)


# -- hand-built positions --------------------------------------------------------------------
SINGLE = """
    . B R .
    . R R .
    R B . .
    B . . B
    """


def test_placement_forming_no_crosscut_is_a_complete_move() -> None:
    game, state = position(SINGLE)
    assert texts(game, state, "d4") == ["d4"]
    after = game.play(state, "d4")
    assert after.red == state.red | 1 << 15 and after.blue == state.blue
    assert (after.to_move, after.ply, after.skipped) == ("blue", state.ply + 1, None)
    with pytest.raises(
        IllegalMove, match="A checker on d4 forms no crosscut, so no swap is allowed"
    ):
        game.play(state, "d4:c3-d4")


def test_single_crosscut_swaps_enumerated_by_hand() -> None:
    # Red on b1 makes the crosscut a1 (B) b1 (R) / a2 (R) b2 (B). Candidate pairs: the four
    # unlike pairs inside it, b2 with b3 and b2 with c3 (its red diagonal neighbour). b2-c3
    # makes b3 R, c3 B, b4 B, c4 R: a new crosscut, so it is refused.
    game, state = position(SINGLE)
    assert texts(game, state, "b1") == [
        "b1:a1-a2",
        "b1:a1-b1",
        "b1:a2-b2",
        "b1:b1-b2",
        "b1:b2-b3",
    ]
    with pytest.raises(IllegalMove, match="The swap b2-c3 leaves a crosscut at b3-c4"):
        game.play(state, "b1:b2-c3")
    after = game.play(state, "b1:b2-b3")
    assert game.diagram(after) == (
        " 4 . B R .\n 3 . B R .\n 2 R R . .\n 1 B R . B\n   a b c d\nblue to move"
    )


def test_single_crosscut_refusals_say_why() -> None:
    game, state = position(SINGLE)
    cases = {
        "b1": "A checker on b1 forms a crosscut: choose a swap.",
        "b1:a1-b2": "The checkers on a1 and b2 are the same colour: swapping them changes nothing.",
        "b1:a1-b3": "The squares a1 and b3 are not adjacent.",
        "b1:b3-b4": "Neither b3 nor b4 belongs to a crosscut just formed.",
        "b1:b2-c2": "The square c2 is empty: only checkers can be swapped.",
        "b2": "The square b2 is already occupied.",
    }
    for text, reason in cases.items():
        with pytest.raises(IllegalMove) as error:
            game.play(state, text)
        assert str(error.value) == reason
    with pytest.raises(IllegalMove, match="off the board"):
        game.apply(state, SwaptimumMove(16))
    with pytest.raises(IllegalMove, match="The swap's square 99 is off the board"):
        game.apply(state, SwaptimumMove(1, (0, 99)))


def test_apply_accepts_a_swap_in_either_order() -> None:
    game, state = position(SINGLE)
    assert game.apply(state, SwaptimumMove(1, (9, 5))) == game.play(state, "b1:b2-b3")


def test_two_crosscuts_at_once_need_one_swap_killing_both() -> None:
    # Blue on b1 forms a1-b2 and b1-c2. Swapping a1-a2 kills only the left one and c1-c2 only
    # the right one; the five other unlike pairs kill both.
    game, state = position(
        """
        . . .
        B R B
        R . R
        """,
        "blue",
    )
    assert texts(game, state) == [
        "a3",
        "b1:a1-b1",
        "b1:a2-b2",
        "b1:b1-b2",
        "b1:b1-c1",
        "b1:b2-c2",
        "b3",
        "c3",
    ]
    with pytest.raises(IllegalMove, match="The swap a1-a2 leaves a crosscut at b1-c2"):
        game.play(state, "b1:a1-a2")
    with pytest.raises(IllegalMove, match="The swap c1-c2 leaves a crosscut at a1-b2"):
        game.play(state, "b1:c1-c2")
    # b1-b2 fills rank 2 with blue: the mover wins.
    won = game.play(state, "b1:b1-b2")
    assert game.outcome(won) == Outcome("blue", "connection")
    assert game.view(won)["winning_path"] == [3, 4, 5]


def test_placement_forming_four_crosscuts() -> None:
    # Red in the middle of a checkerboard ring forms four crosscuts; only the swaps of the
    # middle with an orthogonal neighbour kill all four without making another.
    game, state = position(
        """
        R B R
        B . B
        R B R
        """
    )
    assert len(naive_crosscuts(3, naive_cells(3, state.red | 1 << 4, state.blue))) == 4
    assert texts(game, state) == ["b2:a2-b2", "b2:b1-b2", "b2:b2-b3", "b2:b2-c2"]
    assert game.view(state)["placements"] == {
        "b2": ["b2:a2-b2", "b2:b1-b2", "b2:b2-b3", "b2:b2-c2"]
    }
    with pytest.raises(IllegalMove, match="leaves a crosscut"):
        game.play(state, "b2:a1-b1")


# Found by a SAT search: blue on c3 forms the crosscut c3-d4 and nothing else, and each unlike
# pair of c3, d3, c4, d4 with a neighbour is forced to make a new crosscut somewhere.
RESTRICTED = """
    . B R B R .
    B R R B B R
    R R R B B B
    B B . R R R
    R B B R R B
    . R B R B .
    """


def test_restricted_placement() -> None:
    game, state = position(RESTRICTED, "blue")
    c3 = game.parse_move("c3").square
    assert min(c3 // 6, c3 % 6, 5 - c3 // 6, 5 - c3 % 6) == 2  # two squares from every edge
    assert game.outcome(state) is None
    assert not game._red_connects(state.red) and not game._blue_connects(state.blue)
    # Blue on c3 forms a crosscut, yet every swap the rules allow leaves one somewhere.
    placed = naive_cells(6, state.red, state.blue | 1 << c3)
    assert naive_crosscuts(6, placed)
    assert all(not t.startswith("c3") for t in naive_legal(6, state.red, state.blue, "blue"))
    assert "c3" not in game.view(state)["placements"]
    assert all(move.square != c3 for move in game.legal_moves(state))
    reason = "You cannot place a checker on c3: every swap would leave a crosscut."
    with pytest.raises(IllegalMove, match=reason):
        game.play(state, "c3")
    for first, second in itertools.combinations(range(36), 2):
        with pytest.raises(IllegalMove, match=reason):
            game.apply(state, SwaptimumMove(c3, (first, second)))
    # The other empty squares stay playable, and red could play c3.
    assert {m.square for m in game.legal_moves(state)} == {0, 5, 30, 35}
    assert "c3" in {
        t.split(":")[0] for t in texts(game, SwaptimumState(state.red, state.blue, "red"))
    }


# Found by a SAT search, with red fixed on c4-c6 and d1-d3 and blue on a3-b3 and d4-f4: the
# empty c3 is where both chains would cross, restricted for blue as above.
SKIP = """
    . B R B R B
    B B R B R R
    B R R B B B
    B B . R R R
    R R B R B B
    B R R R B R
    """


def test_skipped_turn() -> None:
    game, state = position(SKIP, "red")
    assert bin(state.red).count("1") == bin(state.blue).count("1") == 17
    # Red fills a6; the last empty square, c3, is restricted for blue, so blue is skipped.
    after = game.play(state, "a6")
    assert (after.to_move, after.skipped, after.winner) == ("red", "blue", None)
    assert game.view(after)["skipped"] == "blue"
    assert game.legal_moves(SwaptimumState(after.red, after.blue, "blue")) == []
    assert "red to move (blue's turn skipped)" in game.diagram(after)
    # Red moves again on c3, which forms a crosscut for red too; every such move ends the game.
    finals = game.legal_moves(after)
    assert finals and all(move.square == 14 and move.swap for move in finals)
    for move in finals:
        end = game.apply(after, move)
        assert end.skipped is None and end.to_move is None
        assert game.outcome(end) in (Outcome("red", "connection"), Outcome("blue", "connection"))


def test_swap_completes_the_opponents_chain() -> None:
    # Red on c1 forms b1 (B) c1 (R) / b2 (R) c2 (B); the swap b1-b2 puts blue on b2 and joins
    # a2-b2-c2: blue wins on red's turn.
    game, state = position(
        """
        R . R
        B R B
        . B .
        """
    )
    assert texts(game, state, "c1") == [
        "c1:a2-b2",
        "c1:b1-b2",
        "c1:b1-c1",
        "c1:b2-c2",
        "c1:c1-c2",
        "c1:c2-c3",
    ]
    won = game.play(state, "c1:b1-b2")
    assert (won.winner, won.to_move) == ("blue", None)
    assert game.outcome(won) == Outcome("blue", "connection", None)
    assert game.view(won)["winning_path"] == [3, 4, 5]
    assert game.legal_moves(won) == []
    with pytest.raises(IllegalMove, match="The game is over"):
        game.play(won, "a1")
    # The other swaps: b2-c2 joins c1-c2-c3 for red, the mover; the rest win for nobody.
    winners = {t: game.play(state, t).winner for t in texts(game, state, "c1")}
    assert winners == {
        "c1:a2-b2": None,
        "c1:b1-b2": "blue",
        "c1:b1-c1": None,
        "c1:b2-c2": "red",
        "c1:c1-c2": None,
        "c1:c2-c3": None,
    }


def test_red_wins_top_to_bottom() -> None:
    game, state = position(
        """
        . B . .
        R B . .
        R R B .
        . R B .
        """
    )
    won = game.play(state, "a4")
    assert game.outcome(won) == Outcome("red", "connection")
    assert game.view(won)["winning_path"] == [1, 5, 4, 8, 12]
    assert game.diagram(won).splitlines()[-1] == "red wins by connection"


def test_blue_wins_left_to_right() -> None:
    game, state = position(
        """
        . . R .
        B B . B
        R B B R
        . R . .
        """,
        "blue",
    )
    won = game.play(state, "c3")
    assert game.outcome(won) == Outcome("blue", "connection")
    assert game.view(won)["winning_path"] == [8, 9, 10, 11]


SQUARES_3X3 = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]


def test_initial_view_and_diagram() -> None:
    game = GAMES[3]
    state = game.initial()
    view = game.view(state)
    assert view == {
        "kind": "swaptimum",
        "size": 3,
        "to_move": "red",
        "winner": None,
        "skipped": None,
        "board": [None] * 9,
        "placements": {
            name: [name] for name in ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]
        },
        "winning_path": [],
    }
    assert list(view["placements"]) == SQUARES_3X3  # board order: column first
    state = game.replay(["b2", "a1"])
    assert game.view(state)["board"] == ["blue", None, None, None, "red"] + [None] * 4
    assert game.diagram(state) == " 3 . . .\n 2 . R .\n 1 B . .\n   a b c\nred to move"
    assert (game.ply(state), game.to_move(state), game.score(state)) == (2, "red", None)


def test_neither_side_can_move_ends_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard ending (never met in real play): nobody can move, so the game is drawn."""
    game = Swaptimum(SwaptimumSettings(3))
    monkeypatch.setattr(game, "_has_legal_move", lambda red, blue, player: False)
    state = game.play(game.initial(), "b2")
    assert (state.to_move, state.winner, state.skipped, state.drawn) == (None, None, None, True)
    assert game.outcome(state) == Outcome(None, "no_moves")
    assert game.legal_moves(state) == []
    assert game.view(state)["placements"] == {}
    assert game.diagram(state).splitlines()[-1] == "drawn: neither side can move"


def test_module_doctests() -> None:
    assert doctest.testmod(swaptimum_module).failed == 0


def test_apply_leaves_the_given_state_usable() -> None:
    game, state = position(SINGLE)
    before = (state, game.legal_moves(state), game.view(state))
    with pytest.raises(IllegalMove):
        game.play(state, "b1:b2-c3")
    game.play(state, "b1:a1-a2")
    assert (state, game.legal_moves(state), game.view(state)) == before
    assert hash(state) == hash(SwaptimumState(state.red, state.blue, "red", state.ply))


# -- exhaustive and random checks ------------------------------------------------------------
def test_no_restricted_placement_on_3x3_exhaustively() -> None:
    """Every crosscut-free 3x3 board (a superset of the reachable ones), each colour to move:
    every empty square is a legal placement. (4x4 was checked exhaustively off-line, see the
    report: 3.7 million cases, too slow for the suite.)"""
    game = GAMES[3]
    boards = 0
    for cells in itertools.product(".RB", repeat=9):
        red = sum(1 << i for i, c in enumerate(cells) if c == "R")
        blue = sum(1 << i for i, c in enumerate(cells) if c == "B")
        if game._crosscuts(red, blue):
            continue
        boards += 1
        empty = {i for i, c in enumerate(cells) if c == "."}
        for player in ("red", "blue"):
            state = SwaptimumState(red, blue, player)
            assert {m.square for m in game.legal_moves(state)} == empty
    assert boards > 10_000


@pytest.mark.skipif(
    not os.environ.get("PLAYTABLE_SLOW_TESTS"),
    reason="takes about a minute: PLAYTABLE_SLOW_TESTS=1",
)
def test_no_restricted_placement_on_4x4_exhaustively() -> None:
    """Every crosscut-forming red placement on every crosscut-free 4x4 board has a legal swap.

    Up to symmetry: the placement on a1, b1 or b2 (the board's rotations and reflections map
    every square to one of them), red only (swapping all colours maps the rules onto
    themselves), each block through it made a crosscut, the 12 other squares all 3^12 ways.
    """
    n = 4
    game = GAMES[n]
    checked = 0
    for placed in (0, 1, 5):
        for block in game.blocks[placed]:
            cut = block.diagonal | block.antidiagonal
            mine = block.diagonal if block.diagonal >> placed & 1 else block.antidiagonal
            red, blue = mine & ~(1 << placed), cut & ~mine
            others = [s for s in range(n * n) if not cut >> s & 1]
            for colours in itertools.product((0, 1, 2), repeat=len(others)):
                r = red | sum(1 << s for s, c in zip(others, colours, strict=True) if c == 1)
                b = blue | sum(1 << s for s, c in zip(others, colours, strict=True) if c == 2)
                if game._crosscuts(r, b):
                    continue
                checked += 1
                assert any(True for _ in game._swaps(r, b, "red", placed)), (r, b, placed)
    assert checked == 2_888_885


def test_no_restricted_placement_on_4x4_sampled() -> None:
    rng = random.Random(4)
    game = GAMES[4]
    for _ in range(3000):
        state = random_filled_state(rng, 4)
        empty = set(range(16)) - {i for i in range(16) if (state.red | state.blue) >> i & 1}
        assert {m.square for m in game.legal_moves(state)} == empty


def test_legal_moves_match_the_naive_rules() -> None:
    rng = random.Random(2026)
    checked = 0
    for n in range(2, 9):
        for _ in range(700 if n <= 5 else 250):
            state = random_state(rng, n)
            assert state.to_move is not None
            expected = naive_legal(n, state.red, state.blue, state.to_move)
            assert set(GAMES[n].legal_move_texts(state)) == expected, GAMES[n].diagram(state)
            checked += 1
    assert checked > 2500


def test_apply_refuses_exactly_the_moves_not_listed() -> None:
    """Every placement, bare and with every adjacent pair near it: apply accepts exactly the
    moves legal_moves lists (a swap in either order)."""

    def unordered(move: SwaptimumMove) -> tuple[int, frozenset[int]]:
        return move.square, frozenset(move.swap or ())

    rng = random.Random(7)
    for n in (3, 4, 5):
        game = GAMES[n]
        pairs = [
            (a, b) for a, b in itertools.combinations(range(n * n), 2) if naive_adjacent(n, a, b)
        ]
        for _ in range(40):
            state = random_state(rng, n)
            legal = {unordered(move) for move in game.legal_moves(state)}
            for square in range(n * n):
                near = [p for p in pairs if square in p or naive_adjacent(n, square, p[0])]
                for move in [SwaptimumMove(square)] + [SwaptimumMove(square, p) for p in near]:
                    try:
                        game.apply(state, move)
                    except IllegalMove:
                        assert unordered(move) not in legal
                    else:
                        assert unordered(move) in legal


def test_random_games_keep_the_invariants() -> None:
    """Many seeded random games: no crosscut ever remains, wins match a naive BFS, turns and
    skips follow the rules, and every game ends with a winner within N x N moves."""
    rng = random.Random(99)
    for n in range(2, 9):
        game = GAMES[n]
        for _ in range(30 if n <= 5 else 10):
            states = play_random_game(game, rng)
            assert len(states) - 1 <= n * n
            final = states[-1]
            assert final.winner is not None and not final.drawn
            for before, after in itertools.pairwise(states):
                cells = naive_cells(n, after.red, after.blue)
                assert not naive_crosscuts(n, cells)
                assert after.ply == before.ply + 1
                red_won = naive_connected(n, cells, "R")
                blue_won = naive_connected(n, cells, "B")
                assert not (red_won and blue_won)
                expected = "red" if red_won else "blue" if blue_won else None
                assert after.winner == expected
                if expected is None:
                    mover = before.to_move
                    assert mover is not None
                    opponent = "blue" if mover == "red" else "red"
                    opponent_can = bool(naive_legal(n, after.red, after.blue, opponent))
                    assert after.to_move == (opponent if opponent_can else mover)
                    assert after.skipped == (None if opponent_can else opponent)


def test_crosscut_scans_match_naive_on_any_board() -> None:
    rng = random.Random(5)
    for n in range(2, 10):
        game = GAMES[n]
        for _ in range(200):
            cells = [rng.choice("RB.") for _ in range(n * n)]
            red = sum(1 << i for i, c in enumerate(cells) if c == "R")
            blue = sum(1 << i for i, c in enumerate(cells) if c == "B")
            corners = game._crosscuts(red, blue)
            assert [i for i in range(n * n) if corners >> i & 1] == naive_crosscuts(n, cells)
            colours: tuple[tuple[Player, str], ...] = (("red", "R"), ("blue", "B"))
            for player, colour in colours:
                makers = game._crosscut_makers(red, blue, player)
                expected = set()
                for square in range(n * n):
                    if cells[square] == ".":
                        placed = list(cells)
                        placed[square] = colour
                        if any(square in naive_block(n, c) for c in naive_crosscuts(n, placed)):
                            expected.add(square)
                assert {i for i in range(n * n) if makers >> i & 1} == expected
