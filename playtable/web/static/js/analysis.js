// The analysis board: the game on the board with the replay controls, the value of every
// position as an evaluation graph and in the move list, its mistakes, and the best moves
// drawn on the board at the position shown (Dots and Boxes). The values come from
// GET /api/tables/{id}/analysis and the best moves from .../analysis/best?ply=n
// (docs/protocol.md). Dots and Boxes: a value is red's final margin in boxes, proved by the
// solver or (`proved` false) estimated by the bots' search; Swaptimum: red's share of the
// games the search simulated, from 0 to 1. `null`: not analysed yet. The analysis runs in
// the background once a game ends: the page asks again every second until it is complete,
// and the graph fills in as the values come. An estimate is drawn hollow on a dashed line
// and worded as an estimate, never as a proof.

import { r2, svgEl } from "./board.js";
import { DotsBoard } from "./dots.js";
import { valueText } from "./analysis_words.js";
import { playerInitial, playerName, t, tn } from "./i18n.js";
import { claimsOf, moveWords } from "./move_words.js";
import { Replay, replaceMoves } from "./replay.js";
import { SwaptimumBoard } from "./swaptimum.js";

const page = JSON.parse(document.getElementById("analysis-data").textContent);
const table = page.table;
const $ = (id) => document.getElementById(id);
const tableId = encodeURIComponent(table.id);
const misere = Boolean(table.view && table.view.misere);
const dots = table.game === "dots";
// the boxes (cells) each move completed, from the game's final position
const claims = claimsOf(table);
const POLL_MS = 1000;

let data = null; // the analysis, once loaded
let you = null; // the viewer's seat, if any
const best = new Map(); // ply -> {proved, best_moves} or "pending"
const BEST_AFTER_MS = 250;
let bestTimer = null;

/** The words of the value after `ply` moves, as the analysis has it now. */
function plyText(ply) {
  if (!data) return t("eval_pending");
  return valueText(data.values[ply], misere, you, data.proved[ply] !== false, table.game);
}

const known = (value) => value !== null && value !== undefined;

// -- the board and the replay --------------------------------------------------------------
const board = dots
  ? new DotsBoard($("board"), { still: true, describe: true })
  : new SwaptimumBoard($("board"), { still: true, describe: true });
const replay = new Replay({
  root: $("replay"),
  list: $("analysis-moves"),
  table: () => table,
  onChange: () => render(),
  game: table.game,
  liveText: null, // a finished game: » goes to its end
  // a step reads the position's value (and its mistake) once, with its best moves if they
  // are known (else they are added when they come: loadBest); the card is not a live
  // region, since every step redraws it several times (the value, then the best moves)
  said: () =>
    [
      ...[$("analysis-value"), $("analysis-mistake")]
        .filter((line) => !line.hidden)
        .map((line) => line.textContent),
      bestWords(best.get(replay.at())),
    ]
      .filter(Boolean)
      .join(" "),
  positionUrl: (ply) => `/t/${tableId}/position.json?ply=${ply}`,
  pictures: { png: (ply) => `/t/${tableId}.png?ply=${ply}`, gif: `/t/${tableId}.gif` },
});

/** A mistake in words: a red margin moves by two for every box that changes hands. In
 * misère the boxes went the other way: the player took them (to give boxes away is the aim). */
function mistakeText(move) {
  const key = misere ? "eval_mistake_misere" : "eval_mistake";
  return tn(key, move.loss / 2, { player: playerName(move.player) });
}

function mistakeAt(ply) {
  const move = data && ply > 0 ? data.moves[ply - 1] : null;
  return move && move.loss !== null && move.loss > 0 ? move : null;
}

// At most this many best moves are said by name, then how many more (at the start of a
// game every line may be best: a list of 24 was read at each step there).
const BEST_SAID = 3;

/** The best moves of a position as a step says them: briefly; "" while they are not known. */
function bestWords(found) {
  if (!dots || !found || found === "pending") return "";
  if (!found.proved) return found.error || t("best_unproved");
  if (!found.best_moves.length) return t("eval_best_none");
  const moves = found.best_moves;
  const rest = moves.length > BEST_SAID ? moves.length - BEST_SAID : 0;
  const named = moves.slice(0, moves.length - rest).join(", ");
  return t("eval_best_here", { moves: rest ? `${named} ${tn("eval_best_more", rest)}` : named });
}

