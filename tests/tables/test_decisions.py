"""The rules of the table actions as pure functions: no database, no event loop.

Every accepted and refused case of move, resign, draw, take-back and rematch, decided on a
plain :class:`LoadedTable` value; the service tests check the same rules through the store.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest

from playtable import games
from playtable.games import Player, Termination
from playtable.store import KEEP, MoveRow, TableRow
from playtable.tables import decisions, takeback, tokens
from playtable.tables import rematch as rematches
from playtable.tables.decisions import Decision
from playtable.tables.errors import GameOver, Illegal, NoOffer, NotSeated, NotYourTurn, Stale
from playtable.tables.rematch import RematchSeats
from playtable.tables.table import Bot, LoadedTable, Offers

DOTS = {"grid": "square", "rows": 2, "cols": 2, "start": "swedish"}
RED, BLUE = "red-seat-token", "blue-seat-token"


def table(
    moves: list[tuple[Player, str]] = (),  # type: ignore[assignment]
    *,
    seats: tuple[Player, ...] = ("red", "blue"),
    bots: dict[Player, str] | None = None,
    offers: Offers | None = None,
    outcome: dict[str, Any] | None = None,
    rematch_id: str | None = None,
    game: str = "dots",
    options: dict[str, Any] | None = None,
) -> LoadedTable:
    loaded = games.load(game, options or DOTS)
    token_of = {"red": RED, "blue": BLUE}
    row = TableRow(
        id="t1",
        game=loaded.name,
        options=loaded.options(),
        version=7,
        outcome=outcome,
        invite_hash=tokens.hash_token("invite"),
        offers=(offers or Offers()).to_json(),
        rematch_id=rematch_id,
        created_at=datetime(2026, 12, 1, tzinfo=UTC),
        seats={p: tokens.hash_token(token_of[p]) for p in seats},
        bots=bots or {},
    )
    rows = tuple(MoveRow(ply, text, player) for ply, (player, text) in enumerate(moves))
    return LoadedTable(row, rows, loaded, loaded.replay([text for _, text in moves]))


def kinds(decision: Decision) -> list[str]:
    return [event.to_json()["kind"] for event in decision.events]


SEATS = RematchSeats(
    fresh_id="new1",
    seat_hash=lambda old, new_id: tokens.hash_token(f"{old}:{new_id}"),
    invite_hash=lambda new_id: tokens.hash_token(f"invite:{new_id}"),
)


# -- who may act -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "act",
    [
        lambda t, a: decisions.play(t, a, 0, "a2-b2"),
        decisions.resign,
        decisions.offer_draw,
        lambda t, a: decisions.answer_draw(t, a, True),
        takeback.request_undo,
        lambda t, a: takeback.answer_undo(t, a, True),
        lambda t, a: rematches.rematch(t, a, SEATS),
        rematches.decline_rematch,
    ],
)
@pytest.mark.parametrize("actor", [None, "forged-token", Bot("blue")])
def test_only_a_seated_player_acts(act: Any, actor: Any) -> None:
    with pytest.raises(NotSeated) as refused:
        act(table(), actor)
    assert refused.value.version == 7


# -- moves --------------------------------------------------------------------------------------
def test_a_move_appends_clears_offers_and_tells_what_it_claimed() -> None:
    start = table(offers=Offers(draw="blue", undo="blue"))
    decision = decisions.play(start, RED, 0, "a2-b2")
    assert decision.change.append == MoveRow(0, "a2-b2", "red")
    assert decision.change.offers == {"draw": None, "undo": None, "rematch": []}
    assert decision.change.outcome is KEEP
    assert [e.to_json() for e in decision.events] == [
        {"kind": "move", "player": "red", "move": "a2-b2", "ply": 0, "claimed": 0}
    ]
    after = decision.after
    assert after.version == 8 and after.ply == 1 and after.to_move() == "blue"


def test_the_last_move_ends_the_game_with_the_score() -> None:
    played = table([("red", "a2-b2"), ("blue", "b1-b2"), ("blue", "b2-b3")])
    decision = decisions.play(played, BLUE, 3, "b2-c2")
    assert kinds(decision) == ["move", "game_over"]
    assert decision.change.outcome == {
        "winner": "blue",
        "reason": "score",
        "score": {"red": 0, "blue": 4},
    }
    assert decision.after.outcome() is not None and not decision.after.running()


def test_a_move_text_is_stored_in_its_canonical_form() -> None:
    decision = decisions.play(table(), RED, 0, "b2-a2")
    assert decision.change.append == MoveRow(0, "a2-b2", "red")


def test_moves_out_of_turn_stale_illegal_or_after_the_end_are_refused() -> None:
    with pytest.raises(NotYourTurn):
        decisions.play(table(), BLUE, 0, "a2-b2")
    with pytest.raises(Stale, match="move 2"):
        decisions.play(table(), RED, 1, "a2-b2")
    with pytest.raises(Illegal):
        decisions.play(table(), RED, 0, "a1-b1")  # pre-drawn on the Swedish board
    with pytest.raises(Illegal):
        decisions.play(table(), RED, 0, "nonsense")
    over = table(outcome={"winner": "blue", "reason": "resign"})
    with pytest.raises(GameOver):
        decisions.play(over, RED, 0, "a2-b2")


def test_a_swaptimum_move_names_the_skipped_player() -> None:
    start = table(game="swaptimum", options={"size": 3})
    decision = decisions.play(start, RED, 0, "b2")
    assert decision.events[0].to_json() == {
        "kind": "move",
        "player": "red",
        "move": "b2",
        "ply": 0,
        "skipped": None,
    }


# -- resignation and draws -------------------------------------------------------------------
def test_resigning_ends_the_game_for_the_opponent() -> None:
    decision = decisions.resign(table([("red", "a2-b2")]), BLUE)
    assert kinds(decision) == ["resign", "game_over"]
    outcome = decision.after.outcome()
    assert outcome is not None and outcome.winner == "red"
    assert outcome.reason is Termination.RESIGN and outcome.score == (0, 0)
    with pytest.raises(GameOver):
        decisions.resign(decision.after, RED)


def test_a_draw_offer_waits_for_the_answer_and_offering_back_agrees() -> None:
    offered = decisions.offer_draw(table(), RED).after
    assert offered.offers.draw == "red"
    with pytest.raises(Illegal, match="already"):
        decisions.offer_draw(offered, RED)
    with pytest.raises(NoOffer):
        decisions.answer_draw(offered, RED, True)
    agreed = decisions.offer_draw(offered, BLUE)
    assert kinds(agreed) == ["draw_agreed", "game_over"]
    outcome = agreed.after.outcome()
    assert outcome is not None and outcome.winner is None
    assert outcome.reason is Termination.DRAW_AGREED


def test_a_draw_offer_accepted_or_declined() -> None:
    offered = decisions.offer_draw(table(), RED).after
    accepted = decisions.answer_draw(offered, BLUE, True)
    assert kinds(accepted) == ["draw_agreed", "game_over"]
    declined = decisions.answer_draw(offered, BLUE, False)
    assert kinds(declined) == ["draw_declined"]
    assert declined.after.offers.draw is None and declined.after.running()


def test_a_declined_draw_offer_is_not_made_again_before_the_next_move() -> None:
    """Red offered a draw and Blue said no: Red offering again at once used to be shown to
    Blue again, and again, twenty times a minute while Blue's clock ran."""
    declined = decisions.answer_draw(decisions.offer_draw(table(), RED).after, BLUE, False).after
    with pytest.raises(Illegal, match="declined; you can offer again after the next move"):
        decisions.offer_draw(declined, RED)
    assert kinds(decisions.offer_draw(declined, BLUE)) == ["draw_offered"]  # Blue's own: free
    moved = decisions.play(declined, RED, 0, "a2-b2").after
    assert kinds(decisions.offer_draw(moved, RED)) == ["draw_offered"]


