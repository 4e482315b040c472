// The analysis board: the game on the board with the replay controls, the solver's value of
// every position as an evaluation graph and in the move list, its mistakes, and the best
// moves drawn on the board at the position shown. The values come from
// GET /api/tables/{id}/analysis and the best moves from .../analysis/best?ply=n
// (docs/protocol.md): a value is red's final margin in boxes under perfect play, `null`
// where the solver found no proof in time, which is shown as unknown and never as a value.

import { r2, svgEl } from "./board.js";
import { DotsBoard } from "./dots.js";
import { playerInitial, playerName, t } from "./i18n.js";
import { Replay } from "./replay.js";

const page = JSON.parse(document.getElementById("analysis-data").textContent);
const table = page.table;
const $ = (id) => document.getElementById(id);
const tableId = encodeURIComponent(table.id);
const misere = Boolean(table.view && table.view.misere);

let data = null; // the analysis, once loaded
let you = null; // the viewer's seat, if any
const best = new Map(); // ply -> {proved, best_moves} or "pending"
const BEST_AFTER_MS = 250;
let bestTimer = null;

/** Who wins a position of value `value` (red's margin) with perfect play, and by how much. */
export function verdict(value, isMisere) {
  if (value === null || value === undefined) return null;
  if (value === 0) return { winner: null, boxes: 0 };
  // Misère: the player with fewer boxes wins, so a positive red margin is a blue win.
  const redWins = isMisere ? value < 0 : value > 0;
  return { winner: redWins ? "red" : "blue", boxes: Math.abs(value) };
}

/** A value in a player's words: "Blue wins by 3 with perfect play", or "You lose by 3 …". */
export function valueText(value, isMisere = misere, viewer = you) {
  const found = verdict(value, isMisere);
  if (!found) return t("eval_unknown");
  if (!found.winner) return t("eval_draw");
  if (viewer) {
    return t(found.winner === viewer ? "eval_you_win" : "eval_you_lose", { boxes: found.boxes });
  }
  return t("eval_wins", { player: playerName(found.winner), boxes: found.boxes });
}

// -- the board and the replay --------------------------------------------------------------
const board = new DotsBoard($("board"), { still: true });
const replay = new Replay({
  root: $("replay"),
  list: $("analysis-moves"),
  table: () => table,
  onChange: () => render(),
  game: table.game,
  liveText: null, // a finished game: » goes to its end
  positionUrl: (ply) => `/t/${tableId}/position.json?ply=${ply}`,
  pictures: { png: (ply) => `/t/${tableId}.png?ply=${ply}`, gif: `/t/${tableId}.gif` },
});

/** A mistake in words: a red margin moves by two for every box that changes hands. */
function mistakeText(move) {
  return t("eval_mistake", { player: playerName(move.player), boxes: move.loss / 2 });
}

function mistakeAt(ply) {
  const move = data && ply > 0 ? data.moves[ply - 1] : null;
  return move && move.loss !== null && move.loss > 0 ? move : null;
}

async function loadBest(ply) {
  if (best.has(ply) || !data) return;
  best.set(ply, "pending");
  try {
    const response = await fetch(`${page.api}/best?ply=${ply}`, {
      headers: { Accept: "application/json" },
    });
    const found = await response.json();
    best.set(ply, response.ok ? found : { proved: false, best_moves: [], error: found.error });
  } catch {
    best.delete(ply);
  }
  if (replay.at() === ply) render();
}

function render() {
  const ply = replay.at();
  const shown = replay.shown(table);
  const found = best.get(ply);
  const moves = found && found !== "pending" && found.proved ? found.best_moves : [];
  board.render(shown, { interactive: false, coordinates: replay.coordinates, best: moves });
  $("board").dataset.ply = String(shown.ply);
  $("board").dataset.past = String(!replay.isLive());
  renderNow(ply, found);
  renderGraph(ply);
  replay.update();
  // the best moves of a position the viewer stays on (not of every one stepped through)
  clearTimeout(bestTimer);
  if (data && !best.has(ply)) bestTimer = setTimeout(() => loadBest(ply), BEST_AFTER_MS);
}

