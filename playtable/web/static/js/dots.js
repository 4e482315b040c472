// The Dots and Boxes board: any grid (square, triangle, hexagon) drawn from the view's
// dots, lines and cells. Board units have y pointing up; the SVG flips them.

import { BoardControls, morph, positionList, r2, svgEl } from "./board.js";
import { formatNumber, playerInitial, playerName, t } from "./i18n.js";
import { moveWords } from "./move_words.js";

const U = 100; // SVG units per board unit
const PAD = 0.45; // margin around the board, in board units
const MAX_PX_PER_UNIT = 150; // small boards do not grow past this on big screens
const OUTSIDE = 0.42; // how far an outline line's hit area reaches outside the board

/** How far apart the middles of two sides of one cell are, in board units (the distance
 * between two lines' targets): 0.71 on a square grid, 0.5 on a triangle grid. */
function sideSpread(view) {
  const cell = view.cells[0];
  if (!cell) return Math.SQRT1_2;
  const middles = cell.lines.map((i) => {
    const a = view.dots[view.lines[i].a];
    const b = view.dots[view.lines[i].b];
    return [(a.x + b.x) / 2, (a.y + b.y) / 2];
  });
  let spread = Infinity;
  middles.forEach(([x, y], i) => {
    for (const [u, v] of middles.slice(i + 1)) {
      spread = Math.min(spread, Math.hypot(x - u, y - v));
    }
  });
  return spread;
}

export class DotsBoard {
  // `still: true` draws a picture that nobody plays on (the diagrams of the rules and variant
  // pages): no keyboard handling, no targets. `describe`: the position is also listed in
  // words for screen readers (a board that is played or replayed; a diagram has its caption).
  constructor(root, { onMove = null, still = false, describe = !still } = {}) {
    this.root = root;
    this.describe = describe;
    this.onMove = onMove;
    this.turned = false;
    this.last = null; // the table and interactivity of the last render, to redraw turned
    this.controls = still
      ? null
      : new BoardControls(root, {
          onActivate: (move) => this.onMove(move),
          onEscape: () => false,
        });
  }

  /** Draw the board half a turn round (as seen from the other side of the table). */
  setTurned(turned) {
    this.turned = Boolean(turned);
    if (this.last) this.render(this.last.table, this.last.options);
  }