async function loadBest(ply) {
  if (!dots || best.has(ply) || !data) return;
  best.set(ply, "pending");
  try {
    const response = await fetch(`${page.api}/best?ply=${ply}`, {
      headers: { Accept: "application/json" },
    });
    const found = await response.json();
    if (response.ok) {
      best.set(ply, found);
    } else if (response.status === 503 || response.status === 429) {
      const seconds = Number(found.retry_after || 2);
      best.set(ply, { proved: false, best_moves: [], error: refusalText(found, seconds) });
      // asked again when the wait is over, if the viewer is still on that position
      setTimeout(() => {
        if (best.get(ply)?.error === undefined) return;
        best.delete(ply);
        if (replay.at() === ply) loadBest(ply);
      }, seconds * 1000);
    } else {
      best.set(ply, { proved: false, best_moves: [], error: t("analysis_failed") });
    }
  } catch {
    best.delete(ply);
  }
  if (replay.at() === ply) {
    render();
    // the best moves of the position the viewer stays on, read once when they come: added
    // to what the step said (its value and mistake), not in its place
    if (best.has(ply)) replay.add(bestWords(best.get(ply)));
  }
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
  if (dots && data && !best.has(ply)) bestTimer = setTimeout(() => loadBest(ply), BEST_AFTER_MS);
}

