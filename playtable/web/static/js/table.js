// The table page: the live client of the WebSocket protocol (docs/protocol.md) and
// everything around the board. This entry point makes the board and wires the page's
// modules together: connection.js (the socket), table_events.js (what the server says),
// table_panels.js (turn, players, offers, actions, links, moves, result), board_controls.js
// (display choices, the swap chooser), rematch_follow.js (a spectator's page following the
// rematch), projector.js (a spectator's view for a projector), all sharing the state of table_state.js; then the page's buttons, which send
// their messages through the connection.

import {
  fitZoom,
  setUpDisplayChoices,
  setUpSwapChooser,
  showSwapChooser,
} from "./board_controls.js";
import { thinkSeconds } from "./clock.js";
import { copyField } from "./copy.js";
import { connectionFor, MOVE_SILENCE_MS } from "./connection.js";
import { DotsBoard } from "./dots.js";
import { playerName, t } from "./i18n.js";
import { showFeedback } from "./feedback.js";
import { announce, showKeptNotice, showNotice, wireNotice } from "./notices.js";
import { setUpProjector } from "./projector.js";
import { followRematch } from "./rematch_follow.js";
import { takeRematchSwap } from "./rematch_note.js";
import { replayFor } from "./replay.js";
import { SwaptimumBoard } from "./swaptimum.js";
import { eventsFor } from "./table_events.js";
import { panelsFor } from "./table_panels.js";
import { page, state } from "./table_state.js";

const $ = (id) => document.getElementById(id);
const boardRoot = $("board");
const { table } = state; // the table at load: its game and id never change

// -- the board ------------------------------------------------------------------------------
const board =
  table.game === "dots"
    ? new DotsBoard(boardRoot, { onMove: playMove })
    : new SwaptimumBoard(boardRoot, {
        onMove: playMove,
        onPending: (choice, options) => showSwapChooser(boardRoot, choice, options),
        onRefused: (text) => {
          showFeedback(text);
          announce(text);
        },
      });
setUpDisplayChoices(board, boardRoot, table.game);

const replay = replayFor(table.id, table.game, () => state.table, () => render());
// the projector shows the game as it stands: an earlier position the viewer was looking at
// goes (the view hides the replay, and with it the way back)
setUpProjector(() => {
  if (!replay.isLive()) replay.go(state.table.ply);
});
setUpSwapChooser(board, boardRoot);

const panels = panelsFor({ board, boardRoot, replay, fitZoom: () => fitZoom(boardRoot) });
const follow = followRematch({
  isLive: () => replay.isLive(),
  leave: () => connection.setConnection("rematch"),
});
function render() {
  panels.render();
  follow.update();
}
const connection = connectionFor({
  url: page.ws_url,
  onMessage: (message) => events.receive(message),
  onChange: render,
});
const events = eventsFor({
  render,
  rejoin: connection.rejoin,
  setConnection: connection.setConnection,
});

function playMove(move) {
  const message = { type: "move", ply: state.table.ply, move, think_s: thinkSeconds() };
  if (!connection.send(message)) return;
  state.sending = true;
  state.pending = { ply: state.table.ply, move };
  state.unsent = null; // a new move: the one the connection dropped is no longer awaited
  connection.expectAnswer(MOVE_SILENCE_MS);
  render();
}

// -- buttons ----------------------------------------------------------------------------------
$("nickname-form")?.addEventListener("submit", (event) => {
  event.preventDefault();
  connection.send({ type: "nickname", name: $("nickname").value });
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-say]");
  if (button) connection.send({ type: "say", message: button.dataset.say });
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const action = button.dataset.action;
  if (action === "resign") {
    const dialog = $("resign-dialog");
    if (dialog && typeof dialog.showModal === "function") dialog.showModal();
    return;
  }
  if (action === "answer_draw" || action === "answer_undo") {
    connection.send({ type: action, accept: button.dataset.accept === "true" });
    return;
  }
  connection.send({ type: action });
});

$("resign-dialog")?.addEventListener("close", () => {
  if ($("resign-dialog").returnValue === "resign") connection.send({ type: "resign" });
});

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  if (!(await copyField(button, $(button.dataset.copy), t("copied")))) {
    showNotice(t("copy_failed"));
  }
});

window.addEventListener("pagehide", () => {
  state.leaving = true;
});
window.addEventListener("pageshow", (event) => {
  // back/forward cache: the old socket is gone
  if (event.persisted) {
    state.leaving = false;
    connection.connect();
  }
});

render();
// Why the page loaded again: its seat link was replaced elsewhere. Not said where the page
// is still seated (this browser made the new link, and its cookie holds it).
wireNotice();
showKeptNotice(page.you === null);
// Come from the previous game to its rematch: the colours swapped, and the player is told.
if (takeRematchSwap(table.id, page.you)) {
  const note = t("rematch_colour", { player: playerName(page.you) });
  showFeedback(note);
  announce(note);
}
connection.connect();
