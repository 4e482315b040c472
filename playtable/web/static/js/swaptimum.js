// The Swaptimum board: N x N squares, red sides top and bottom, blue sides left and right.
// A placement that forms a crosscut is played in steps that cannot misfire: the square
// (its checker drawn provisionally), then the two checkers of the swap, one at a time, each
// possible one highlighted as a whole square, then a confirmation outside the board
// (`onPending` tells the page which step it is at). Any step can be taken back.

import { BoardControls, morph, positionList, r2, svgEl } from "./board.js";
import { playerName, refusal, t } from "./i18n.js";
import { SwapChoice, parseMove } from "./swap_choice.js";

export { parseMove };

const U = 100;
// room for the coloured sides and the coordinates, in squares (more on big boards, whose
// coordinates are relatively larger)
const padFor = (size) => (size > 12 ? 1.0 : 0.8);
const MAX_PX_PER_SQUARE = 72;

export function squareName(index, size) {
  const row = Math.floor(index / size);
  const col = index % size;
  return `${String.fromCharCode(97 + col)}${row + 1}`;
}

export function squareIndex(name, size) {
  const col = name.charCodeAt(0) - 97;
  const row = Number.parseInt(name.slice(1), 10) - 1;
  return row * size + col;
}

// The rules' reason for an empty square nobody may place on (playtable/games/swaptimum.py
// RESTRICTED, translated in the page's refusals).
const RESTRICTED = "You cannot place a checker on %(square)s: every swap would leave a crosscut.";

export class SwaptimumBoard {
  // `still: true` draws a picture that nobody plays on (the diagrams of the rules page).
  // `onPending(choice or null)` follows the swap being chosen (a SwapChoice).
  // `describe`: the checkers are also listed in words for screen readers (see dots.js).
  // `onRefused(text)`: a tap on an empty square the placement restriction forbids, with the
  // rules' reason (as the server would refuse it) in the page's language.
  constructor(
    root,
    { onMove = null, onPending = null, onRefused = null, still = false, describe = !still } = {},
  ) {
    this.root = root;
    this.onRefused = onRefused || (() => {});
    this.describe = describe;
    this.onMove = onMove;
    this.onPending = onPending || (() => {});
    this.choice = null;
    this.table = null;
    this.interactive = false;
    this.turned = false;
    this.controls = null;
    if (still) return;
    this.controls = new BoardControls(root, {
      onActivate: (move, target, byKeyboard) => this.activate(move, target, byKeyboard),
      onEscape: () => this.back(),
    });
  }

  get pending() {
    return this.choice ? this.choice.square : null;
  }

  activate(move, target, byKeyboard) {
    const keep = byKeyboard || this.controls.hasFocus();
    if (this.choice) {
      const name = target ? target.dataset.pick : null;
      if (!name) return;
      this.choice.pick(name);
      this.draw(keep, this.choice.picked.length === 1 ? null : `pick:${name}`);
      this.onPending(this.choice, { byKeyboard });
      return;
    }
    if (!move) {
      // an empty square nobody may place on now: say why, where the tap was
      if (target && target.dataset.refusal) this.onRefused(target.dataset.refusal);
      return;
    }
    const options = this.table.view.placements[move];
    if (options && !(options.length === 1 && options[0] === move)) {
      this.choice = new SwapChoice(move, options);
      this.draw(keep);
      this.onPending(this.choice, { byKeyboard });
      return;
    }
    this.onMove(move);
  }

  /** Play the chosen swap; false if the pair is not complete. */
  confirmSwap() {
    const move = this.choice ? this.choice.move() : null;
    if (!move) return false;
    this.choice = null;
    this.onPending(null, {});
    this.onMove(move);
    return true;
  }

  /** One step back: the last chosen checker, else the provisional placement. True if
   * there was something to take back. */
  back({ focus = false } = {}) {
    if (!this.choice) return false;
    if (this.choice.back()) {
      this.draw(focus || this.controls.hasFocus());
      this.onPending(this.choice, { byKeyboard: focus });
      return true;
    }
    return this.cancel({ focus });
  }

  /** Take back a provisional placement; true if there was one. The focus goes back to
   * its square if it was on the board, or if `focus` asks for it (the Cancel button). */
  cancel({ focus = false } = {}) {
    if (!this.choice) return false;
    const square = this.choice.square;
    this.choice = null;
    this.draw(focus || this.controls.hasFocus(), square);
    this.onPending(null, {});
    return true;
  }