  render(table, options) {
    this.last = { table, options };
    const { interactive, coordinates = false, best = [] } = options;
    const view = table.view;
    const hadFocus = this.controls ? this.controls.hasFocus() : false;
    const width = view.width;
    const height = view.height;
    const X = (x) => r2((this.turned ? width - x : x) * U);
    const Y = (y) => r2((this.turned ? y : height - y) * U);

    const svg = svgEl("svg", {
      class: "board-svg dots-board",
      viewBox: `${r2(-PAD * U)} ${r2(-PAD * U)} ${r2((width + 2 * PAD) * U)} ${r2(
        (height + 2 * PAD) * U,
      )}`,
      role: "presentation",
      focusable: "false",
    });
    svg.style.maxWidth = `${Math.round((width + 2 * PAD) * MAX_PX_PER_UNIT)}px`;
    // the zoom of a big board on a small screen (board_controls.js): offered when a box is
    // under 32 px wide, and then drawn 44 px wide, a finger's width along each of its sides.
    // A triangle's sides are closer (their middles half a side apart, a square's 0.71): its
    // board zooms sooner and bigger, the targets as far apart as a square's (size 10 on a
    // 390 px phone: 16 px apart, and no zoom offered)
    const closer = Math.max(1, Math.SQRT1_2 / sideSpread(view));
    svg.dataset.squares = String(width + 2 * PAD);
    svg.dataset.zoomBelow = String(r2(32 * closer));
    svg.dataset.zoomedPx = String(r2(44 * closer));

    const lastMove = table.moves.length ? table.moves[table.moves.length - 1] : null;
    const drawer = drawers(table);
    const lineCells = view.lines.map(() => []);
    view.cells.forEach((cell, index) => {
      for (const line of cell.lines) lineCells[line].push(index);
    });

    // Claimed cells: a tint of the owner's colour and the owner's initial, so the two
    // players never differ by colour alone.
    const cellLayer = svgEl("g", { class: "cells", "aria-hidden": "true" }, svg);
    const closedMarks = [];
    const lastIndex = view.lines.findIndex((line) => line.name === lastMove);
    for (const cell of view.cells) {
      const points = cell.dots.map((i) => `${X(view.dots[i].x)},${Y(view.dots[i].y)}`).join(" ");
      if (cell.owner && cell.lines.includes(lastIndex)) {
        // the last move closed this box
        const inset = cell.dots
          .map((i) => {
            const d = view.dots[i];
            return `${X(cell.x + (d.x - cell.x) * 0.84)},${Y(cell.y + (d.y - cell.y) * 0.84)}`;
          })
          .join(" ");
        closedMarks.push(inset);
      }
      if (!cell.owner) {
        svgEl("polygon", { points, class: "cell" }, cellLayer);
        continue;
      }
      const group = svgEl("g", { class: `cell-claimed owner-${cell.owner}` }, cellLayer);
      svgEl("polygon", { points, class: `cell cell--${cell.owner}` }, group);
      svgEl("polygon", { points, class: `cell-pattern pattern--${cell.owner}` }, group);
      const circumradius = Math.min(
        ...cell.dots.map((i) => Math.hypot(view.dots[i].x - cell.x, view.dots[i].y - cell.y)),
      );
      const inradius = circumradius * Math.cos(Math.PI / cell.dots.length);
      const size = Math.min(inradius * 1.15, 0.6) * U;
      const mark = svgEl(
        "text",
        {
          x: X(cell.x),
          y: Y(cell.y),
          class: `cell-mark mark-${cell.owner}`,
          "font-size": r2(size),
          "text-anchor": "middle",
          "dominant-baseline": "central",
        },
        group,
      );
      mark.textContent = playerInitial(cell.owner);
      const title = svgEl("title", {}, group);
      title.textContent = t("dots_box", { player: playerName(cell.owner) });
    }

    for (const points of closedMarks) {
      svgEl("polygon", { points, class: "cell-closed" }, cellLayer);
    }

    // Lines: faint guides where nothing is drawn yet, dashed grey for pre-drawn lines,
    // solid in the drawer's colour for lines the players drew, the last move haloed. The halo
    // and blue's stripes have layers of their own (under and over the lines), so the lines'
    // layer has one element a line, in the same order at every move.
    const haloLayer = svgEl("g", { class: "lines-halo", "aria-hidden": "true" }, svg);
    const lineLayer = svgEl("g", { class: "lines", "aria-hidden": "true" }, svg);
    const stripeLayer = svgEl("g", { class: "lines-stripes", "aria-hidden": "true" }, svg);
    view.lines.forEach((line) => {
      const a = view.dots[line.a];
      const b = view.dots[line.b];
      let cls = "line line--open";
      if (line.drawn) cls = line.predrawn ? "line line--predrawn" : "line line--drawn";
      const by = line.drawn && !line.predrawn ? drawer.get(line.name) : null;
      if (by) cls += ` line--by-${by}`;
      if (line.drawn && line.name === lastMove) {
        cls += " line--last";
        svgEl(
          "line",
          { x1: X(a.x), y1: Y(a.y), x2: X(b.x), y2: Y(b.y), class: "line-last-halo" },
          haloLayer,
        );
      }
      svgEl(
        "line",
        { x1: X(a.x), y1: Y(a.y), x2: X(b.x), y2: Y(b.y), class: cls, "data-line": line.name },
        lineLayer,
      );
      if (by === "blue") {
        // a white centre stripe on blue's lines: the drawers never differ by colour alone
        svgEl(
          "line",
          { x1: X(a.x), y1: Y(a.y), x2: X(b.x), y2: Y(b.y), class: "line-stripe" },
          stripeLayer,
        );
      }
    });

    // Targets: each legal line gets a kite-shaped hit area reaching to the centres of the
    // cells on both sides (or outside the board for an outline line), so a finger anywhere
    // near a line hits it.
    // (every layer is drawn, empty if need be, so the layers stand in the same order at every
    // move: board.js's morph then matches each with itself)
    const targetLayer = svgEl("g", { class: "targets" }, svg);
    if (interactive) {
      const legal = new Set(view.legal_moves);
      view.lines.forEach((line, index) => {
        if (line.drawn || !legal.has(line.name)) return;
        const a = view.dots[line.a];
        const b = view.dots[line.b];
        const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
        const sides = lineCells[index].map((c) => ({ x: view.cells[c].x, y: view.cells[c].y }));
        if (sides.length === 1) {
          const dx = mid.x - sides[0].x;
          const dy = mid.y - sides[0].y;
          const length = Math.hypot(dx, dy) || 1;
          sides.push({ x: mid.x + (dx / length) * OUTSIDE, y: mid.y + (dy / length) * OUTSIDE });
        }
        const kite = [a, sides[0], b, sides[1] || sides[0]]
          .map((p) => `${X(p.x)},${Y(p.y)}`)
          .join(" ");
        const target = svgEl(
          "g",
          {
            class: "target",
            "data-move": line.name,
            "data-key": line.name,
            role: "button",
            tabindex: "-1",
            "aria-label": t("dots_draw_line", { line: line.name }),
          },
          targetLayer,
        );
        svgEl("polygon", { points: kite, class: "hit" }, target);
        svgEl(
          "line",
          {
            x1: X(a.x),
            y1: Y(a.y),
            x2: X(b.x),
            y2: Y(b.y),
            class: `line-preview preview--${view.to_move}`,
          },
          target,
        );
      });
    }

    // Best moves (the analysis board): dashed lines over the open ones.
    const bestLayer = svgEl("g", { class: "best-moves", "aria-hidden": "true" }, svg);
    if (best.length) {
      const names = new Set(best);
      for (const line of view.lines) {
        if (!names.has(line.name)) continue;
        const a = view.dots[line.a];
        const b = view.dots[line.b];
        svgEl(
          "line",
          {
            x1: X(a.x),
            y1: Y(a.y),
            x2: X(b.x),
            y2: Y(b.y),
            class: "best-line",
            "data-best": line.name,
          },
          bestLayer,
        );
      }
    }

    const dotLayer = svgEl("g", { class: "dots", "aria-hidden": "true" }, svg);
    for (const dot of view.dots) {
      svgEl("circle", { cx: X(dot.x), cy: Y(dot.y), r: 9, class: "dot" }, dotLayer);
    }

    // Coordinates on request: a dot is named by its column's letter and its row's number,
    // and a line by its two dots, so every move text can be found on the board.
    if (coordinates) {
      const labels = svgEl("g", { class: "coords dots-coords", "aria-hidden": "true" }, svg);
      const columns = new Map();
      const rows = new Map();
      for (const dot of view.dots) {
        const letters = dot.name.replace(/[0-9]+$/, "");
        if (!columns.has(letters)) columns.set(letters, dot.x);
        const number = dot.name.slice(letters.length);
        if (!rows.has(number)) rows.set(number, dot.y);
      }
      for (const [letter, x] of columns) {
        const label = svgEl(
          "text",
          { x: X(x), y: Y(-0.27), "text-anchor": "middle", "dominant-baseline": "central" },
          labels,
        );
        label.textContent = letter;
      }
      for (const [number, y] of rows) {
        const label = svgEl(
          "text",
          { x: X(0) - 22, y: Y(y), "text-anchor": "end", "dominant-baseline": "central" },
          labels,
        );
        label.textContent = number;
      }
    }

    const words = this.describe ? positionList(describePosition(table, drawer)) : null;
    morph(this.root, [svg, words].filter(Boolean));
    if (this.controls) this.controls.refresh({ hadFocus });
  }

