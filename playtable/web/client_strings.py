"""The translated strings the browser scripts show, a module per language and kind of board
(:mod:`playtable.web.script_strings`).

Scripts never hold English text of their own: they look every string up by key in this
object (``t("your_turn")`` in ``static/js/i18n.js``). Placeholders use the same
``%(name)s`` form as the Python catalogs, so translators see one convention.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Mapping
from types import MappingProxyType

from playtable.games import registry
from playtable.tables.errors import REASONS
from playtable.web.plurals import plural_forms
from playtable.web.presentation import quick_messages
from playtable.web.replay_strings import replay_strings
from playtable.web.timing import clock_strings


@functools.cache
def client_strings(
    catalog: gettext.NullTranslations, cells: bool = False
) -> Mapping[str, str | Mapping[str, str]]:
    """Every string a script may show, translated with ``catalog``; a counted message is
    one form per plural category (see :func:`plural_forms`). ``cells``: the page shows a
    triangle or hexagon board, whose cells the words call cells rather than boxes
    (:func:`playtable.web.presentation.counts_cells`).

    Made once per catalog (a language's catalog is one object for the life of the process,
    ``templating.translations``): building it evaluates the plural rules hundreds of times,
    and it was a third of a table page's cost when every page built it again."""
    return MappingProxyType(_strings(catalog, cells))


def cell_words(catalog: gettext.NullTranslations, cells: bool) -> dict[str, str]:
    """The Dots and Boxes strings that name the board's cells: boxes on a square grid, cells
    on a triangle or hexagon grid, as the rules, the variant pages and the atlas say.
    Literal calls: the catalogs are extracted from them."""
    _ = catalog.gettext
    if cells:
        return {
            "misere_rule": _("Misère: the player with fewer cells wins."),
            "ann_move_claim_one": _(
                "%(player)s drew the line from %(a)s to %(b)s and claimed a cell."
            ),
            "ann_move_claim_two": _(
                "%(player)s drew the line from %(a)s to %(b)s and claimed two cells."
            ),
            "dots_box": _("Cell claimed by %(player)s"),
            # Translators: %(box)s is the triangle's or hexagon's corners, "a1-b1-b2".
            "dots_box_sides": _("Open cell %(box)s: %(count)s of %(total)s sides drawn"),
        }
    return {
        "misere_rule": _("Misère: the player with fewer boxes wins."),
        "ann_move_claim_one": _("%(player)s drew the line from %(a)s to %(b)s and claimed a box."),
        "ann_move_claim_two": _(
            "%(player)s drew the line from %(a)s to %(b)s and claimed two boxes."
        ),
        "dots_box": _("Box claimed by %(player)s"),
        "dots_box_sides": _("Open box %(box)s: %(count)s of %(total)s sides drawn"),
    }