function renderNow(ply, found) {
  const value = data ? data.values[ply] : undefined;
  const estimate = Boolean(data) && data.proved[ply] === false;
  const valueWords = plyText(ply);
  const step = () => ({
    ply,
    player: playerName(table.movers[ply - 1]),
    move: table.moves[ply - 1],
    value: valueWords,
  });
  // a move that completed boxes says how many: "After move 13 (Blue b2-c2, claimed 2 boxes)"
  let text = t("eval_start", { value: valueWords });
  if (ply > 0 && claims[ply - 1]) text = tn("eval_position_claim", claims[ply - 1], step());
  else if (ply > 0) text = t("eval_position", step());
  const line = $("analysis-value");
  line.textContent = text;
  line.dataset.known = String(known(value));
  line.dataset.estimate = String(estimate);
  const mistake = mistakeAt(ply);
  $("analysis-mistake").hidden = !mistake;
  if (mistake) {
    const before = t("eval_before", { value: plyText(ply - 1) });
    $("analysis-mistake").textContent = [mistakeText(mistake), before].join(" ");
  }
  const out = $("analysis-best");
  out.hidden = !dots;
  if (!dots || !data) out.textContent = "";
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
// The graph is drawn at the size it is shown, one unit a CSS pixel, so that its labels and
// points keep their size on a phone (a 600-unit drawing shrunk to 340 px made 8 px labels);
// at least 280 wide, and 150 to 200 high.
let W = 600;
let H = 180;
const LEFT = 10;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 14;

let graphPly = 0;

function renderGraph(ply) {
  const holder = $("analysis-graph");
  graphPly = ply;
  W = Math.max(280, Math.round(holder.clientWidth || 600));
  H = Math.round(Math.min(200, Math.max(150, W * 0.3)));
  const total = table.moves.length;
  const values = data ? data.values : [];
  const proved = data ? data.proved : [];
  // up: red wins, whatever the scoring; Swaptimum: red's share above or below one half
  const sense = (value) => (dots ? (misere ? -value : value) : 2 * value - 1);
  const most = dots ? Math.max(1, ...values.filter(known).map((v) => Math.abs(v))) : 1;
  const step = (W - LEFT - RIGHT) / Math.max(1, total);
  const x = (i) => r2(LEFT + i * step);
  const mid = TOP + (H - TOP - BOTTOM) / 2;
  const y = (v) => r2(mid - (sense(v) / most) * ((H - TOP - BOTTOM) / 2));

  // the holder is a slider over the plies (named by the card's heading, described by the
  // graph's legend): the arrow keys, Home and End step through the game from the graph as
  // from the move list; the drawing itself is for the eye, the step is read by the replay
  holder.setAttribute("aria-valuemax", String(total));
  holder.setAttribute("aria-valuenow", String(ply));
  holder.setAttribute("aria-valuetext", stepText(ply, total));
  $("analysis-graph-help").textContent = t(dots ? "eval_graph" : "eval_graph_rate");
  const svg = svgEl("svg", {
    class: "eval-graph",
    viewBox: `0 0 ${W} ${H}`,
    "aria-hidden": "true",
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

  // neighbours joined: a solid line between two proofs, a dashed one where an estimate is
  let solid = "";
  let dashed = "";
  values.forEach((value, i) => {
    const previous = values[i - 1];
    if (i === 0 || !known(value) || !known(previous)) return;
    const segment = `M${x(i - 1)},${y(previous)} L${x(i)},${y(value)} `;
    if (proved[i] && proved[i - 1]) solid += segment;
    else dashed += segment;
  });
  if (solid) svgEl("path", { d: solid.trim(), class: "graph-line" }, svg);
  if (dashed) svgEl("path", { d: dashed.trim(), class: "graph-line graph-line--estimate" }, svg);
  svgEl("line", { x1: x(ply), y1: TOP, x2: x(ply), y2: H - BOTTOM, class: "graph-cursor" }, svg);
  values.forEach((value, i) => {
    if (!known(value)) {
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
        class: `graph-point${proved[i] ? "" : " graph-point--estimate"}${mistake ? ` graph-mistake graph-mistake--${mistake.player}` : ""}${i === ply ? " is-current" : ""}`,
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

// a turned phone or a resized window: drawn again at its new width
let graphWidth = 0;
new ResizeObserver(([entry]) => {
  const width = Math.round(entry.contentRect.width);
  if (width === graphWidth) return;
  graphWidth = width;
  if ($("analysis-graph").firstChild) renderGraph(graphPly);
}).observe($("analysis-graph"));

$("analysis-graph").addEventListener("click", (event) => {
  const target = event.target.closest("[data-graph-ply]");
  if (target) replay.go(Number(target.dataset.graphPly));
});

function stepText(ply, total) {
  return ply === 0 ? t("replay_at_start", { total }) : t("replay_at", { ply, total });
}

// a slider's keys (WAI-ARIA's slider pattern): a step, ten steps, the start and the end
const GRAPH_KEYS = {
  ArrowLeft: -1,
  ArrowDown: -1,
  ArrowRight: 1,
  ArrowUp: 1,
  PageDown: -10,
  PageUp: 10,
};
$("analysis-graph").addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const at = replay.at();
  let next = null;
  if (event.key in GRAPH_KEYS) next = at + GRAPH_KEYS[event.key];
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = table.moves.length;
  else return;
  event.preventDefault(); // the page's own arrow keys (replay.js) step once, not twice
  replay.go(Math.max(0, Math.min(table.moves.length, next)));
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
    // the notation for the eye; the move in words, with who played it, right after it: the
    // name of the move's button (Replay.decorate takes both in), where it was "c1-d1" alone
    const text = document.createElement("span");
    text.className = "move-text";
    text.textContent = move;
    text.setAttribute("aria-hidden", "true");
    const words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = moveWords(table.game, mover, move, claims[index]);
    const note = document.createElement("span");
    note.className = "analysis-move__note";
    const mistake = mistakeAt(index + 1);
    item.classList.toggle("is-mistake", Boolean(mistake));
    if (data) {
      note.textContent = plyText(index + 1);
      note.classList.toggle("is-estimate", data.proved[index + 1] === false);
      if (mistake) {
        const flag = document.createElement("strong");
        flag.className = "analysis-move__mistake";
        flag.textContent = mistakeText(mistake);
        note.append(" ", flag);
      }
    }
    item.append(mark, " ", text, words, " ", note);
    return item;
  });
  replaceMoves(list, items);
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

/** What the status line says of the analysis as it stands. */
function statusText() {
  const total = data.values.length;
  const done = data.values.filter(known).length;
  if (!data.complete) return t("analysis_streaming", { done, total });
  const estimates = data.proved.filter((p) => p === false).length;
  if (!estimates) return "";
  const note = t(dots ? "eval_some_estimates" : "eval_rate_note", { count: estimates, total });
  return dots && data.pending ? `${note} ${t("analysis_retrying")}` : note;
}

/** Why the server said "not now", in the page's language (its own words are English). */
function refusalText(found, seconds) {
  const key = found.code === "rate_limited" ? "analysis_too_many" : "analysis_busy";
  return t(key, { seconds });
}

async function fetchAnalysis() {
  const response = await fetch(page.api, { headers: { Accept: "application/json" } });
  const found = await response.json();
  if (response.ok) return { found, wait: POLL_MS };
  if (response.status === 503 || response.status === 429) {
    const seconds = Number(found.retry_after || 2);
    return { found: null, wait: 1000 * seconds, error: refusalText(found, seconds) };
  }
  throw new Error(t("analysis_failed"));
}

async function load() {
  $("analysis-status").textContent = t("analysis_loading");
  await loadYou();
  render();
  for (;;) {
    let answer;
    try {
      answer = await fetchAnalysis();
    } catch (error) {
      $("analysis-status").textContent = error.message || t("analysis_failed");
      return;
    }
    if (answer.found) {
      data = answer.found;
      const words = statusText();
      $("analysis-status").textContent = words;
      $("analysis-status").hidden = !words;
      renderMoves();
      render();
      if (data.complete) document.querySelector(".analysis-page").dataset.loaded = "true";
      // complete, but still at work: a second try may turn estimates into proofs
      if (data.complete && !data.pending) break;
    } else if (answer.error) {
      $("analysis-status").textContent = answer.error;
    }
    await new Promise((resolve) => setTimeout(resolve, answer.wait));
  }
}

renderMoves();
render();
load();
