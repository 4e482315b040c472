// The Swaptimum board: N x N squares, red sides top and bottom, blue sides left and right.
// A placement that forms a crosscut is played in two clicks: the square (shown
// provisionally), then one of the legal swaps, each drawn as a clickable double arrow.

import { BoardControls, r2, svgEl } from "./board.js";
import { playerName, t } from "./i18n.js";

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

/** The placement and the swapped pair of a move text: "d4:c3-d4" -> ["d4", ["c3", "d4"]]. */
export function parseMove(text) {
  const [placement, swap] = text.split(":");
  return [placement, swap ? swap.split("-") : null];
}

export class SwaptimumBoard {
  // `still: true` draws a picture that nobody plays on (the diagrams of the rules page).
  constructor(root, { onMove = null, onPending = null, still = false } = {}) {
    this.root = root;
    this.onMove = onMove;
    this.onPending = onPending; // (square or null, [move texts]) -> the page shows the chooser
    this.pending = null;
    this.table = null;
    this.interactive = false;
    this.controls = null;
    if (still) return;
    this.controls = new BoardControls(root, {
      onActivate: (move, target, byKeyboard) => this.activate(move, byKeyboard),
      onEscape: () => this.cancel(),
    });
    root.addEventListener("click", (event) => {
      if (event.target.closest("[data-cancel]")) this.cancel();
    });
  }

  activate(move, byKeyboard) {
    const options = this.table.view.placements[move];
    if (!this.pending && options && !(options.length === 1 && options[0] === move)) {
      this.pending = move;
      this.draw(byKeyboard || this.controls.hasFocus());
      this.onPending(move, options);
      return;
    }
    this.pending = null;
    this.onPending(null, []);
    this.onMove(move);
  }

  /** Take back a provisional placement; true if there was one. The focus goes back to
   * its square if it was on the board, or if `focus` asks for it (the Cancel button). */
  cancel({ focus = false } = {}) {
    if (!this.pending) return false;
    const square = this.pending;
    this.pending = null;
    this.draw(focus || this.controls.hasFocus(), square);
    this.onPending(null, []);
    return true;
  }

  render(table, { interactive }) {
    this.table = table;
    this.interactive = interactive;
    const stillLegal = interactive && this.pending && table.view.placements[this.pending];
    if (this.pending && !stillLegal) {
      this.pending = null;
      this.onPending(null, []);
    }
    this.draw(this.controls ? this.controls.hasFocus() : false);
  }