  /** Draw the board a quarter turn round, so that Blue's sides are at top and bottom. */
  setTurned(turned) {
    this.turned = Boolean(turned);
    if (this.table) this.draw(this.controls ? this.controls.hasFocus() : false);
  }

  render(table, { interactive }) {
    const before = this.table ? this.table.ply : null;
    this.table = table;
    this.interactive = interactive;
    const stillLegal =
      interactive && this.choice && table.ply === before && table.view.placements[this.pending];
    if (this.choice && !stillLegal) {
      this.choice = null;
      this.onPending(null, {});
    }
    this.draw(this.controls ? this.controls.hasFocus() : false);
  }

  draw(keepFocus, prefer = null) {
    const table = this.table;
    const view = table.view;
    const N = view.size;
    const PAD = padFor(N);
    // A quarter turn clockwise when turned: column c, row r is drawn where row c, column
    // N-1-r would be, so the a-file runs along the top and Blue's sides face the player.
    const at = (col, row) =>
      this.turned
        ? { x: r2(row * U), y: r2(col * U) }
        : { x: r2(col * U), y: r2((N - 1 - row) * U) };
    const centre = (name) => {
      const index = squareIndex(name, N);
      const p = at(index % N, Math.floor(index / N));
      return { x: p.x + U / 2, y: p.y + U / 2 };
    };
    const choice = this.interactive ? this.choice : null;

    const svg = svgEl("svg", {
      class: `board-svg swaptimum-board${choice ? " is-pending" : ""}${this.turned ? " is-turned" : ""}`,
      viewBox: `${-PAD * U} ${-PAD * U} ${(N + 2 * PAD) * U} ${(N + 2 * PAD) * U}`,
      role: "presentation",
      focusable: "false",
    });
    svg.style.maxWidth = `${Math.round((N + 2 * PAD) * MAX_PX_PER_SQUARE)}px`;
    svg.dataset.squares = String(N + 2 * PAD);

    // The coloured sides: red joins top and bottom, blue joins left and right (the other
    // way round when turned).
    const sides = svgEl("g", { class: "sides", "aria-hidden": "true" }, svg);
    const bar = 0.22 * U;
    const gap = 0.07 * U;
    const [across, along] = this.turned ? ["blue", "red"] : ["red", "blue"];
    for (const y of [-gap - bar, N * U + gap]) {
      svgEl(
        "rect",
        { x: 0, y, width: N * U, height: bar, class: `board-side board-side--${across}` },
        sides,
      );
    }
    for (const x of [-gap - bar, N * U + gap]) {
      svgEl(
        "rect",
        { x, y: 0, width: bar, height: N * U, class: `board-side board-side--${along}` },
        sides,
      );
    }

    // big boards have small squares: their coordinates take a larger share of a square
    const labels = svgEl(
      "g",
      { class: `coords${N > 12 ? " coords--large" : ""}`, "aria-hidden": "true" },
      svg,
    );
    for (let i = 0; i < N; i++) {
      const fileAt = this.turned
        ? { x: -0.36 * U, y: i * U + U / 2, "text-anchor": "end" }
        : { x: i * U + U / 2, y: N * U + 0.58 * U, "text-anchor": "middle" };
      const file = svgEl("text", { ...fileAt, "dominant-baseline": "central" }, labels);
      file.textContent = String.fromCharCode(97 + i);
      const rankAt = this.turned
        ? { x: i * U + U / 2, y: N * U + 0.58 * U, "text-anchor": "middle" }
        : { x: -0.36 * U, y: (N - 1 - i) * U + U / 2, "text-anchor": "end" };
      const rank = svgEl("text", { ...rankAt, "dominant-baseline": "central" }, labels);
      rank.textContent = String(i + 1);
    }

    const lastMove = table.moves.length ? table.moves[table.moves.length - 1] : null;
    const [lastPlacement, lastSwap] = lastMove ? parseMove(lastMove) : [null, null];
    const path = new Set(view.winning_path || []);

    // What the board would hold: the provisional checker placed and, once both checkers
    // are chosen, the swap made (a preview until it is confirmed).
    const shown = [...view.board];
    const chosen = choice ? choice.pair() : null;
    if (choice) {
      shown[squareIndex(choice.square, N)] = view.to_move;
      if (chosen) {
        const [i, j] = chosen.map((name) => squareIndex(name, N));
        [shown[i], shown[j]] = [shown[j], shown[i]];
      }
    }

    // squares that can take part in the swap are tinted beneath their checkers, whose
    // colours stay as they are
    const choosable = new Set(choice ? choice.choosable() : []);
    const picked = new Set(choice ? choice.picked : []);
    const squares = svgEl("g", { class: "squares", "aria-hidden": "true" }, svg);
    const checkers = svgEl("g", { class: "checkers", "aria-hidden": "true" }, svg);
    shown.forEach((owner, index) => {
      const name = squareName(index, N);
      const col = index % N;
      const row = Math.floor(index / N);
      const p = at(col, row);
      let cls = `sq ${(row + col) % 2 ? "sq--light" : "sq--dark"}`;
      if (path.has(index)) cls += " sq--path";
      if (picked.has(name)) cls += " sq--chosen";
      else if (choosable.has(name)) cls += " sq--choosable";
      svgEl("rect", { x: p.x, y: p.y, width: U, height: U, class: cls }, squares);
      if (!owner) return;
      let extra = "";
      if (choice && name === choice.square) extra += " checker--provisional";
      if (chosen && chosen.includes(name)) extra += " checker--swapped";
      drawChecker(checkers, p.x + U / 2, p.y + U / 2, owner, extra, name);
    });

    // The last move: a ring on the placed square, dashed outlines on a swapped pair.
    const marks = svgEl("g", { class: "last-move", "aria-hidden": "true" }, svg);
    if (lastPlacement && !choice) {
      insetSquare(marks, centre(lastPlacement), 5, "last-square", { rx: 6 });
    }
    if (lastSwap && !choice) {
      for (const name of lastSwap) {
        insetSquare(marks, centre(name), 12, "last-swap");
      }
      const a = centre(lastSwap[0]);
      const b = centre(lastSwap[1]);
      svgEl("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "last-swap-line" }, marks);
    }

    const targets = svgEl("g", { class: "targets" }, svg);
    if (this.interactive && !choice) {
      for (const [name, options] of Object.entries(view.placements)) {
        const c = centre(name);
        const needsSwap = !(options.length === 1 && options[0] === name);
        const target = svgEl(
          "g",
          {
            class: `target sq-target${needsSwap ? " needs-swap" : ""}`,
            "data-move": name,
            "data-key": name,
            role: "button",
            tabindex: "-1",
            "aria-label": t(needsSwap ? "square_place_swap" : "square_place", { square: name }),
          },
          targets,
        );
        svgEl(
          "rect",
          { x: c.x - U / 2, y: c.y - U / 2, width: U, height: U, class: "hit" },
          target,
        );
        drawChecker(target, c.x, c.y, view.to_move, " checker--ghost");
      }
      // The empty squares the placement restriction forbids: no move, but a tap (or Enter)
      // is told why, as the server would refuse it, rather than nothing happening.
      view.board.forEach((owner, index) => {
        const name = squareName(index, N);
        if (owner || Object.hasOwn(view.placements, name)) return;
        const reason = refusal(RESTRICTED, { square: name });
        if (!reason) return;
        const c = centre(name);
        const target = svgEl(
          "g",
          {
            class: "target sq-forbidden",
            "data-key": name,
            "data-refusal": reason,
            role: "button",
            tabindex: "-1",
            "aria-disabled": "true",
            "aria-label": reason,
          },
          targets,
        );
        svgEl(
          "rect",
          { x: c.x - U / 2, y: c.y - U / 2, width: U, height: U, class: "hit" },
          target,
        );
      });
    }

    if (choice) this.drawChoice(svg, choice, shown, centre);

    // Squares a diagram points at (view.marked, only in still pictures).
    for (const name of view.marked || []) {
      insetSquare(marks, centre(name), 4, "marked-square");
    }

    // the checkers in words: the arrow keys reach only the empty squares
    const words = this.describe
      ? positionList(
          view.board
            .map((owner, index) => owner && checkerWords(squareName(index, N), owner))
            .filter(Boolean),
        )
      : null;
    morph(this.root, [svg, words].filter(Boolean));
    if (!this.controls) return;
    let first = prefer;
    if (choice && !first) {
      const open = choice.choosable().filter((name) => !choice.picked.includes(name));
      first = `pick:${open[0] || choice.picked[0]}`;
    }
    this.controls.refresh({ hadFocus: keepFocus, prefer: first });
  }

  drawChoice(svg, choice, shown, centre) {
    const N = this.table.view.size;
    // the crosscut(s) the placement forms, outlined so the reason for the swap is visible
    const formed = crosscutsFormed(
      this.table.view.board,
      N,
      squareIndex(choice.square, N),
      this.table.view.to_move,
    );
    const outline = svgEl("g", { class: "crosscuts", "aria-hidden": "true" }, svg);
    for (const [col, row] of formed) {
      const corners = [
        [col, row],
        [col + 1, row + 1],
      ].map(([c, r]) => centre(squareName(r * N + c, N)));
      const x = Math.min(corners[0].x, corners[1].x) - U / 2;
      const y = Math.min(corners[0].y, corners[1].y) - U / 2;
      svgEl(
        "rect",
        { x: x + 3, y: y + 3, width: 2 * U - 6, height: 2 * U - 6, rx: 10, class: "crosscut" },
        outline,
      );
    }
    // the provisional checker: a dashed ring around it, in whatever colour it now has
    insetSquare(outline, centre(choice.square), 2, "provisional-square", { rx: 50 });

    const chosen = choice.pair();
    if (chosen) {
      const a = centre(chosen[0]);
      const b = centre(chosen[1]);
      svgEl("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "swap-line" }, outline);
    }

    const layer = svgEl("g", { class: "targets swap-picks" }, svg);
    for (const name of choice.choosable()) {
      const picked = choice.picked.includes(name);
      const owner = shown[squareIndex(name, N)];
      const label = picked
        ? t(chosen ? "swap_pick_chosen_pair" : "swap_pick_chosen", { square: name })
        : t(choice.picked.length ? "swap_pick_second" : "swap_pick_first", {
            square: name,
            player: playerName(owner),
            other: choice.picked[0] || "",
          });
      const target = svgEl(
        "g",
        {
          class: `target swap-pick${picked ? " is-picked" : ""}`,
          "data-pick": name,
          "data-key": `pick:${name}`,
          role: "button",
          tabindex: "-1",
          "aria-pressed": picked ? "true" : "false",
          "aria-label": label,
        },
        layer,
      );
      insetSquare(target, centre(name), 4, "pick-square");
    }
  }
}

/**
 * The 2x2 blocks (by their lower-left column and row) that become crosscuts when `player`
 * places on `index`: four checkers, like colours diagonally opposite.
 */
export function crosscutsFormed(board, size, index, player) {
  const col = index % size;
  const row = Math.floor(index / size);
  const at = (c, r) => (c === col && r === row ? player : board[r * size + c]);
  const blocks = [];
  for (const c of [col - 1, col]) {
    for (const r of [row - 1, row]) {
      if (c < 0 || r < 0 || c + 1 >= size || r + 1 >= size) continue;
      const a = at(c, r);
      const b = at(c + 1, r);
      const d = at(c, r + 1);
      const e = at(c + 1, r + 1);
      if (a && b && d && e && a === e && b === d && a !== b) blocks.push([c, r]);
    }
  }
  return blocks;
}

// A square drawn `inset` units inside the cell centred on `c` (marks and highlights).
function insetSquare(parent, c, inset, cls, extra = {}) {
  return svgEl(
    "rect",
    {
      x: c.x - U / 2 + inset,
      y: c.y - U / 2 + inset,
      width: U - 2 * inset,
      height: U - 2 * inset,
      class: cls,
      ...extra,
    },
    parent,
  );
}

function checkerWords(square, player) {
  return t("square_checker", { square, player: playerName(player) });
}

function drawChecker(parent, x, y, player, extra = "", name = null) {
  const group = svgEl(
    "g",
    { class: `checker checker--${player}${extra}`, "data-square": name },
    parent,
  );
  svgEl("circle", { cx: x, cy: y, r: 36, class: "checker-disc" }, group);
  // Blue checkers carry a ring, red ones a solid centre: the colours never differ by hue alone.
  if (player === "blue") {
    svgEl("circle", { cx: x, cy: y, r: 17, class: "checker-ring" }, group);
  } else {
    svgEl("circle", { cx: x, cy: y, r: 11, class: "checker-core" }, group);
  }
  if (name) {
    const title = svgEl("title", {}, group);
    title.textContent = checkerWords(name, player);
  }
  return group;
}