def _strings(
    catalog: gettext.NullTranslations, cells: bool = False
) -> dict[str, str | Mapping[str, str]]:
    _ = catalog.gettext

    def ngettext(singular: str, plural: str) -> dict[str, str]:
        return plural_forms(catalog, singular, plural)

    return {
        # players and seats
        "red": _("Red"),
        "blue": _("Blue"),
        # Translators: one letter marking a red box or checker, the initial of "Red".
        "red_initial": _("R"),
        # Translators: one letter marking a blue box or checker, the initial of "Blue".
        "blue_initial": _("B"),
        "you_suffix": _("%(player)s (you)"),
        "online": _("online"),
        "offline": _("offline"),
        "seat_free": _("seat free"),
        # a player's presence while this page has lost its own connection
        "presence_unknown": _("not known while offline"),
        "bot_easy": _("Computer (easy)"),
        "bot_medium": _("Computer (medium)"),
        "bot_hard": _("Computer (hard)"),
        # turn and status
        "your_turn": _("Your turn"),
        "waiting_for": _("Waiting for %(player)s"),
        "computer_thinking": _("The computer is thinking…"),
        "turn_offline": _("Offline: your moves are not sent"),
        "reconnected": _("Connected again."),
        # Translators: a button under the board that goes to the buttons answering the
        # opponent's draw offer, take-back request or rematch proposal (further down the page).
        "offer_answer": _("Answer"),
        "waiting_for_opponent": _("Waiting for an opponent to join"),
        # a spectator of a table set up for two others that nobody has sat down at yet
        "waiting_for_players": _("Waiting for both players to take their seats"),
        "invite_hint": _("Nobody sits opposite you yet: send them the invitation link."),
        "to_move": _("%(player)s to move"),
        # the turn line while the replay shows an earlier position (table_panels.js)
        "step_turn": _("Replay, after move %(ply)s of %(total)s: %(player)s to move"),
        "step_turn_start": _("Replay, starting position: %(player)s to move"),
        # a replayed position's score, said after the move that led to it (replay.js)
        "step_score": _("Score: Red %(red)s, Blue %(blue)s."),
        "watching": _("You are watching this table."),
        "connecting": _("Connecting…"),
        "reconnecting": _("Connection lost. Reconnecting…"),
        "connected": _("Connected"),
        "not_connected": _("Not connected: your action was not sent. Reconnecting…"),
        "sending": _("Sending…"),
        "move_unconfirmed": _(
            "The connection dropped before your move %(move)s was confirmed. Checking…"
        ),
        "move_not_sent": _("Your move %(move)s did not reach the table: play it again."),
        "opening_rematch": _("Opening the new table…"),
        # Translators: said once at the rematch's table, where the colours are swapped;
        # %(player)s is the colour this player has now ("Blue").
        "rematch_colour": _("Rematch: you play %(player)s this time."),
        # results
        "wins_score": _("%(winner)s wins %(winner_score)s–%(loser_score)s."),
        "draw_score": _("Draw, %(score)s–%(score)s."),
        "wins_connection": _("%(winner)s wins: a chain of %(winner)s checkers joins both sides."),
        "wins_connection_swap": _(
            "%(winner)s wins on %(mover)s's turn: the swap completed the %(winner)s chain."
        ),
        "draw_no_moves": _("Draw: neither player can move."),
        "wins_resign": _("%(loser)s resigned. %(winner)s wins."),
        "draw_agreed": _("Draw agreed."),
        "wins_generic": _("%(winner)s wins."),
        "draw_generic": _("The game is drawn."),
        # the result said to a player, on the line above the board (a draw has no "you")
        # Translators: %(yours)s is this player's score, %(theirs)s their opponent's.
        "you_win_score": _("You win %(yours)s–%(theirs)s."),
        # Translators: %(yours)s is this player's score, %(theirs)s their opponent's.
        "you_lose_score": _("You lose %(yours)s–%(theirs)s."),
        "you_win_resign": _("%(loser)s resigned. You win."),
        "you_resigned": _("You resigned. %(winner)s wins."),
        "you_win_timeout": _("%(loser)s ran out of time. You win."),
        "you_lose_timeout": _("You ran out of time. %(winner)s wins."),
        # Swaptimum: a chain of the player's checkers joins their two sides
        "you_win_connection": _("You win: your chain joins both sides."),
        "you_win_connection_swap": _("You win: your opponent's swap completed your chain."),
        "you_lose_connection": _("You lose: your opponent's chain joins both sides."),
        "you_lose_connection_swap": _("You lose: your swap completed your opponent's chain."),
        "you_win": _("You win."),
        "you_lose": _("You lose."),
        "skipped": _("%(player)s has no legal move: the turn is skipped."),
        # said to the player whose turn is skipped, and to their opponent, who moves again
        "skipped_you": _("You have no legal move: your turn is skipped."),
        "skipped_again": _("%(player)s has no legal move: you move again."),
        # move announcements (ARIA live region)
        "ann_place": _("%(player)s placed a checker on %(square)s."),
        "ann_place_swap": _(
            "%(player)s placed a checker on %(square)s and swapped %(a)s and %(b)s."
        ),
        # a Dots and Boxes move in words: the line between the dots %(a)s and %(b)s
        "ann_line": _("%(player)s drew the line from %(a)s to %(b)s."),
        **cell_words(catalog, cells),  # the claims, the cells' labels and the misère rule
        "ann_next": _("%(player)s to move."),
        "ann_undo": _("%(player)s took back %(move)s."),
        # Translators: a take-back against the computer: the player's move and the
        # computer's replies after it
        "ann_undo_many": ngettext(
            "%(player)s took back %(count)s move.", "%(player)s took back %(count)s moves."
        ),
        "ann_rematch_declined": _("%(player)s declined the rematch."),
        "ann_quick": _("%(player)s says: %(message)s"),
        # Translators: a player's chosen name with the colour they play, "Anna (Red)".
        "nickname_of": _("%(name)s (%(player)s)"),
        # Translators: this page's own player's chosen name with their colour, "Anna (Red,
        # you)"; without a chosen name the page says "%(player)s (you)".
        "nickname_of_you": _("%(name)s (%(player)s, you)"),
        "ann_nickname": _("%(player)s is now called %(name)s."),
        **{f"quick_{key}": label for key, label in quick_messages(catalog)},
        "spectators_count": ngettext("%(count)s spectator", "%(count)s spectators"),
        "lapsed_draw": _("The draw offer lapsed: a move was played."),
        "lapsed_undo": _("The take-back request lapsed: a move was played."),
        "ann_draw_offered": _("%(player)s offers a draw."),
        "ann_draw_declined": _("%(player)s declined the draw."),
        "ann_undo_requested": _("%(player)s asks to take back their last move."),
        "ann_undo_declined": _("%(player)s declined the take-back."),
        "ann_rematch_offered": _("%(player)s proposes a rematch."),
        "ann_rematch_accepted": _("%(player)s accepted the rematch."),
        # Translators: on a spectator's page once the players started their rematch; the
        # page then opens the rematch by itself unless "Stay here" is pressed. Counts down.
        "rematch_follow": ngettext(
            "The rematch has begun: this page goes to it in %(count)s second.",
            "The rematch has begun: this page goes to it in %(count)s seconds.",
        ),
        "ann_seated": _("%(player)s took the free seat."),
        "ann_online": _("%(player)s is online."),
        "ann_offline": _("%(player)s went offline."),
        # offers
        "your_draw_offer": _("You offered a draw. Waiting for an answer."),
        "your_undo_request": _("You asked to take back your last move. Waiting for an answer."),
        "your_rematch": _("You proposed a rematch. Waiting for an answer."),
        "opponent_rematch": _("%(player)s wants a rematch."),
        "accept": _("Accept"),
        "decline": _("Decline"),
        # board labels
        "dots_line": _("Line %(line)s"),
        "dots_draw_line": _("Draw line %(line)s"),
        "square_empty": _("%(square)s, empty"),
        "square_checker": _("%(square)s, %(player)s checker"),
        "square_place": _("Place a checker on %(square)s"),
        "square_place_swap": _("Place a checker on %(square)s, then choose a swap"),
        # choosing the swap of a placement that forms a crosscut, one checker at a time
        "swap_prompt_first": _(
            "Your checker on %(square)s forms a crosscut. Choose the two checkers to swap:"
            " first one of the highlighted squares."
        ),
        "swap_prompt_second": _("Now choose the checker to swap with %(square)s."),
        "swap_prompt_confirm": _(
            "Swap %(a)s and %(b)s? Confirm, or choose a checker again to change the swap."
        ),
        "swap_pick_first": _("Choose %(square)s (%(player)s checker) for the swap"),
        "swap_pick_second": _("Swap %(square)s (%(player)s checker) with %(other)s"),
        "swap_pick_chosen": _("%(square)s is chosen: choose it again to take it back"),
        "swap_pick_chosen_pair": _(
            "%(square)s is chosen for the swap: choose it again to change the swap"
        ),
        "last_move": _("Last move: %(move)s"),
        # the analysis page
        "analysis_loading": _("The solver is working through the positions…"),
        "analysis_failed": _("The analysis could not be loaded. Reload the page to try again."),
        # %(seconds)s: a whole number of seconds
        "analysis_busy": _("The analysis is busy. Trying again in %(seconds)s s…"),
        "analysis_too_many": _(
            "You have asked the solver for a lot in the last minute. Trying again in %(seconds)s s…"
        ),
        "analysis_partial": _(
            "Some positions were not proved within the time limit; their values are left blank."
        ),
        "analysis_start": _("Start"),
        "not_proved": _("not proved"),
        "value_red": _("Red by %(boxes)s"),
        "value_blue": _("Blue by %(boxes)s"),
        "value_even": _("Even"),
        "mistake": _("Mistake: gives away %(boxes)s"),
        "best_move": _("Best move"),
        "best_moves": _("Best: %(moves)s (%(value)s)"),
        "best_none": _("No move left: the game is over."),
        "best_unproved": _("The solver found no proof in time."),
        "thinking": _("Thinking…"),
        # Translators: after the first three best moves named on the analysis board, how
        # many more there are: "Best here: a1-b1, a1-a2, b1-c1 and 21 more".
        "eval_best_more": ngettext("and %(count)s more", "and %(count)s more"),
        # copy buttons
        "copied": _("Copied"),
        "copy_failed": _("Could not copy: select the link and copy it yourself."),
        # errors
        "server_error": _("Refused: %(message)s"),
        # why the server refused, by the error's code (docs/protocol.md); the server's own
        # message is English, so the page says it in its language instead
        **{f"error_{code}": text for code, text in error_texts(catalog).items()},
        # the table's own reasons for a refusal, by the English sentence the server sends,
        # and the games' reasons for refusing a move (with %(name)s placeholders)
        "refusals": {reason: _(reason) for reason in (*REASONS, *move_errors())},
        **replay_strings(catalog, cells),
        **clock_strings(catalog),  # the clocks and notifications (web/timing.py)
    }


