// The table page: the live client of the WebSocket protocol (docs/protocol.md) and
// everything around the board: turn, players, offers, actions, links, moves, result.

import { focusBoard } from "./board.js";
import { thinkSeconds, timeResult, updateClock } from "./clock.js";
import { DotsBoard } from "./dots.js";
import { clearFeedback, showFeedback } from "./feedback.js";
import { formatNumber, hasString, playerName, refusal, t, tn } from "./i18n.js";
import { moveWords } from "./move_words.js";
import { applyPatch } from "./patch.js";
import { toggleButton } from "./prefs.js";
import { replayFor } from "./replay.js";
import { playSound, setSound } from "./sound.js";
import { SwaptimumBoard } from "./swaptimum.js";

const PROTOCOL = 2;
const PING_EVERY_MS = 25000;
const MOVED_ON_MS = 3000; // a message stays at least this long before a move takes it away
// A connection that has gone silent (a phone that changed networks, a dead Wi-Fi: the
// browser is not told for minutes) is given up after this long without a word from the
// server once the page is waiting for one: after a move, or a ping the server answers.
const MOVE_SILENCE_MS = 6000;
const PING_SILENCE_MS = 10000;
const RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15000];

const page = JSON.parse(document.getElementById("table-data").textContent);
const you = page.you; // "red", "blue" or null (watching)
const baseTitle = document.title;

let table = page.table;
let version = table.version;
let socket = null;
let connected = false;
let retries = 0;
let pingTimer = null;
let silenceTimer = null; // gives the socket up if the server says nothing in time
let sending = false; // a move is on its way: the board waits for the next state
let leaving = false;
let lastMover = null; // from the event stream, when the state does not say
let everConnected = false; // "connection lost" only after there was one
let joined = false; // the first state after a (re)join is a catch-up, not a change seen
// offers answered by an event (declined, agreed, taken back): any other offer that goes
// away lapsed (a move clears them), and the players are told so
const answered = { draw: false, undo: false };
// A rematch agreed before this page was opened: the server repeats its link on every join,
// but someone who came back to look at the old game is not sent away from it.
const rematchAtLoad = Boolean(page.table.rematch_id);

const $ = (id) => document.getElementById(id);
const boardRoot = $("board");

const other = (player) => (player === "red" ? "blue" : "red");

// -- the board ------------------------------------------------------------------------------
const board =
  table.game === "dots"
    ? new DotsBoard(boardRoot, { onMove: playMove })
    : new SwaptimumBoard(boardRoot, { onMove: playMove, onPending: showSwapChooser });

// -- display choices: zoom (big boards on small screens), the board turned, sounds -------
const ZOOM_BELOW_PX = 24; // squares smaller than this on screen: offer the zoom
const ZOOMED_PX = 34;
let zoomed = false;
toggleButton($("board-turn"), `turned-${table.game}`, (on) => board.setTurned(on));
toggleButton($("sound-toggle"), "sound", setSound);
$("board-zoom")?.addEventListener("click", () => {
  zoomed = !zoomed;
  fitZoom();
});

function fitZoom() {
  const button = $("board-zoom");
  const svg = boardRoot.querySelector("svg");
  if (!button || !svg) return;
  const squares = Number(svg.dataset.squares || "0");
  boardRoot.style.setProperty("--zoomed-width", `${Math.round(squares * ZOOMED_PX)}px`);
  boardRoot.classList.toggle("is-zoomed", zoomed);
  button.setAttribute("aria-pressed", zoomed ? "true" : "false");
  if (!zoomed) {
    const perSquare = squares ? svg.getBoundingClientRect().width / squares : Infinity;
    button.hidden = !(perSquare < ZOOM_BELOW_PX);
  } else {
    button.hidden = false;
  }
}
window.addEventListener("resize", () => fitZoom());

const replay = replayFor(table.id, table.game, () => table, () => render());