def test_no_draw_without_an_opponent_or_after_the_end() -> None:
    with pytest.raises(Illegal, match="Nobody"):
        decisions.offer_draw(table(seats=("red",)), RED)
    with pytest.raises(GameOver):
        decisions.offer_draw(table(outcome={"winner": None, "reason": "draw_agreed"}), RED)


# -- take-backs --------------------------------------------------------------------------------
def test_a_take_back_of_your_own_last_move() -> None:
    played = table([("red", "a2-b2")])
    with pytest.raises(Illegal, match="only your own"):
        takeback.request_undo(played, BLUE)
    asked = takeback.request_undo(played, RED).after
    with pytest.raises(Illegal, match="already"):
        takeback.request_undo(asked, RED)
    with pytest.raises(NoOffer):
        takeback.answer_undo(asked, RED, True)
    declined = takeback.answer_undo(asked, BLUE, False)
    assert kinds(declined) == ["undo_declined"] and declined.after.ply == 1
    # not asked again for the same move (the opponent's clock runs while they read it)
    with pytest.raises(Illegal, match="cannot ask again for this move"):
        takeback.request_undo(declined.after, RED)
    later = decisions.play(decisions.play(declined.after, BLUE, 1, "b2-c2").after, RED, 2, "b1-b2")
    assert kinds(takeback.request_undo(later.after, RED)) == ["undo_requested"]  # a new move
    accepted = takeback.answer_undo(asked, BLUE, True)
    assert [e.to_json() for e in accepted.events] == [
        {"kind": "undo", "player": "red", "move": "a2-b2"}
    ]
    assert accepted.change.drop_ply == 0
    assert accepted.after.ply == 0 and accepted.after.to_move() == "red"
    assert accepted.after.offers.undo is None