function renderNow(ply, found) {
  const value = data ? data.values[ply] : undefined;
  const valueWords = data ? valueText(value) : t("analysis_loading");
  const text =
    ply === 0
      ? t("eval_start", { value: valueWords })
      : t("eval_position", {
          ply,
          player: playerName(table.movers[ply - 1]),
          move: table.moves[ply - 1],
          value: valueWords,
        });
  const line = $("analysis-value");
  line.textContent = text;
  line.dataset.known = String(value !== null && value !== undefined);
  const mistake = mistakeAt(ply);
  $("analysis-mistake").hidden = !mistake;
  if (mistake) {
    const before = t("eval_before", { value: valueText(data.values[ply - 1]) });
    $("analysis-mistake").textContent = [mistakeText(mistake), before].join(" ");
  }
  const out = $("analysis-best");
  if (!data) out.textContent = "";
  else if (!found || found === "pending") out.textContent = t("thinking");
  else if (!found.proved) out.textContent = found.error || t("best_unproved");
  else if (!found.best_moves.length) out.textContent = t("eval_best_none");
  else out.textContent = t("eval_best_here", { moves: found.best_moves.join(", ") });
  $("analysis-seen-as").hidden = !you;
  if (you) $("analysis-seen-as").textContent = t("eval_seen_as", { player: playerName(you) });
  $("analysis-misere").hidden = !misere;
  if (misere) $("analysis-misere").textContent = t("eval_misere");
}

// -- the evaluation graph ------------------------------------------------------------------
const W = 600;
const H = 180;
const LEFT = 10;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 14;

function renderGraph(ply) {
  const holder = $("analysis-graph");
  const total = table.moves.length;
  const values = data ? data.values : [];
  // up: red wins, whatever the scoring
  const sense = (value) => (misere ? -value : value);
  const known = values.filter((v) => v !== null && v !== undefined);
  const most = Math.max(1, ...known.map((v) => Math.abs(v)));
  const step = (W - LEFT - RIGHT) / Math.max(1, total);
  const x = (i) => r2(LEFT + i * step);
  const mid = TOP + (H - TOP - BOTTOM) / 2;
  const y = (v) => r2(mid - (sense(v) / most) * ((H - TOP - BOTTOM) / 2));

  const svg = svgEl("svg", {
    class: "eval-graph",
    viewBox: `0 0 ${W} ${H}`,
    role: "img",
    "aria-label": t("eval_graph"),
  });
  svgEl(
    "rect",
    {
      x: LEFT,
      y: TOP,
      width: W - LEFT - RIGHT,
      height: mid - TOP,
      class: "graph-zone graph-zone--red",
    },
    svg,
  );
  svgEl(
    "rect",
    {
      x: LEFT,
      y: mid,
      width: W - LEFT - RIGHT,
      height: H - BOTTOM - mid,
      class: "graph-zone graph-zone--blue",
    },
    svg,
  );
  // the two sides' names inside their halves, over the start of the game
  const redLabel = svgEl(
    "text",
    { x: LEFT + 6, y: TOP + 15, class: "graph-label graph-label--red" },
    svg,
  );
  redLabel.textContent = t("eval_red_side");
  const blueLabel = svgEl(
    "text",
    { x: LEFT + 6, y: H - BOTTOM - 6, class: "graph-label graph-label--blue" },
    svg,
  );
  blueLabel.textContent = t("eval_blue_side");
  svgEl("line", { x1: LEFT, y1: mid, x2: W - RIGHT, y2: mid, class: "graph-axis" }, svg);

  // the proved values, joined where two neighbours are both proved
  let path = "";
  values.forEach((value, i) => {
    if (value === null || value === undefined) return;
    const previous = values[i - 1];
    const joined = i > 0 && previous !== null && previous !== undefined;
    path += `${joined ? "L" : "M"}${x(i)},${y(value)} `;
  });
  if (path) svgEl("path", { d: path.trim(), class: "graph-line" }, svg);
  svgEl("line", { x1: x(ply), y1: TOP, x2: x(ply), y2: H - BOTTOM, class: "graph-cursor" }, svg);
  values.forEach((value, i) => {
    if (value === null || value === undefined) {
      const mark = svgEl(
        "text",
        { x: x(i), y: mid + 5, "text-anchor": "middle", class: "graph-unknown", "data-ply": i },
        svg,
      );
      mark.textContent = t("eval_unknown_mark");
      return;
    }
    const mistake = mistakeAt(i);
    svgEl(
      "circle",
      {
        cx: x(i),
        cy: y(value),
        r: mistake ? 6 : 3.5,
        class: `graph-point${mistake ? ` graph-mistake graph-mistake--${mistake.player}` : ""}${i === ply ? " is-current" : ""}`,
        "data-ply": i,
      },
      svg,
    );
  });
  // click anywhere in a ply's column to see that position
  const hits = svgEl("g", { class: "graph-hits" }, svg);
  for (let i = 0; i <= total; i++) {
    svgEl(
      "rect",
      {
        x: r2(x(i) - step / 2),
        y: 0,
        width: r2(Math.max(step, 4)),
        height: H,
        class: "graph-hit",
        "data-graph-ply": i,
      },
      hits,
    );
  }
  holder.replaceChildren(svg);
}