function playMove(move) {
  if (!send({ type: "move", ply: table.ply, move, think_s: thinkSeconds() })) return;
  sending = true;
  expectWord(MOVE_SILENCE_MS);
  render();
}

// The swap of a placement that forms a crosscut: the board takes the two checkers, this
// panel (always within the viewport) says what to do next and holds the confirmation.
function showSwapChooser(choice, { byKeyboard = false } = {}) {
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

// -- the socket -----------------------------------------------------------------------------
function socketUrl() {
  const url = new URL(page.ws_url, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

function connect() {
  setConnection(retries === 0 ? "connecting" : "reconnecting");
  const ws = new WebSocket(socketUrl());
  socket = ws;
  ws.addEventListener("open", () => {
    connected = true;
    joined = false;
    if (everConnected) showFeedback(t("reconnected"), "ok");
    everConnected = true;
    retries = 0;
    ws.send(JSON.stringify({ type: "join", protocol: PROTOCOL, since: version }));
    setConnection("connected");
    clearInterval(pingTimer);
    pingTimer = setInterval(() => {
      if (send({ type: "ping" }, { quiet: true })) expectWord(PING_SILENCE_MS);
    }, PING_EVERY_MS);
  });
  ws.addEventListener("message", (event) => {
    if (socket !== ws) return;
    clearTimeout(silenceTimer); // the server is there
    silenceTimer = null;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    receive(message);
  });
  ws.addEventListener("close", () => {
    if (socket === ws) lost();
  });
}

// The socket is gone (closed, or given up as silent): say so and connect again. A move that
// was on its way is shown as not sent; if it did arrive, the state after the rejoin shows it.
function lost() {
  socket = null;
  connected = false;
  clearInterval(pingTimer);
  clearTimeout(silenceTimer);
  silenceTimer = null;
  if (sending) {
    sending = false;
    render();
  }
  if (leaving) return;
  setConnection("reconnecting");
  const delay = RETRY_DELAYS_MS[Math.min(retries, RETRY_DELAYS_MS.length - 1)];
  retries += 1;
  setTimeout(connect, delay);
}

/** The server should answer within `ms`: if it says nothing, the connection is dead. */
function expectWord(ms) {
  if (silenceTimer !== null) return; // already waiting for a word
  const ws = socket;
  silenceTimer = setTimeout(() => {
    silenceTimer = null;
    if (socket !== ws || !ws) return;
    ws.close(); // its own close event comes late or never: this socket is already given up
    lost();
  }, ms);
}

function send(message, { quiet = false } = {}) {
  if (!connected || !socket || socket.readyState !== WebSocket.OPEN) {
    if (!quiet) showNotice(t("not_connected"));
    return false;
  }
  if (!quiet) clearNotice();
  socket.send(JSON.stringify(message));
  return true;
}

function receive(message) {
  switch (message.type) {
    case "state":
      // an older state than one already seen (from a reconnect race) changes nothing
      if (typeof message.version === "number" && message.version < version) break;
      showTable(message.table, message.version);
      break;
    case "change":
      receiveChange(message);
      break;
    case "error":
      sending = false;
      showNotice(t("server_error", { message: errorText(message) }));
      render();
      break;
    case "rematch":
      if (rematchAtLoad) {
        const link = $("rematch-seat-link");
        link.href = inPageLanguage(message.url);
        link.hidden = false;
        break;
      }
      leaving = true;
      setConnection("rematch");
      window.location.assign(inPageLanguage(message.url));
      break;
    default:
      break; // "pong" and anything newer than this page
  }
}

function showTable(next, nextVersion) {
  noteLapsedOffers(table.offers, next, joined);
  joined = true;
  table = next;
  version = nextVersion ?? table.version;
  sending = false;
  render();
}

// What changed at the table: its events (for the announcements and sounds), then either the
// whole table or a patch to the one this page holds. A patch from another version than ours
// means a message went missing: the page asks for the whole table instead.
function receiveChange(message) {
  let next = message.table;
  if (!next) {
    if (message.base !== version) {
      if (message.version > version) rejoin();
      return;
    }
    try {
      next = applyPatch(table, message.patch);
    } catch {
      rejoin();
      return;
    }
  } else if (message.version < version) {
    return;
  }
  version = Math.max(version, message.version);
  // the events are read against the table they lead to (who moved last decides the words
  // of a Swaptimum win), though the page shows it only after them
  for (const event of message.events) handleEvent(event, next);
  showTable(next, message.version);
}

function rejoin() {
  send({ type: "join", protocol: PROTOCOL, since: version }, { quiet: true });
}

// A link the server gives (a seat link, a table) in the language of this page: the prefix of
// docs/browser.md, or for English an explicit choice, since a bare seat link follows the
// browser's language.
function inPageLanguage(path) {
  const lang = document.documentElement.lang;
  if (!path.startsWith("/") || path.startsWith("//")) return path;
  if (lang && lang !== "en") return `/${lang}${path}`;
  if (!/\/(seat|join)\//.test(path)) return path;
  return `${path}${path.includes("?") ? "&" : "?"}lang=en`;
}

// The server's message is English; a known code has a sentence in the page's language.
function errorText(message) {
  // the game's reason for refusing a move (a catalog message and its values), or the table's
  const reason =
    (message.reason && refusal(message.reason, message.params || {})) ||
    (message.message && refusal(message.message));
  if (reason) return reason;
  const key = `error_${message.code}`;
  if (message.code && hasString(key)) return t(key);
  return message.message || message.code || "";
}

// An offer that disappears without an answer, while the game goes on, lapsed: a move was
// played meanwhile. (The end of the game clears offers too; the result says enough then.)
function noteLapsedOffers(before, next, seen) {
  const after = next.offers;
  const goesOn = next.outcome === null || next.outcome === undefined;
  for (const kind of ["draw", "undo"]) {
    const lapsed = before && before[kind] && !(after && after[kind]) && !answered[kind];
    if (lapsed && seen && goesOn) {
      const text = t(`lapsed_${kind}`);
      showFeedback(text);
      announce(text);
    }
    answered[kind] = false;
  }
}

function handleEvent(event, after) {
  const who = event.player ? playerName(event.player) : "";
  let text = "";
  let next = "";
  switch (event.kind) {
    case "move":
      lastMover = event.player;
      clearFeedback({ olderThan: MOVED_ON_MS }); // "took the seat", "declined": the game went on
      playSound(event.player === you ? "mine" : "theirs");
      text = moveWords(table.game, event.player, event.move, event.claimed || 0);
      if (event.skipped) text += ` ${t("skipped", { player: playerName(event.skipped) })}`;
      // Who moves next: the same player after a claimed box or a skipped turn. If the move
      // ended the game, the "game_over" event right behind it drops this and gives the result.
      if (event.player) {
        const again = event.claimed > 0 || Boolean(event.skipped);
        next = t("ann_next", { player: playerName(again ? event.player : other(event.player)) });
      }
      break;
    case "undo": {
      lastMover = null;
      answered.undo = true;
      // against the computer one take-back may remove its replies too (`count` plies)
      const count = Number.isInteger(event.count) ? event.count : 1;
      text =
        count > 1
          ? tn("ann_undo_many", count, { player: who })
          : t("ann_undo", { player: who, move: event.move });
      showFeedback(text, "ok"); // seen, not only heard: the position simply goes back
      break;
    }
    case "resign":
      text = t("wins_resign", { loser: who, winner: playerName(other(event.player)) });
      break;
    case "draw_offered":
    case "undo_requested":
    case "rematch_offered":
      text = t(`ann_${event.kind}`, { player: who });
      break;
    case "nickname":
      if (event.nickname) text = t("ann_nickname", { player: who, name: event.nickname });
      break;
    case "rematch_declined":
      text = t("ann_rematch_declined", { player: who });
      showFeedback(text);
      break;
    case "quick":
      text = t("ann_quick", { player: who, message: t(`quick_${event.message}`) });
      showFeedback(text);
      break;
    case "draw_declined":
    case "undo_declined":
      // seen, not only heard: the offer box simply goes away otherwise
      answered[event.kind === "draw_declined" ? "draw" : "undo"] = true;
      text = t(`ann_${event.kind}`, { player: who });
      showFeedback(text);
      break;
    case "draw_agreed":
      answered.draw = true;
      text = t("draw_agreed");
      break;
    case "rematch_accepted":
      text = t("ann_rematch_accepted", { player: who });
      break;
    case "seated":
      text = t("ann_seated", { player: who });
      showFeedback(text, "ok");
      break;
    case "presence":
      text = t(event.online ? "ann_online" : "ann_offline", { player: who });
      break;
    case "game_over":
      clearFeedback(); // the result says what happened
      playSound("end");
      text = resultText(event.outcome, after);
      break;
    default:
      break;
  }
  if (event.kind === "game_over") announceNext = "";
  if (text) announce(text, next);
}

// -- rendering ------------------------------------------------------------------------------
function moversOf(current) {
  return Array.isArray(current.movers) ? current.movers : null;
}

function lastMoverOf(current) {
  const movers = moversOf(current);
  if (movers) return movers.length ? movers[movers.length - 1] : null;
  return lastMover;
}

function isOver() {
  return table.outcome !== null && table.outcome !== undefined;
}

function myTurn() {
  return Boolean(you) && !isOver() && table.to_move === you;
}

function render() {
  const focused = document.activeElement;
  const over = isOver();
  boardRoot.dataset.ply = String(table.ply);
  if (over) boardRoot.dataset.outcome = table.outcome.winner || "draw";
  else delete boardRoot.dataset.outcome;
  boardRoot.dataset.toMove = table.to_move || "";
  boardRoot.setAttribute("aria-busy", sending ? "true" : "false");

  board.render(replay.shown(table), replay.boardOptions(myTurn() && !sending && connected));
  boardRoot.dataset.past = String(!replay.isLive());
  fitZoom();

  $("board-help").hidden = !you || over;
  renderTurn(over);
  renderPlayers();
  renderOffers(over);
  renderActions(over);
  renderLinks();
  renderMoves();
  renderResult(over);
  replay.update();
  updateClock(table, you);
  keepFocus(focused);
}

// The offer each action makes, shown to its maker as waiting for an answer.
const OFFER_OF = {
  request_undo: "offer-undo",
  offer_draw: "offer-draw",
  rematch: "offer-rematch",
};

// An action's button hides itself once the table has taken the action (an offer made or
// answered, the game over), and the focus would drop to <body>: a keyboard or screen-reader
// player would not know where they are. The focus goes to what the action led to instead:
// their offer waiting for an answer, else the result, else the board.
function visible(element) {
  // checkVisibility() where the browser has it (2022 on), else whether it takes up space
  return element.checkVisibility ? element.checkVisibility() : element.getClientRects().length > 0;
}

function keepFocus(focused) {
  if (!focused || !focused.closest || !focused.closest("#actions, #offers")) return;
  if (visible(focused)) return;
  const now = document.activeElement;
  if (now !== focused && now !== document.body && now !== null) return; // it went elsewhere
  const id = OFFER_OF[focused.dataset.action];
  const offer = id ? $(id) : null;
  if (offer && visible(offer)) offer.focus();
  else if (isOver()) $("result").focus();
  else focusBoard(boardRoot);
}

function renderTurn(over) {
  const turn = $("turn");
  let text;
  let state;
  const opponent = you ? other(you) : null;
  const thinking = !over && table.to_move && table.seats[table.to_move].bot;
  if (everConnected && !connected && !leaving) {
    // clicks do nothing while the socket is down: never say "Your turn" then
    text = t("turn_offline");
    state = "offline";
  } else if (over) {
    text = table.outcome.winner
      ? t("wins_generic", { winner: playerName(table.outcome.winner) })
      : t("draw_generic");
    state = "over";
  } else if (you && !myTurn() && !table.seats[opponent].taken) {
    text = t("waiting_for_opponent");
    state = "waiting";
  } else if (myTurn()) {
    text = sending ? t("sending") : t("your_turn");
    state = "yours";
  } else if (thinking) {
    text = t("computer_thinking");
    state = you ? "theirs" : "watching";
  } else if (you) {
    text = t("waiting_for", { player: playerName(table.to_move) });
    state = "theirs";
  } else {
    text = t("to_move", { player: playerName(table.to_move) });
    state = "watching";
  }
  turn.textContent = text;
  turn.dataset.state = state;
  turn.dataset.player = over ? "" : table.to_move || "";

  const note = $("turn-note");
  const skipped = table.view && table.view.skipped;
  if (skipped && !over) {
    note.textContent = t("skipped", { player: playerName(skipped) });
    note.hidden = false;
  } else if (!you) {
    note.textContent = t("watching");
    note.hidden = false;
  } else if (!over && !table.seats[other(you)].taken) {
    note.textContent = t("invite_hint");
    note.hidden = false;
  } else {
    note.hidden = true;
  }
  document.title = myTurn() && connected ? `${t("your_turn")} · ${baseTitle}` : baseTitle;
  $("offline-banner").hidden = !(everConnected && !connected && !leaving);
}

function renderSpectators() {
  const count = table.spectators || 0;
  const line = $("spectators");
  line.hidden = count === 0;
  line.textContent = count ? tn("spectators_count", count) : "";
}

function renderPlayers() {
  renderSpectators();
  const score = table.view && table.view.score;
  for (const player of ["red", "blue"]) {
    const row = $(`player-${player}`);
    const seat = table.seats[player];
    const name = row.querySelector(".player__name");
    // A chosen nickname, with the colour beside it: set with textContent, never as markup.
    const shown = seat.nickname
      ? t("nickname_of", { name: seat.nickname, player: playerName(player) })
      : playerName(player);
    name.textContent = player === you ? t("you_suffix", { player: shown }) : shown;
    const presence = row.querySelector(".player__presence");
    // while this page is offline it cannot know who else is: it says so (and that its own
    // player is offline, which it does know)
    let status = !seat.taken ? "free" : seat.online ? "online" : "offline";
    if (seat.taken && !seat.bot && everConnected && !connected) {
      status = player === you ? "offline" : "unknown";
    }
    presence.dataset.presence = status;
    const label = { free: "seat_free", unknown: "presence_unknown" }[status] || status;
    presence.textContent = seat.bot ? t(`bot_${seat.bot}`) : t(label);
    row.classList.toggle("is-to-move", !isOver() && table.to_move === player);
    row.classList.toggle("is-winner", isOver() && table.outcome.winner === player);
    const scoreEl = row.querySelector(".player__score");
    if (scoreEl && score) scoreEl.textContent = formatNumber(score[player]);
  }
}

function renderOffers(over) {
  const offers = table.offers || { draw: null, undo: null, rematch: [] };
  let any = false;
  const show = (id, by, yourText, theirText) => {
    const box = $(id);
    if (!by) {
      box.hidden = true;
      return;
    }
    any = true;
    box.hidden = false;
    const mine = by === you;
    box.querySelector(".offer__text").textContent = mine ? yourText : theirText;
    const buttons = box.querySelector(".offer__buttons");
    if (buttons) buttons.hidden = mine || !you;
  };
  show(
    "offer-draw",
    over ? null : offers.draw,
    t("your_draw_offer"),
    t("ann_draw_offered", { player: playerName(offers.draw || "red") }),
  );
  show(
    "offer-undo",
    over ? null : offers.undo,
    t("your_undo_request"),
    t("ann_undo_requested", { player: playerName(offers.undo || "red") }),
  );
  const rematch = offers.rematch || [];
  const rematchBy = rematch.includes(you) ? you : rematch[0] || null;
  show(
    "offer-rematch",
    over && !table.rematch_id ? rematchBy : null,
    t("your_rematch"),
    t("opponent_rematch", { player: playerName(rematchBy || "red") }),
  );
  $("offers").hidden = !any;
}

function renderActions(over) {
  if (!you) return;
  const offers = table.offers || { draw: null, undo: null, rematch: [] };
  const opponentSeated = table.seats[other(you)].taken;
  const running = !over && opponentSeated;
  // Against the computer a take-back removes your last move and its replies after it, so
  // it is there once you have moved at all; against a person only while the last move is
  // yours.
  const movers = moversOf(table);
  const computer = Boolean(table.seats[other(you)].bot);
  const mayUndo = computer
    ? movers
      ? movers.includes(you)
      : table.ply > 0
    : lastMoverOf(table) !== other(you);
  $("action-undo").hidden = !(running && table.ply > 0 && !offers.undo && mayUndo);
  $("action-draw").hidden = !(running && !offers.draw);
  $("action-resign").hidden = over || !opponentSeated;
  const rematch = $("action-rematch");
  const asked = (offers.rematch || []).includes(you);
  rematch.hidden = !over || asked || Boolean(table.rematch_id);
  rematch.textContent = (offers.rematch || []).length ? t("accept_rematch") : t("rematch");
  for (const say of document.querySelectorAll("#quick button")) say.disabled = !connected;
  const buttons = Array.from(document.querySelectorAll("#actions button"));
  for (const button of buttons) button.disabled = !connected;
  $("actions").hidden = buttons.every((button) => button.hidden);
}

function absolute(path) {
  return path ? new URL(path, window.location.href).toString() : "";
}

function renderLinks() {
  const invite = $("invite");
  if (table.invite_url) {
    $("invite-url").value = absolute(table.invite_url);
    invite.hidden = false;
  } else {
    invite.hidden = true;
  }
  // while nobody sits opposite, the invitation is the first thing to do (phones show it first)
  $("links").classList.toggle("has-invite", Boolean(table.invite_url));
  $("watch-url").value = absolute(table.watch_url || `/t/${table.id}/watch`);
}

function renderMoves() {
  const list = $("move-list");
  const movers = moversOf(table);
  const items = table.moves.map((move, index) => {
    const item = document.createElement("li");
    const mover = movers ? movers[index] : null;
    const inWords = Boolean(mover);
    if (mover) {
      item.dataset.player = mover;
      const mark = document.createElement("span");
      mark.className = `move-mark mark--${mover}`;
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = t(`${mover}_initial`);
      const name = document.createElement("span");
      name.className = "visually-hidden";
      name.textContent = playerName(mover);
      item.append(mark);
      if (!inWords) item.append(name, " ");
    }
    const text = document.createElement("span");
    text.className = "move-text";
    text.textContent = move;
    item.append(text);
    if (inWords) {
      // the notation is for the eye; a screen reader hears the move in words
      text.setAttribute("aria-hidden", "true");
      const words = document.createElement("span");
      words.className = "visually-hidden";
      words.textContent = moveWords(table.game, mover, move);
      item.append(words);
    }
    if (index === table.moves.length - 1) item.classList.add("is-last");
    return item;
  });
  list.replaceChildren(...items);
  $("moves-empty").hidden = table.moves.length > 0;
  const last = list.lastElementChild;
  if (last) list.scrollTop = list.scrollHeight;
}

function resultText(outcome, current = table) {
  if (!outcome) return "";
  const winner = outcome.winner ? playerName(outcome.winner) : "";
  switch (outcome.reason) {
    case "score": {
      const score = outcome.score || { red: 0, blue: 0 };
      const params = outcome.winner
        ? {
            winner,
            winner_score: formatNumber(score[outcome.winner]),
            loser_score: formatNumber(score[other(outcome.winner)]),
          }
        : { score: formatNumber(score.red) };
      let text = outcome.winner ? t("wins_score", params) : t("draw_score", params);
      if (current.view && current.view.misere) text += ` ${t("misere_rule")}`;
      return text;
    }
    case "connection": {
      const mover = lastMoverOf(current);
      if (mover && outcome.winner && mover !== outcome.winner) {
        return t("wins_connection_swap", { winner, mover: playerName(mover) });
      }
      return t("wins_connection", { winner });
    }
    case "no_moves":
      return t("draw_no_moves");
    case "resign":
      return t("wins_resign", { winner, loser: playerName(other(outcome.winner)) });
    case "draw_agreed":
      return t("draw_agreed");
    case "timeout":
    case "aborted":
      return timeResult(outcome);
    default:
      return winner ? t("wins_generic", { winner }) : t("draw_generic");
  }
}

function renderResult(over) {
  const box = $("result");
  if (!over) {
    box.hidden = true;
    return;
  }
  $("result-text").textContent = resultText(table.outcome);
  const rematchLink = $("rematch-watch-link");
  rematchLink.hidden = !table.rematch_id || Boolean(you);
  if (table.rematch_id) {
    rematchLink.href = inPageLanguage(`/t/${encodeURIComponent(table.rematch_id)}/watch`);
  }
  box.hidden = false;
  box.dataset.winner = table.outcome.winner || "draw";
}

// -- notices, announcements, connection -------------------------------------------------------
function showNotice(text) {
  const notice = $("notice");
  notice.textContent = text;
  notice.hidden = false;
}

function clearNotice() {
  const notice = $("notice");
  notice.hidden = true;
  notice.textContent = "";
}

let announceTimer = null;
let announceQueue = [];
let announceNext = ""; // "Red to move", read last, unless the game ended meanwhile
function announce(text, next = "") {
  // Events arriving together (a move, then the end of the game) are read as one message;
  // the region is emptied first so the same words twice are still announced. Within one
  // message a sentence is read once: a resignation or an agreed draw is both its own
  // event and the result of the "game_over" behind it, in the same words.
  if (!announceQueue.includes(text)) announceQueue.push(text);
  if (next) announceNext = next;
  const region = $("announcer");
  region.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    region.textContent = [...announceQueue, announceNext].filter(Boolean).join(" ");
    announceQueue = [];
    announceNext = "";
  }, 50);
}

function setConnection(state) {
  const line = $("connection");
  line.dataset.state = state;
  line.textContent = t(
    {
      connecting: "connecting",
      reconnecting: "reconnecting",
      connected: "connected",
      rematch: "opening_rematch",
    }[state],
  );
  render();
}

// -- buttons ----------------------------------------------------------------------------------
$("nickname-form")?.addEventListener("submit", (event) => {
  event.preventDefault();
  send({ type: "nickname", name: $("nickname").value });
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-say]");
  if (button) send({ type: "say", message: button.dataset.say });
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
    send({ type: action, accept: button.dataset.accept === "true" });
    return;
  }
  send({ type: action });
});

$("resign-dialog")?.addEventListener("close", () => {
  if ($("resign-dialog").returnValue === "resign") send({ type: "resign" });
});

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const input = $(button.dataset.copy);
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  try {
    await navigator.clipboard.writeText(input.value);
    button.textContent = t("copied");
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  } catch {
    input.focus();
    input.select();
    showNotice(t("copy_failed"));
  }
});

window.addEventListener("pagehide", () => {
  leaving = true;
});
window.addEventListener("pageshow", (event) => {
  // back/forward cache: the old socket is gone
  if (event.persisted) {
    leaving = false;
    connect();
  }
});

render();
connect();