def test_no_take_back_before_any_move_or_without_an_opponent() -> None:
    with pytest.raises(Illegal):
        takeback.request_undo(table(), RED)
    with pytest.raises(Illegal, match="Nobody"):
        takeback.request_undo(table([("red", "a2-b2")], seats=("red",)), RED)


def test_against_the_computer_a_take_back_includes_its_replies() -> None:
    # Red (a person) played, then the computer (blue) took all four boxes but one move.
    moves: list[tuple[Player, str]] = [("red", "a2-b2"), ("blue", "b1-b2"), ("blue", "b2-b3")]
    versus_bot = table(moves, bots={"blue": "easy"})
    asked = takeback.request_undo(versus_bot, RED).after
    accepted = takeback.answer_undo(asked, Bot("blue"), True)
    assert [e.to_json() for e in accepted.events] == [
        {"kind": "undo", "player": "red", "move": "a2-b2", "count": 3}
    ]
    assert accepted.change.drop_ply == 0 and accepted.after.ply == 0
    # Between people the same request is refused: the last move is not red's.
    with pytest.raises(Illegal, match="only your own"):
        takeback.request_undo(table(moves), RED)


# -- rematch -----------------------------------------------------------------------------------
def test_a_rematch_is_proposed_then_accepted_with_colours_swapped() -> None:
    over = table(outcome={"winner": "blue", "reason": "resign"})
    with pytest.raises(Illegal, match="over"):
        rematches.rematch(table(), RED, SEATS)
    proposed = rematches.rematch(over, RED, SEATS)
    assert proposed is not None and kinds(proposed) == ["rematch_offered"]
    with pytest.raises(Illegal, match="proposed"):
        rematches.rematch(proposed.after, RED, SEATS)
    other_id = dataclasses.replace(SEATS, fresh_id="ignored")
    accepted = rematches.rematch(proposed.after, BLUE, other_id)
    assert accepted is not None
    assert [e.to_json() for e in accepted.events] == [
        {"kind": "rematch_accepted", "player": "blue", "table": "new1"}
    ]
    new_table = accepted.change.new_table
    assert new_table is not None and new_table.id == "new1"
    # Whoever was red sits as blue: the seat hashes come from each player's own token.
    assert new_table.seats == {
        "blue": tokens.hash_token(f"{RED}:new1"),
        "red": tokens.hash_token(f"{BLUE}:new1"),
    }
    assert accepted.after.row.rematch_id == "new1"
    assert rematches.rematch(accepted.after, RED, SEATS) is None  # agreed already