  cancel() {
    return false;
  }
}

// A side count in the page's language: formatNumber makes an Intl.NumberFormat on each call,
// and the list says two numbers for every open box at every redraw (12x12: 280 a move, a
// tenth of a throttled phone's redraw). The counts are a handful of small numbers.
const numberTexts = new Map();
function numberText(value) {
  if (!numberTexts.has(value)) numberTexts.set(value, formatNumber(value));
  return numberTexts.get(value);
}

/** The position in words: each claimed box (by its corners) and its owner, each open box
 * with sides drawn (most first), then each drawn line and who drew it (the move list's
 * words), or a line drawn before the game. */
function describePosition(table, drawer) {
  const view = table.view;
  const boxes = view.cells
    .filter((cell) => cell.owner)
    .map((cell) => {
      const corners = cell.dots.map((i) => view.dots[i].name).join("-");
      return `${t("dots_box", { player: playerName(cell.owner) })}: ${corners}`;
    });
  // each open box with sides drawn: how close it is to a third side, the decision of the game
  const open = view.cells
    .filter((cell) => !cell.owner)
    .map((cell) => [cell, cell.lines.filter((i) => view.lines[i].drawn).length])
    .filter(([, count]) => count > 0)
    .sort(([, a], [, b]) => b - a)
    .map(([cell, count]) =>
      t("dots_box_sides", {
        box: cell.dots.map((i) => view.dots[i].name).join("-"),
        count: numberText(count),
        total: numberText(cell.lines.length),
      }),
    );
  const lines = view.lines
    .filter((line) => line.drawn)
    .map((line) => {
      const by = line.predrawn ? null : drawer.get(line.name);
      return by ? moveWords("dots", by, line.name) : t("dots_line", { line: line.name });
    });
  return [...boxes, ...open, ...lines];
}

/** Who drew each line: a Dots and Boxes move is the line's name; `movers[i]` played move i. */
export function drawers(table) {
  const movers = Array.isArray(table.movers) ? table.movers : [];
  const who = new Map();
  table.moves.forEach((move, index) => {
    if (movers[index]) who.set(move, movers[index]);
  });
  return who;
}