  draw(keepFocus, prefer = null) {
    const table = this.table;
    const view = table.view;
    const N = view.size;
    const PAD = padFor(N);
    const X = (col) => r2(col * U);
    const Y = (row) => r2((N - 1 - row) * U);
    const centre = (name) => {
      const index = squareIndex(name, N);
      return { x: X(index % N) + U / 2, y: Y(Math.floor(index / N)) + U / 2 };
    };

    const svg = svgEl("svg", {
      class: `board-svg swaptimum-board${this.pending ? " is-pending" : ""}`,
      viewBox: `${-PAD * U} ${-PAD * U} ${(N + 2 * PAD) * U} ${(N + 2 * PAD) * U}`,
      role: "presentation",
      focusable: "false",
    });
    svg.style.maxWidth = `${Math.round((N + 2 * PAD) * MAX_PX_PER_SQUARE)}px`;

    // The coloured sides: red joins top and bottom, blue joins left and right.
    const sides = svgEl("g", { class: "sides", "aria-hidden": "true" }, svg);
    const bar = 0.22 * U;
    const gap = 0.07 * U;
    svgEl(
      "rect",
      { x: 0, y: -gap - bar, width: N * U, height: bar, class: "board-side board-side--red" },
      sides,
    );
    svgEl(
      "rect",
      { x: 0, y: N * U + gap, width: N * U, height: bar, class: "board-side board-side--red" },
      sides,
    );
    svgEl(
      "rect",
      { x: -gap - bar, y: 0, width: bar, height: N * U, class: "board-side board-side--blue" },
      sides,
    );
    svgEl(
      "rect",
      { x: N * U + gap, y: 0, width: bar, height: N * U, class: "board-side board-side--blue" },
      sides,
    );

    // big boards have small squares: their coordinates take a larger share of a square
    const labels = svgEl(
      "g",
      { class: `coords${N > 12 ? " coords--large" : ""}`, "aria-hidden": "true" },
      svg,
    );
    for (let i = 0; i < N; i++) {
      const file = svgEl(
        "text",
        {
          x: X(i) + U / 2,
          y: N * U + 0.58 * U,
          "text-anchor": "middle",
          "dominant-baseline": "central",
        },
        labels,
      );
      file.textContent = String.fromCharCode(97 + i);
      const rank = svgEl(
        "text",
        { x: -0.36 * U, y: Y(i) + U / 2, "text-anchor": "end", "dominant-baseline": "central" },
        labels,
      );
      rank.textContent = String(i + 1);
    }

    const lastMove = table.moves.length ? table.moves[table.moves.length - 1] : null;
    const [lastPlacement, lastSwap] = lastMove ? parseMove(lastMove) : [null, null];
    const path = new Set(view.winning_path || []);

    const squares = svgEl("g", { class: "squares", "aria-hidden": "true" }, svg);
    const checkers = svgEl("g", { class: "checkers", "aria-hidden": "true" }, svg);
    view.board.forEach((owner, index) => {
      const name = squareName(index, N);
      const col = index % N;
      const row = Math.floor(index / N);
      let cls = `sq ${(row + col) % 2 ? "sq--light" : "sq--dark"}`;
      if (path.has(index)) cls += " sq--path";
      svgEl("rect", { x: X(col), y: Y(row), width: U, height: U, class: cls }, squares);
      if (owner) drawChecker(checkers, X(col) + U / 2, Y(row) + U / 2, owner, "", name);
    });

    // The last move: a ring on the placed square, dashed outlines on a swapped pair.
    const marks = svgEl("g", { class: "last-move", "aria-hidden": "true" }, svg);
    if (lastPlacement) {
      const c = centre(lastPlacement);
      insetSquare(marks, c, 5, "last-square", { rx: 6 });
    }
    if (lastSwap) {
      for (const name of lastSwap) {
        insetSquare(marks, centre(name), 12, "last-swap");
      }
      const a = centre(lastSwap[0]);
      const b = centre(lastSwap[1]);
      svgEl("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "last-swap-line" }, marks);
    }

    const targets = svgEl("g", { class: "targets" }, svg);
    if (this.interactive && !this.pending) {
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
    }

    if (this.interactive && this.pending) {
      // the crosscut(s) the placement forms, outlined so the reason for the swap is visible
      const index = squareIndex(this.pending, N);
      const blocks = crosscutsFormed(view.board, N, index, view.to_move);
      const outline = svgEl("g", { class: "crosscuts", "aria-hidden": "true" }, svg);
      for (const [col, row] of blocks) {
        svgEl(
          "rect",
          {
            x: X(col) + 3,
            y: Y(row + 1) + 3,
            width: 2 * U - 6,
            height: 2 * U - 6,
            rx: 10,
            class: "crosscut",
          },
          outline,
        );
      }
      const c = centre(this.pending);
      const provisional = svgEl("g", { class: "provisional", "data-cancel": "" }, svg);
      drawChecker(provisional, c.x, c.y, view.to_move, " checker--provisional");
      this.drawSwaps(svg, view.placements[this.pending] || [], centre);
    }

    // Squares a diagram points at (view.marked, only in still pictures).
    for (const name of view.marked || []) {
      const c = centre(name);
      insetSquare(marks, c, 4, "marked-square");
    }

    this.root.replaceChildren(svg);
    if (!this.controls) return;
    const first = this.pending ? (view.placements[this.pending] || [])[0] : prefer;
    this.controls.refresh({ hadFocus: keepFocus, prefer: first });
  }

  drawSwaps(svg, options, centre) {
    const layer = svgEl("g", { class: "targets swaps" }, svg);
    // Two swaps can share a midpoint (the two diagonals of one 2x2 block): slide such
    // handles apart along their own arrows.
    const seen = new Map();
    for (const move of options) {
      const [, pair] = parseMove(move);
      if (!pair) continue;
      const a = centre(pair[0]);
      const b = centre(pair[1]);
      const key = `${a.x + b.x},${a.y + b.y}`;
      const count = seen.get(key) || 0;
      seen.set(key, count + 1);
      const shift = count === 0 ? 0 : 0.22;
      const hx = (a.x + b.x) / 2 + (a.x - b.x) * shift;
      const hy = (a.y + b.y) / 2 + (a.y - b.y) * shift;
      const group = svgEl(
        "g",
        {
          class: "target swap-option",
          "data-move": move,
          "data-key": move,
          role: "button",
          tabindex: "-1",
          "aria-label": t("swap", { a: pair[0], b: pair[1] }),
        },
        layer,
      );
      for (const p of [a, b]) {
        insetSquare(group, p, 4, "swap-square");
      }
      svgEl("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "swap-hit" }, group);
      svgEl("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "swap-line" }, group);
      for (const [p, q] of [
        [a, b],
        [b, a],
      ]) {
        // an arrow head at each end, pointing outwards
        const dx = p.x - q.x;
        const dy = p.y - q.y;
        const len = Math.hypot(dx, dy) || 1;
        const ux = dx / len;
        const uy = dy / len;
        const tipX = p.x - ux * 14;
        const tipY = p.y - uy * 14;
        const baseX = tipX - ux * 22;
        const baseY = tipY - uy * 22;
        const points = [
          [tipX, tipY],
          [baseX - uy * 13, baseY + ux * 13],
          [baseX + uy * 13, baseY - ux * 13],
        ]
          .map(([x, y]) => `${r2(x)},${r2(y)}`)
          .join(" ");
        svgEl("polygon", { points, class: "swap-head" }, group);
      }
      svgEl("circle", { cx: r2(hx), cy: r2(hy), r: 17, class: "swap-handle" }, group);
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
    { x: c.x - U / 2 + inset, y: c.y - U / 2 + inset, width: U - 2 * inset, height: U - 2 * inset, class: cls, ...extra },
    parent,
  );
}

function drawChecker(parent, x, y, player, extra = "", name = null) {
  const group = svgEl("g", { class: `checker checker--${player}${extra}` }, parent);
  svgEl("circle", { cx: x, cy: y, r: 36, class: "checker-disc" }, group);
  // Blue checkers carry a ring, red ones a solid centre: the colours never differ by hue alone.
  if (player === "blue") {
    svgEl("circle", { cx: x, cy: y, r: 17, class: "checker-ring" }, group);
  } else {
    svgEl("circle", { cx: x, cy: y, r: 11, class: "checker-core" }, group);
  }
  if (name) {
    const title = svgEl("title", {}, group);
    title.textContent = t("square_checker", { square: name, player: playerName(player) });
  }
  return group;
}
