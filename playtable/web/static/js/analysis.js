// The analysis page: the solver's values of a Dots and Boxes game, fetched from
// GET /api/tables/{id}/analysis (docs/protocol.md), and the best moves on request.

import { playerName, t } from "./i18n.js";

const page = JSON.parse(document.getElementById("analysis-data").textContent);
const $ = (id) => document.getElementById(id);

/** A red margin (red's boxes minus blue's at the end) in words. */
function valueText(value) {
  if (value === null || value === undefined) return t("not_proved");
  if (value > 0) return t("value_red", { boxes: value });
  if (value < 0) return t("value_blue", { boxes: -value });
  return t("value_even");
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

async function showBest(button, ply) {
  const out = button.nextElementSibling;
  button.disabled = true;
  out.textContent = t("thinking");
  try {
    const response = await fetch(`${page.api}/best?ply=${ply}`, { headers: { Accept: "application/json" } });
    const data = await response.json();
    if (!response.ok) out.textContent = data.error;
    else if (!data.proved) out.textContent = t("best_unproved");
    else if (!data.best_moves.length) out.textContent = t("best_none");
    else {
      const moves = data.best_moves.join(", ");
      out.textContent = t("best_moves", { moves, value: valueText(data.value) });
    }
  } catch {
    out.textContent = t("analysis_failed");
  }
  button.disabled = false;
}

function bestCell(row, ply) {
  const td = document.createElement("td");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button button--small";
  button.textContent = t("best_move");
  button.dataset.ply = String(ply);
  const out = document.createElement("span");
  out.className = "analysis__best";
  out.setAttribute("aria-live", "polite");
  button.addEventListener("click", () => showBest(button, ply));
  td.append(button, " ", out);
  row.appendChild(td);
}

function render(data) {
  const body = $("analysis-rows");
  body.replaceChildren();
  const start = document.createElement("tr");
  start.dataset.ply = "0";
  cell(start, "0");
  cell(start, t("analysis_start"));
  cell(start, valueText(data.values[0]), "analysis__value");
  cell(start, "");
  cell(start, "");
  body.appendChild(start);
  for (const move of data.moves) {
    const row = document.createElement("tr");
    row.dataset.ply = String(move.ply + 1);
    row.className = `analysis__row analysis__row--${move.player}`;
    cell(row, String(move.ply + 1));
    cell(row, `${playerName(move.player)}: ${move.move}`);
    cell(row, valueText(data.values[move.ply + 1]), "analysis__value");
    const mistake = move.loss !== null && move.loss > 0;
    row.classList.toggle("is-mistake", mistake);
    cell(row, mistake ? t("mistake", { boxes: move.loss }) : "", "analysis__verdict");
    bestCell(row, move.ply);
    body.appendChild(row);
  }
  if (!data.finished) {
    // A game still running: the position to move now gets its button too.
    const next = document.createElement("tr");
    cell(next, String(data.moves.length + 1));
    cell(next, "…");
    cell(next, "");
    cell(next, "");
    bestCell(next, data.moves.length);
    body.appendChild(next);
  }
  $("analysis").hidden = false;
  const partial = data.values.some((value) => value === null);
  $("analysis-status").textContent = partial ? t("analysis_partial") : "";
  $("analysis-status").hidden = !partial;
}

async function load() {
  $("analysis-status").textContent = t("analysis_loading");
  try {
    const response = await fetch(page.api, { headers: { Accept: "application/json" } });
    const data = await response.json();
    if (!response.ok) {
      $("analysis-status").textContent = data.error || t("analysis_failed");
      return;
    }
    render(data);
  } catch {
    $("analysis-status").textContent = t("analysis_failed");
  }
}

load();