$("analysis-graph").addEventListener("click", (event) => {
  const target = event.target.closest("[data-graph-ply]");
  if (target) replay.go(Number(target.dataset.graphPly));
});

// -- the move list -------------------------------------------------------------------------
function renderMoves() {
  const list = $("analysis-moves");
  const items = table.moves.map((move, index) => {
    const item = document.createElement("li");
    const mover = table.movers[index];
    item.dataset.player = mover;
    const mark = document.createElement("span");
    mark.className = `move-mark mark--${mover}`;
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = playerInitial(mover);
    const name = document.createElement("span");
    name.className = "visually-hidden";
    name.textContent = playerName(mover);
    const text = document.createElement("span");
    text.className = "move-text";
    text.textContent = move;
    const note = document.createElement("span");
    note.className = "analysis-move__note";
    const mistake = mistakeAt(index + 1);
    item.classList.toggle("is-mistake", Boolean(mistake));
    if (data) {
      note.textContent = valueText(data.values[index + 1]);
      if (mistake) {
        const flag = document.createElement("strong");
        flag.className = "analysis-move__mistake";
        flag.textContent = mistakeText(mistake);
        note.append(" ", flag);
      }
    }
    item.append(mark, name, " ", text, " ", note);
    return item;
  });
  list.replaceChildren(...items);
}

// -- loading -------------------------------------------------------------------------------
async function loadYou() {
  try {
    const response = await fetch(`/t/${tableId}/you.json`, {
      headers: { Accept: "application/json" },
    });
    if (response.ok) you = (await response.json()).you;
  } catch {
    you = null;
  }
}

async function load() {
  $("analysis-status").textContent = t("analysis_loading");
  await loadYou();
  render();
  try {
    const response = await fetch(page.api, { headers: { Accept: "application/json" } });
    const found = await response.json();
    if (!response.ok) {
      $("analysis-status").textContent = found.error || t("analysis_failed");
      return;
    }
    data = found;
  } catch {
    $("analysis-status").textContent = t("analysis_failed");
    return;
  }
  const partial = data.values.some((value) => value === null);
  $("analysis-status").textContent = partial ? t("eval_partial") : "";
  $("analysis-status").hidden = !partial;
  document.querySelector(".analysis-page").dataset.loaded = "true";
  renderMoves();
  render();
}

renderMoves();
render();
load();
