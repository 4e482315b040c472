"""The translated strings of the replay controls and the analysis board (``replay.js``,
``analysis.js``), merged into :func:`playtable.web.client_strings.client_strings`."""

from __future__ import annotations

import gettext


def replay_strings(catalog: gettext.NullTranslations, cells: bool = False) -> dict[str, str]:
    """``cells``: a triangle or hexagon board, whose cells are not boxes (client_strings)."""
    _ = catalog.gettext
    return {
        # the replay controls of every table page
        "replay_label": _("Replay"),
        "replay_start": _("Starting position"),
        "replay_back": _("Previous move"),
        "replay_forward": _("Next move"),
        "replay_end": _("Latest position"),
        "replay_live": _("Back to the game"),
        "replay_at_start": _("Starting position (%(total)s moves played)."),
        "replay_at": _("After move %(ply)s of %(total)s."),
        "replay_past": _("An earlier position: the board takes no moves here."),
        "replay_new_move": _("New move: %(move)s."),
        "replay_help": _(
            "Step through the game with these buttons, the ← → Home End keys, or a click "
            "on a move in the list."
        ),
        "coordinates": _("Coordinates"),
        "picture_png": _("Picture of this position"),
        "picture_gif": _("Animated GIF of the game"),
        # the analysis board: a value is the result with perfect play from the position on
        "eval_draw": _("A draw with perfect play"),
        "eval_unknown": _("Not proved: the solver found no proof in time"),
        "eval_graph": _(
            "Evaluation graph: the value after each move. Up: Red wins, down: Blue wins; "
            "filled points are proved with perfect play, hollow points on a dashed line are "
            "estimates, and ? is not analysed yet. Click a point to see that position."
        ),
        "eval_graph_rate": _(
            "Evaluation graph: Red's share of the games the computer's search simulated after "
            "each move. Up: Red wins more, down: Blue wins more; hollow points are estimates, "
            "filled ones a decided game. Click a point to see that position."
        ),
        # the background analysis, and the estimates where no proof came in time
        "analysis_streaming": _(
            "Analysing in the background: %(done)s of %(total)s positions so far…"
        ),
        "eval_pending": _("Not analysed yet"),
        "analysis_retrying": _("The solver is trying the estimated endgames again…"),
        "eval_about_even": _("About even (estimate)"),
        "eval_some_estimates": _(
            "Positions not proved in time: %(count)s of %(total)s. Their values are estimates "
            "from the bots' search, drawn hollow on a dashed line and marked (estimate)."
        ),
        # Swaptimum: %(percent)s is a percentage, such as 64%.
        "eval_rate": _("%(player)s wins %(percent)s of simulated games (estimate)"),
        "eval_rate_you": _("You win %(percent)s of simulated games (estimate)"),
        "eval_decided": _("%(player)s wins: the game is decided"),
        "eval_decided_you_win": _("You win: the game is decided"),
        "eval_decided_you_lose": _("You lose: the game is decided"),
        "eval_decided_draw": _("A draw: the game is decided"),
        "eval_rate_note": _(
            "These values are estimates from the computer's search, except where the game is "
            "decided."
        ),
        # Translators: the mark on the evaluation graph of a position the solver did not prove.
        "eval_unknown_mark": _("?"),
        "eval_red_side": _("Red wins"),
        "eval_blue_side": _("Blue wins"),
        "eval_position": _("After move %(ply)s (%(player)s %(move)s): %(value)s."),
        "eval_start": _("Starting position: %(value)s."),
        "eval_before": _("Before this move: %(value)s."),
        "eval_best_here": _("Best here: %(moves)s (dashed green on the board)."),
        "eval_best_none": _("The game is over: no move left."),
        "eval_seen_as": _("Values from your side: you play %(player)s."),
        "eval_partial": _(
            "Some positions were not proved within the time limit: the graph marks them "
            "with ?, and the list says not proved."
        ),
        **(cell_values(catalog) if cells else box_values(catalog)),
    }


def box_values(catalog: gettext.NullTranslations) -> dict[str, str]:
    """The analysis board's values on a square grid, where %(boxes)s counts boxes."""
    _ = catalog.gettext
    return {
        "eval_wins": _("%(player)s wins by %(boxes)s with perfect play"),
        "eval_you_win": _("You win by %(boxes)s with perfect play"),
        "eval_you_lose": _("You lose by %(boxes)s with perfect play"),
        # Translators: an estimate from the bots' search, not a proof: "About Blue by 2".
        "eval_about": _("About %(player)s by %(boxes)s (estimate)"),
        "eval_about_you_win": _("You are ahead by about %(boxes)s (estimate)"),
        "eval_about_you_lose": _("You are behind by about %(boxes)s (estimate)"),
        # Translators: %(boxes)s is how many boxes the move handed to the opponent.
        "eval_mistake": _("Mistake: %(player)s gave away %(boxes)s."),
        "eval_misere": _("Misère: the player with fewer boxes wins, and the values say so."),
    }


def cell_values(catalog: gettext.NullTranslations) -> dict[str, str]:
    """The same on a triangle or hexagon grid, where %(boxes)s counts cells: the English is
    the square grid's, with a context of its own for the languages that name the unit
    ("by 2 cells", as the atlas says). Literal contexts: the catalogs are extracted."""
    _, pgettext = catalog.gettext, catalog.pgettext
    return {
        "eval_wins": pgettext(
            "triangle or hexagon cells", "%(player)s wins by %(boxes)s with perfect play"
        ),
        "eval_you_win": pgettext(
            "triangle or hexagon cells", "You win by %(boxes)s with perfect play"
        ),
        "eval_you_lose": pgettext(
            "triangle or hexagon cells", "You lose by %(boxes)s with perfect play"
        ),
        "eval_about": pgettext(
            "triangle or hexagon cells", "About %(player)s by %(boxes)s (estimate)"
        ),
        "eval_about_you_win": pgettext(
            "triangle or hexagon cells", "You are ahead by about %(boxes)s (estimate)"
        ),
        "eval_about_you_lose": pgettext(
            "triangle or hexagon cells", "You are behind by about %(boxes)s (estimate)"
        ),
        "eval_mistake": pgettext(
            "triangle or hexagon cells", "Mistake: %(player)s gave away %(boxes)s."
        ),
        "eval_misere": _("Misère: the player with fewer cells wins, and the values say so."),
    }