def move_errors() -> tuple[str, ...]:
    """Every game's catalog messages for a refused move."""
    return tuple(reason for cls in registry().values() for reason in cls.move_errors)


#: The error codes of docs/protocol.md.
ERROR_CODES = (
    "malformed",
    "too_large",
    "unknown_type",
    "protocol",
    "not_seated",
    "not_your_turn",
    "stale",
    "illegal",
    "game_over",
    "no_offer",
    "busy",
    "rate_limited",
    "too_many_connections",
    "seat_key_replaced",
    "unavailable",
    "idle",
    "not_found",
    "internal",
)


def error_texts(catalog: gettext.NullTranslations) -> dict[str, str]:
    """A sentence for each error code the server may send."""
    _ = catalog.gettext
    broken = _("The page sent something the server did not understand. Reload the page.")
    return {
        "malformed": broken,
        "too_large": broken,
        "unknown_type": broken,
        "protocol": _("This page is out of date. Reload it."),
        "not_seated": _("Only the two players can do that."),
        "not_your_turn": _("It is not your turn."),
        "stale": _("The board has changed: here it is as it stands now."),
        "illegal": _("That is not allowed at this point of the game."),
        "game_over": _("The game is already over."),
        "no_offer": _("There is no offer to answer."),
        "busy": _("Several changes reached the table at once. Try again."),
        "rate_limited": _("Too many actions at once. Wait a moment and try again."),
        # The scale-out limits reuse translated sentences that say what to do about them.
        "too_many_connections": _("Too many actions at once. Wait a moment and try again."),
        "seat_key_replaced": _(
            "This seat has a new link, made on another page or device: this page no longer "
            "plays here and only watches. To play here again, open the new link."
        ),
        "unavailable": _(
            "The server cannot save the game just now, so that was not done. Try again in a moment."
        ),
        "idle": _("This page is out of date. Reload it."),
        "not_found": _("There is no such table."),
        "internal": _("Something went wrong on the server. Try again."),
    }
