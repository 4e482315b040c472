"""Invariants every registered game keeps, checked on random games (in the spirit of
OpenSpiel's generic game tests)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playtable.games import GameError, IllegalMove, load, registry
from playtable.games.records import GameRecord

SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("dots", {"rows": 1, "cols": 1}),
    ("dots", {"rows": 2, "cols": 3, "start": "swedish"}),
    ("dots", {"rows": 3, "cols": 3, "start": "icelandic", "misere": True}),
    ("dots", {"rows": 5, "cols": 5}),
    ("dots", {"grid": "triangle", "size": 3, "start": "swedish"}),
    ("dots", {"grid": "triangle", "size": 1}),
    ("dots", {"grid": "hexagon", "size": 2, "misere": True}),
    ("dots", {"grid": "hexagon", "size": 1, "start": "swedish"}),
    ("swaptimum", {"size": 2}),
    ("swaptimum", {"size": 3}),
    ("swaptimum", {"size": 5}),
    ("swaptimum", {"size": 7}),
]


def test_every_registered_game_is_covered() -> None:
    assert {name for name, _ in SETTINGS} == set(registry())


def random_game(name: str, options: dict[str, Any], seed: int) -> tuple[Any, list[Any]]:
    """Play a uniformly random game to the end; return the game and the states passed."""
    game, states, _ = random_game_with_moves(name, options, seed)
    return game, states


def random_game_with_moves(
    name: str, options: dict[str, Any], seed: int
) -> tuple[Any, list[Any], list[Any]]:
    game = load(name, options)
    rng = random.Random(seed)
    state = game.initial()
    states = [state]
    played = []
    while game.outcome(state) is None:
        moves = game.legal_moves(state)
        assert moves, "a running game must offer a move to the side to move"
        played.append(rng.choice(moves))
        state = game.apply(state, played[-1])
        states.append(state)
        assert len(states) < 2000, "the game does not end"
    return game, states, played


@pytest.mark.parametrize("name,options", SETTINGS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_end_and_replay(name: str, options: dict[str, Any], seed: int) -> None:
    game, states, played = random_game_with_moves(name, options, seed)
    final = states[-1]
    outcome = game.outcome(final)
    assert outcome is not None
    assert game.to_move(final) is None
    assert game.legal_moves(final) == []
    assert game.ply(final) == len(states) - 1

    # Replaying the record, through its text form, gives the same state.
    texts = [game.format_move(move) for move in played]
    record = GameRecord(name, game.options(), tuple(texts))
    again = GameRecord.from_text(record.to_text())
    assert again == record
    assert load(again.game, again.options).replay(again.moves) == final


@pytest.mark.parametrize("name,options", SETTINGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_scores_add_up(name: str, options: dict[str, Any], seed: int) -> None:
    game, states = random_game(name, options, seed)
    for state in states:
        score = game.score(state)
        if score is None:
            continue
        assert 0 <= score[0] + score[1] <= len(game.board.cells)  # type: ignore[attr-defined]
    final_score = game.score(states[-1])
    outcome = game.outcome(states[-1])
    if final_score is not None:
        red, blue = final_score
        assert red + blue == len(game.board.cells)  # type: ignore[attr-defined]
        assert outcome.score == final_score
        misere = game.options()["misere"]
        expected = None if red == blue else ("red" if (red > blue) != misere else "blue")
        assert outcome.winner == expected
    else:
        assert outcome.winner in ("red", "blue", None)


@pytest.mark.parametrize("name,options", SETTINGS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), junk=st.text(max_size=12))
def test_illegal_moves_never_change_the_state(
    name: str, options: dict[str, Any], seed: int, junk: str
) -> None:
    game, states = random_game(name, options, seed)
    rng = random.Random(seed)
    for state in rng.sample(states, min(len(states), 8)):
        snapshot = (state, hash(state), game.legal_move_texts(state))
        legal = set(game.legal_move_texts(state))
        every_text = sorted(all_move_texts(game, states))
        for text in [junk, *rng.sample(every_text, min(5, len(every_text)))]:
            if text in legal:
                continue
            with pytest.raises(GameError):
                game.play(state, text)
        assert (state, hash(state), game.legal_move_texts(state)) == snapshot


def all_move_texts(game: Any, states: list[Any]) -> set[str]:
    texts: set[str] = set()
    for state in states:
        texts.update(game.legal_move_texts(state))
    return texts or {"a1"}


@pytest.mark.parametrize("name,options", SETTINGS)
def test_notation_round_trips(name: str, options: dict[str, Any]) -> None:
    game, states = random_game(name, options, 7)
    for state in states:
        for move in game.legal_moves(state):
            assert game.parse_move(game.format_move(move)) == move


@pytest.mark.parametrize("name,options", SETTINGS)
def test_moves_after_the_end_are_refused(name: str, options: dict[str, Any]) -> None:
    game, states = random_game(name, options, 11)
    with pytest.raises(IllegalMove):
        game.apply(states[-1], game.legal_moves(states[-2])[0])


@pytest.mark.parametrize("name,options", SETTINGS)
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_listed_legal_moves_are_the_legal_moves_in_sort_order(
    name: str, options: dict[str, Any], seed: int
) -> None:
    """What a page offers (``legal_move_texts``, which a game may list its own faster way) is
    every legal move, each once, in the game's ``sort_key`` order."""
    game, states = random_game(name, options, seed)
    for state in states:
        listed = sorted(game.legal_moves(state), key=game.sort_key)
        assert game.legal_move_texts(state) == [game.format_move(m) for m in listed]
