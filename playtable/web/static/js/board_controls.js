// The controls around the table's board: the display choices under it (turned, move sounds,
// zoom for big boards on small screens) and the chooser of a Swaptimum swap.

import { t } from "./i18n.js";
import { announce } from "./notices.js";
import { toggleButton } from "./prefs.js";
import { setSound } from "./sound.js";

const $ = (id) => document.getElementById(id);

// -- display choices: zoom (big boards on small screens), the board turned, sounds -------
// Squares smaller than this on screen: offer the zoom, which draws them this big. A board
// may say otherwise (`data-zoom-below`, `data-zoomed-px` on its svg: Dots and Boxes, whose
// targets are the lines along a box's side, wants bigger boxes).
const ZOOM_BELOW_PX = 24;
const ZOOMED_PX = 34;
let zoomed = false;

/** Wire the display choices to `board` (drawn in `boardRoot`) of a `game`. */
export function setUpDisplayChoices(board, boardRoot, game) {
  toggleButton($("board-turn"), `turned-${game}`, (on) => board.setTurned(on));
  toggleButton($("sound-toggle"), "sound", setSound);
  $("board-zoom")?.addEventListener("click", () => {
    zoomed = !zoomed;
    fitZoom(boardRoot, { measure: true });
  });
  // the board's room changed (a turned phone, a resized window, the panels beside it): told
  // once laid out, so measuring here costs no layout of its own
  new ResizeObserver(() => fitZoom(boardRoot, { measure: true })).observe(boardRoot);
}

// What the last measure found: the board's squares and width limit, and the on-screen width
// of one square. A move draws the board anew but the same size: measuring it at every move
// forced a layout of the whole page in the middle of drawing it (a 12x12 board on a
// throttled phone: 50 ms of every move's 175, bench/client.py).
let measured = null;

/** Offer the zoom when the board's squares are too small to touch, and draw it zoomed when
 * chosen. `measure`: the board's room may have changed, measure it again (else a board of the
 * same squares and width limit as last time is taken to be as wide as it was). */
export function fitZoom(boardRoot, { measure = false } = {}) {
  const button = $("board-zoom");
  const svg = boardRoot.querySelector("svg");
  if (!button || !svg) return;
  const squares = Number(svg.dataset.squares || "0");
  const below = Number(svg.dataset.zoomBelow || ZOOM_BELOW_PX);
  const zoomedPx = Number(svg.dataset.zoomedPx || ZOOMED_PX);
  boardRoot.style.setProperty("--zoomed-width", `${Math.round(squares * zoomedPx)}px`);
  boardRoot.classList.toggle("is-zoomed", zoomed);
  button.setAttribute("aria-pressed", zoomed ? "true" : "false");
  if (!zoomed) {
    const key = `${squares}|${svg.style.maxWidth}`;
    if (measure || !measured || measured.key !== key) {
      const perSquare = squares ? svg.getBoundingClientRect().width / squares : Infinity;
      measured = { key, perSquare };
    }
    button.hidden = !(measured.perSquare < below);
  } else {
    button.hidden = false;
  }
}

// -- the swap chooser -----------------------------------------------------------------------
// The swap of a placement that forms a crosscut: the board takes the two checkers, this
// panel (always within the viewport) says what to do next and holds the confirmation.
export function showSwapChooser(boardRoot, choice, { byKeyboard = false } = {}) {
  const chooser = $("swap-chooser");
  document.body.classList.toggle("is-choosing-swap", Boolean(choice));
  if (!choice) {
    chooser.hidden = true;
    document.documentElement.style.removeProperty("--chooser-space");
    return;
  }
  const pair = choice.pair();
  let text;
  if (pair) text = t("swap_prompt_confirm", { a: pair[0], b: pair[1] });
  else if (choice.picked.length) text = t("swap_prompt_second", { square: choice.picked[0] });
  else text = t("swap_prompt_first", { square: choice.square });
  $("swap-prompt").textContent = text;
  $("swap-confirm").disabled = !pair;
  const opening = chooser.hidden;
  chooser.hidden = false;
  document.documentElement.style.setProperty("--chooser-space", `${chooser.offsetHeight}px`);
  if (opening) boardRoot.scrollIntoView({ block: "nearest" });
  announce(text);
  if (pair && byKeyboard) $("swap-confirm").focus();
}

/** Wire the chooser's buttons, and Escape anywhere on the page, to `board`. */
export function setUpSwapChooser(board, boardRoot) {
  $("swap-confirm")?.addEventListener("click", () => {
    // a keyboard player who confirmed lands back on the board (its root until the turn
    // comes round again), not on the vanished button
    const fromKeyboard = document.activeElement === $("swap-confirm");
    if (board.confirmSwap() && fromKeyboard) boardRoot.focus({ preventScroll: true });
  });
  $("swap-cancel")?.addEventListener("click", () => board.cancel({ focus: true }));
  document.addEventListener("keydown", (event) => {
    // the board handles its own Escape (one step back); elsewhere it steps back too
    if (event.key !== "Escape" || event.defaultPrevented || !board.back) return;
    if (board.back({ focus: true })) event.preventDefault();
  });
}