def test_a_rematch_against_the_computer_keeps_its_level() -> None:
    over = table(outcome={"winner": "blue", "reason": "resign"}, bots={"blue": "hard"})
    proposed = rematches.rematch(over, RED, SEATS)
    assert proposed is not None
    accepted = rematches.rematch(proposed.after, Bot("blue"), SEATS)
    assert accepted is not None and accepted.change.new_table is not None
    assert accepted.change.new_table.bots == {"red": "hard"}


def test_a_rematch_proposal_can_be_declined() -> None:
    over = table(outcome={"winner": "blue", "reason": "resign"})
    with pytest.raises(NoOffer):
        rematches.decline_rematch(over, BLUE)
    proposed = rematches.rematch(over, RED, SEATS)
    assert proposed is not None
    with pytest.raises(NoOffer):
        rematches.decline_rematch(proposed.after, RED)  # not an answer to one's own proposal
    declined = rematches.decline_rematch(proposed.after, BLUE)
    assert kinds(declined) == ["rematch_declined"]
    assert declined.after.offers == Offers()
    with pytest.raises(Illegal, match="Nobody"):
        rematches.rematch(table(outcome={"winner": "red", "reason": "resign"}, seats=("red",)),
                          RED, SEATS)  # fmt: skip


def test_a_nickname_is_cleaned_shown_and_cleared() -> None:
    named = decisions.set_nickname(table(), BLUE, "  Anna\u202e  the\n Great  ")
    assert named.change.nickname == ("blue", "Anna the Great")
    assert named.after.row.nicknames == {"blue": "Anna the Great"}
    assert [e.to_json() for e in named.events] == [
        {"kind": "nickname", "player": "blue", "nickname": "Anna the Great"}
    ]
    long = decisions.set_nickname(named.after, RED, "x" * 100)
    assert long.after.row.nicknames == {"blue": "Anna the Great", "red": "x" * 24}
    cleared = decisions.set_nickname(long.after, BLUE, " \u200b ")
    assert cleared.change.nickname == ("blue", None)
    assert cleared.after.row.nicknames == {"red": "x" * 24}
    with pytest.raises(NotSeated):
        decisions.set_nickname(table(), None, "Spectator")
    with pytest.raises(Illegal, match="computer"):
        decisions.set_nickname(table(bots={"blue": "easy"}), Bot("blue"), "HAL")


def test_a_nickname_that_shows_nothing_is_no_nickname() -> None:
    """Hangul fillers and blank Braille cells draw nothing: a name of them would be an
    invisible player (and the examples in the docstring hold)."""
    import doctest

    from playtable.tables.nicknames import clean_nickname

    for invisible in ("\u3164", "\u115f\u3164\u3164", "\u2800\u2800", "\u200b \ufeff"):
        assert clean_nickname(invisible) == ""
    assert clean_nickname("김\u3164철수") == "김 철수"
    assert clean_nickname("Anna") == "Anna"
    runner = doctest.DocTestRunner()
    for example in doctest.DocTestFinder().find(
        clean_nickname, globs={"clean_nickname": clean_nickname}
    ):
        runner.run(example)
    assert runner.summarize(verbose=False).failed == 0


def test_a_nickname_keeps_its_joiners() -> None:
    """A family emoji (man, woman, girl joined by U+200D) stayed one picture only in the box
    it was typed in: the table showed three people side by side, as the joiners, format
    characters, were cleaned away with the bidirectional overrides. Persian spells words
    with the non-joiner (U+200C): 'می‌خواهم' came back as 'میخواهم'."""
    from playtable.tables.nicknames import clean_nickname

    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    named = decisions.set_nickname(table(), BLUE, f" {family} ")
    assert named.after.row.nicknames == {"blue": family}
    assert clean_nickname("\U0001f3f3\ufe0f\u200d\U0001f308") == "\U0001f3f3\ufe0f\u200d\U0001f308"
    assert clean_nickname("می\u200cخواهم") == "می\u200cخواهم"
    assert clean_nickname("\u202eAnna\u200d") == "Anna\u200d"
    for nothing in ("\u200d", " \u200c\u200d ", "\u200d\u3164\u200c"):
        assert clean_nickname(nothing) == ""
