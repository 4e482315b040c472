"""The translated strings of the replay controls and the analysis board (``replay.js``,
``analysis.js``), merged into :func:`playtable.web.client_strings.client_strings`."""

from __future__ import annotations

import gettext

from playtable.web.plurals import plural_forms


def replay_strings(
    catalog: gettext.NullTranslations, cells: bool = False
) -> dict[str, str | dict[str, str]]:
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
        # the same button once the game is over: it shows the game's last position again
        "replay_final": _("Back to the final position"),
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
            "estimates, and ? is not analysed yet. Click a point, or use the arrow keys on the "
            "graph, to see that position."
        ),
        "eval_graph_rate": _(
            "Evaluation graph: Red's share of the games the computer's search simulated after "
            "each move. Up: Red wins more, down: Blue wins more; hollow points are estimates, "
            "filled ones a decided game. Click a point, or use the arrow keys on the graph, to "
            "see that position."
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


def box_values(catalog: gettext.NullTranslations) -> dict[str, str | dict[str, str]]:
    """The analysis board's values on a square grid: each margin counted in boxes, one form
    a plural category (``tn`` in ``i18n.js`` fills %(count)s)."""
    _ = catalog.gettext

    def ngettext(singular: str, plural: str) -> dict[str, str]:
        return plural_forms(catalog, singular, plural)

    return {
        "eval_wins": ngettext(
            "%(player)s wins by %(count)s box with perfect play",
            "%(player)s wins by %(count)s boxes with perfect play",
        ),
        "eval_you_win": ngettext(
            "You win by %(count)s box with perfect play",
            "You win by %(count)s boxes with perfect play",
        ),
        "eval_you_lose": ngettext(
            "You lose by %(count)s box with perfect play",
            "You lose by %(count)s boxes with perfect play",
        ),
        # Translators: an estimate from the bots' search, not a proof: "About Blue by 2 boxes".
        "eval_about": ngettext(
            "About %(player)s by %(count)s box (estimate)",
            "About %(player)s by %(count)s boxes (estimate)",
        ),
        "eval_about_you_win": ngettext(
            "You are ahead by about %(count)s box (estimate)",
            "You are ahead by about %(count)s boxes (estimate)",
        ),
        "eval_about_you_lose": ngettext(
            "You are behind by about %(count)s box (estimate)",
            "You are behind by about %(count)s boxes (estimate)",
        ),
        # Translators: %(count)s is how many boxes the move handed to the opponent.
        "eval_mistake": ngettext(
            "Mistake: %(player)s gave away %(count)s box.",
            "Mistake: %(player)s gave away %(count)s boxes.",
        ),
        # Translators: misère (the fewer boxes win): %(count)s is how many boxes more than
        # with the best move the player ends up with.
        "eval_mistake_misere": ngettext(
            "Mistake: %(player)s took %(count)s box too many.",
            "Mistake: %(player)s took %(count)s boxes too many.",
        ),
        "eval_misere": _("Misère: the player with fewer boxes wins, and the values say so."),
        # Translators: the analysis board's heading of a position after a move that claimed
        # boxes: "After move 13 (Blue b2-c2, claimed 2 boxes): Blue wins by 3 boxes …".
        "eval_position_claim": ngettext(
            "After move %(ply)s (%(player)s %(move)s, claimed %(count)s box): %(value)s.",
            "After move %(ply)s (%(player)s %(move)s, claimed %(count)s boxes): %(value)s.",
        ),
    }


def cell_values(catalog: gettext.NullTranslations) -> dict[str, str | dict[str, str]]:
    """The same on a triangle or hexagon grid, counted in cells, as the rules, the variant
    pages and the atlas say. Literal calls: the catalogs are extracted from them."""
    _ = catalog.gettext

    def ngettext(singular: str, plural: str) -> dict[str, str]:
        return plural_forms(catalog, singular, plural)

    return {
        "eval_wins": ngettext(
            "%(player)s wins by %(count)s cell with perfect play",
            "%(player)s wins by %(count)s cells with perfect play",
        ),
        "eval_you_win": ngettext(
            "You win by %(count)s cell with perfect play",
            "You win by %(count)s cells with perfect play",
        ),
        "eval_you_lose": ngettext(
            "You lose by %(count)s cell with perfect play",
            "You lose by %(count)s cells with perfect play",
        ),
        "eval_about": ngettext(
            "About %(player)s by %(count)s cell (estimate)",
            "About %(player)s by %(count)s cells (estimate)",
        ),
        "eval_about_you_win": ngettext(
            "You are ahead by about %(count)s cell (estimate)",
            "You are ahead by about %(count)s cells (estimate)",
        ),
        "eval_about_you_lose": ngettext(
            "You are behind by about %(count)s cell (estimate)",
            "You are behind by about %(count)s cells (estimate)",
        ),
        # Translators: %(count)s is how many cells the move handed to the opponent.
        "eval_mistake": ngettext(
            "Mistake: %(player)s gave away %(count)s cell.",
            "Mistake: %(player)s gave away %(count)s cells.",
        ),
        "eval_mistake_misere": ngettext(
            "Mistake: %(player)s took %(count)s cell too many.",
            "Mistake: %(player)s took %(count)s cells too many.",
        ),
        "eval_misere": _("Misère: the player with fewer cells wins, and the values say so."),
        "eval_position_claim": ngettext(
            "After move %(ply)s (%(player)s %(move)s, claimed %(count)s cell): %(value)s.",
            "After move %(ply)s (%(player)s %(move)s, claimed %(count)s cells): %(value)s.",
        ),
    }
