// The side panels of the table page, drawn from the table this page holds (table_state.js):
// turn line and `document.title`, players and presence, offers, actions, links, move list,
// the result card (its words: result_words.js).

import { focusBoard } from "./board.js";
import { updateClock } from "./clock.js";
import { formatNumber, playerName, t, tn } from "./i18n.js";
import { claimsOf, moveWords, skipWords } from "./move_words.js";
import { replaceMovesFrom } from "./replay.js";
import { playerResultText } from "./result_words.js";
import { isOver, lastMoverOf, moversOf, myTurn, other, state, you } from "./table_state.js";

const $ = (id) => document.getElementById(id);
const baseTitle = document.title;

/**
 * `render()`: the whole page drawn again from `state`: the `board` (in `boardRoot`, as the
 * `replay` shows it, zoomed by `fitZoom()`), then the panels, the replay controls and the
 * clocks.
 */
export function panelsFor({ board, boardRoot, replay, fitZoom }) {
  let wasOver = null; // whether the game was over at the last drawing (null: not drawn yet)
  function render() {
    const { table } = state;
    const focused = document.activeElement;
    // a keyboard player's focus on the board: where it was before the drawing, which may
    // take away the line or cell it was on
    const keyboardOnBoard = boardRoot.contains(focused) && focused.matches(":focus-visible");
    const over = isOver();
    boardRoot.dataset.ply = String(table.ply);
    if (over) boardRoot.dataset.outcome = table.outcome.winner || "draw";
    else delete boardRoot.dataset.outcome;
    boardRoot.dataset.toMove = table.to_move || "";
    boardRoot.setAttribute("aria-busy", state.sending ? "true" : "false");

    // not before the answer to the (re)join: the page's position may be old until then
    const playable = myTurn() && !state.sending && state.connected && state.joined;
    // the position the board shows: the players' panel and the turn line follow it
    const shown = replay.shown(table);
    board.render(shown, replay.boardOptions(playable));
    boardRoot.dataset.past = String(!replay.isLive());
    fitZoom();

    $("board-help").hidden = !you || over;
    renderTurn(over, shown);
    renderPlayers(shown);
    renderOffers(over);
    renderActions(over);
    renderLinks();
    renderMoves(replay.isLive());
    renderResult(over);
    // During a game against the computer the move list offers its analysis so far; once
    // it is over the result offers the analysis, and one link is enough.
    const analysisNow = $("analysis-now-link");
    if (analysisNow) analysisNow.parentElement.hidden = over;
    replay.update();
    // the clocks stand still while the page cannot know whose runs (offline, or back but
    // not yet told the table again); a finished game's replay shows the times of the
    // position shown (clock.js)
    const live = !state.everConnected || (state.connected && state.joined);
    updateClock(table, you, live, replay.isLive() ? null : replay.at());
    keepFocus(focused, boardRoot);
    // The game ended on a move (theirs or the opponent's) while a keyboard player was on the
    // board: the board has nothing left to play, and the focus goes where the result and the
    // rematch are, as after a resignation (a pointer's tap is left where it is).
    if (over && wasOver === false && keyboardOnBoard) $("result").focus();
    wasOver = over;
  }

  return { render };
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

function keepFocus(focused, boardRoot) {
  if (!focused || !focused.closest || !focused.closest("#actions, #offers, #result")) return;
  if (visible(focused)) return;
  const now = document.activeElement;
  if (now !== focused && now !== document.body && now !== null) return; // it went elsewhere
  const id = OFFER_OF[focused.dataset.action];
  const offer = id ? $(id) : null;
  if (offer && visible(offer)) offer.focus();
  else if (isOver()) $("result").focus();
  else focusBoard(boardRoot);
}

/** Whether `shown` (the board's table) is a replayed position rather than the live one. */
function isPast(shown) {
  return Boolean(shown && shown.past);
}

function renderTurn(over, shown) {
  const { table } = state;
  const turn = $("turn");
  const past = isPast(shown);
  let text;
  let status;
  const opponent = you ? other(you) : null;
  const thinking = !over && table.to_move && table.seats[table.to_move].bot;
  if (state.everConnected && !state.connected && !state.leaving) {
    // clicks do nothing while the socket is down: never say "Your turn" then
    text = t("turn_offline");
    status = "offline";
  } else if (past) {
    // a step of the replay: its turn, marked as the replay (never taken for the result)
    const player = playerName(shown.to_move || "red");
    text =
      shown.ply === 0
        ? t("step_turn_start", { player })
        : t("step_turn", { ply: shown.ply, total: table.ply, player });
    status = "past";
  } else if (over) {
    text = playerResultText(table.outcome, table);
    status = "over";
  } else if (you && !myTurn() && !table.seats[opponent].taken) {
    text = t("waiting_for_opponent");
    status = "waiting";
  } else if (!you && !table.seats.red.taken && !table.seats.blue.taken) {
    // a table set up for two others, nobody seated yet: nobody is "to move"
    text = t("waiting_for_players");
    status = "waiting";
  } else if (myTurn()) {
    text = state.sending ? t("sending") : t("your_turn");
    status = "yours";
  } else if (thinking) {
    text = t("computer_thinking");
    status = "thinking"; // marked as work under way (table.css), not a wait for a person
  } else if (you) {
    text = t("waiting_for", { player: playerName(table.to_move) });
    status = "theirs";
  } else {
    text = t("to_move", { player: playerName(table.to_move) });
    status = "watching";
  }
  turn.textContent = text;
  turn.dataset.state = status;
  turn.dataset.player = past ? shown.to_move || "" : over ? "" : table.to_move || "";

  const note = $("turn-note");
  const at = past ? shown : table;
  const skipped = at.view && at.view.skipped;
  if (skipped && (past || !over)) {
    note.textContent = skipWords(skipped, you);
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
  document.title = pageTitle(over);
  $("offline-banner").hidden = !(state.everConnected && !state.connected && !state.leaving);
}

// The tab's title: "Your turn", or how the game ended, first (what a tab strip shows), then
// the players' names once one is chosen, so that tabs of several tables tell them apart
// ("Blue resigned. Red wins · Jana – Petr · Dots and Boxes · Playtable").
function pageTitle(over) {
  const { table } = state;
  const parts = [];
  if (myTurn() && state.connected) parts.push(t("your_turn"));
  else if (over) parts.push(playerResultText(table.outcome, table).replace(/\.$/, ""));
  const names = ["red", "blue"].map((player) => table.seats[player].nickname);
  if (names.some(Boolean)) {
    const [red, blue] = names.map((name, i) => name || playerName(i ? "blue" : "red"));
    parts.push(`${red} – ${blue}`);
  }
  return [...parts, baseTitle].join(" · ");
}

function renderSpectators() {
  const { table } = state;
  const count = table.spectators || 0;
  const line = $("spectators");
  line.hidden = count === 0;
  line.textContent = count ? tn("spectators_count", count) : "";
}

// While the replay shows an earlier step, the players' panel is that step's (its scores, who
// is to move, no winner), with a line saying which step it is: the live view, the result
// included, comes back with the last move.
function renderPlayers(shown) {
  const { table } = state;
  renderSpectators();
  const past = isPast(shown);
  const at = past ? shown : table;
  const score = at.view && at.view.score;
  const card = $("player-red").parentElement;
  card.dataset.past = String(past);
  let caption = $("players-replay");
  if (!caption) {
    caption = document.createElement("p");
    caption.className = "players__replay";
    caption.id = "players-replay";
    card.prepend(caption);
  }
  caption.hidden = !past;
  caption.textContent = !past
    ? ""
    : shown.ply === 0
      ? t("replay_at_start", { total: table.ply })
      : t("replay_at", { ply: shown.ply, total: table.ply });
  for (const player of ["red", "blue"]) {
    const row = $(`player-${player}`);
    const seat = table.seats[player];
    const name = row.querySelector(".player__name");
    // A chosen nickname, with the colour beside it (and "you" with it, in one pair of
    // brackets): set with textContent, never as markup.
    const colour = playerName(player);
    const mine = player === you;
    if (mine) showOwnName(seat.nickname || "");
    if (seat.nickname) {
      showNickname(name, mine ? "nickname_of_you" : "nickname_of", seat.nickname, colour);
    } else {
      name.textContent = mine ? t("you_suffix", { player: colour }) : colour;
      name.removeAttribute("title");
    }
    const presence = row.querySelector(".player__presence");
    // while this page is offline it cannot know who else is: it says so (and that its own
    // player is offline, which it does know)
    let status = !seat.taken ? "free" : seat.online ? "online" : "offline";
    if (seat.taken && !seat.bot && state.everConnected && !state.connected) {
      status = player === you ? "offline" : "unknown";
    }
    presence.dataset.presence = status;
    const label = { free: "seat_free", unknown: "presence_unknown" }[status] || status;
    presence.textContent = seat.bot ? t(`bot_${seat.bot}`) : t(label);
    const toMove = past ? shown.to_move === player : !isOver() && table.to_move === player;
    row.classList.toggle("is-to-move", toMove);
    row.classList.toggle("is-winner", !past && isOver() && table.outcome.winner === player);
    const scoreEl = row.querySelector(".player__score");
    if (scoreEl && score) scoreEl.textContent = formatNumber(score[player]);
  }
}

/** The name box holds the name the table has for this player, as saved (spaces alone are
 * no name) or saved from another tab; never while the player is typing in it. */
function showOwnName(saved) {
  const box = $("nickname");
  if (box && document.activeElement !== box && box.value !== saved) box.value = saved;
}

/** A chosen nickname with its colour (and "you"), as the language words it: only the
 * nickname is cut short with an ellipsis where the line is too narrow, never "(Red, you)"
 * beside it; the whole text is the element's text and its tooltip. */
function showNickname(el, key, nickname, colour) {
  const full = t(key, { name: nickname, player: colour });
  if (el.textContent === full && el.querySelector(".player__nick")) return;
  const mark = "\u0000";
  const [before, after = ""] = t(key, { name: mark, player: colour }).split(mark);
  const parts = [
    ["player__affix", before],
    ["player__nick", nickname],
    ["player__affix", after],
  ].filter(([, text]) => text);
  el.replaceChildren(
    ...parts.map(([className, text]) => {
      const span = document.createElement("span");
      span.className = className;
      span.textContent = text;
      // a name in Hebrew or Arabic reads in its own direction, its punctuation where its
      // writer put it, and leaves the brackets beside it alone
      if (className === "player__nick") span.dir = "auto";
      return span;
    }),
  );
  el.title = full;
}

function renderOffers(over) {
  const { table } = state;
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
  renderOfferAlert(over, offers);
}

// Whether the opponent proposed a rematch that waits for this player's answer.
function rematchAwaitsYou(over, offers) {
  const asked = offers.rematch || [];
  if (!you || !over || state.table.rematch_id) return false;
  return asked.includes(other(you)) && !asked.includes(you);
}

// An offer or request waiting for this player's answer: said under the board too (the card
// with the answers is far below it on a phone), with a button that goes to the answers.
function renderOfferAlert(over, offers) {
  const alert = $("offer-alert");
  if (!alert) return;
  let kind = !you || over ? null : ["undo", "draw"].find((k) => offers[k] && offers[k] !== you);
  if (rematchAwaitsYou(over, offers)) kind = "rematch";
  alert.hidden = !kind;
  if (!kind) {
    delete alert.dataset.offer;
    return;
  }
  alert.dataset.offer = kind;
  const text =
    kind === "rematch"
      ? t("opponent_rematch", { player: playerName(other(you)) })
      : t(kind === "draw" ? "ann_draw_offered" : "ann_undo_requested", {
          player: playerName(offers[kind]),
        });
  $("offer-alert-text").textContent = text;
  const go = $("offer-alert-go");
  go.textContent = t("offer_answer");
  if (!go.dataset.wired) {
    go.dataset.wired = "true";
    go.addEventListener("click", () => {
      const box = $(`offer-${alert.dataset.offer}`);
      if (!box || box.hidden) return;
      const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      box.scrollIntoView({ block: "center", behavior: reduce ? "auto" : "smooth" });
      // the first answer (its group's words are read with it)
      const answer = box.querySelector(".offer__buttons button");
      (answer || box).focus({ preventScroll: true });
    });
  }
}

function renderActions(over) {
  const { table } = state;
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
  // The computer never agrees to a draw in Swaptimum (someone always connects): no offer.
  const noDraw = computer && table.game === "swaptimum";
  $("action-draw").hidden = !(running && !offers.draw) || noDraw;
  $("action-resign").hidden = over || !opponentSeated;
  // The rematch is offered in the result; once the opponent proposed one, its answers
  // (accept, decline) are together in the offers instead.
  const rematch = $("action-rematch");
  const asked = (offers.rematch || []).includes(you);
  rematch.hidden = !over || asked || Boolean(table.rematch_id) || rematchAwaitsYou(over, offers);
  rematch.parentElement.hidden = rematch.hidden;
  rematch.disabled = !state.connected;
  for (const say of document.querySelectorAll("#quick button")) say.disabled = !state.connected;
  const buttons = Array.from(document.querySelectorAll("#actions button"));
  for (const button of buttons) button.disabled = !state.connected;
  // the card stays while the rematch can be asked for (its link to another device with it)
  $("actions").hidden = rematch.hidden && buttons.every((button) => button.hidden);
}

function absolute(path) {
  return path ? new URL(path, window.location.href).toString() : "";
}

function renderLinks() {
  const { table } = state;
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

function renderMoves(live) {
  const { table } = state;
  const list = $("move-list");
  const movers = moversOf(table);
  const claims = claimsOf(table);
  // Only the moves that changed are made again (a move: one item; a take-back: none): the
  // whole list made anew at every move cost a throttled phone a fifth of a second and more
  // on a long game, and laid out every item again.
  const signature = (index) =>
    `${movers ? movers[index] || "" : ""}|${table.moves[index]}|${claims[index] ?? ""}`;
  const kept = Array.from(list.children);
  let keep = 0;
  while (
    keep < kept.length &&
    keep < table.moves.length &&
    kept[keep].dataset.sig === signature(keep)
  ) {
    keep += 1;
  }
  const items = table.moves.slice(keep).map((move, offset) => {
    const index = keep + offset;
    const item = document.createElement("li");
    item.dataset.sig = signature(index);
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
      words.textContent = moveWords(table.game, mover, move, claims[index]);
      item.append(words);
    }
    return item;
  });
  const changed = table.moves.length !== movesShown;
  movesShown = table.moves.length;
  replaceMovesFrom(list, keep, items);
  Array.from(list.children).forEach((item, index) => {
    item.classList.toggle("is-last", index === table.moves.length - 1);
  });
  $("moves-empty").hidden = table.moves.length > 0;
  followMoves(list);
  // while the replay shows an earlier position the list shows its move (replay.js), not its
  // end; back to the game, the end again
  if (!live) movesAtEnd = false;
  else if (!wasLive) movesAtEnd = true;
  wasLive = live;
  if (live && (movesAtEnd || changed)) {
    movesAtEnd = true;
    pinMoves(list);
  }
}

// The move list shows its last move: scrolled to its end when a move comes (or goes), and
// again whenever its layout changes while it is there (the panels drawn after it, the fonts,
// a turned phone change its width, hence its columns and rows: the end moved down and the
// newest moves sat below the edge). A player who scrolls up to read is left there while
// the table is drawn again for anything else (presence, offers, a quick message).
// The scrolling waits for the next frame: its measures, taken while the page is being drawn,
// forced a layout of the whole page at each move (twice: the move and the list's mutation),
// which the frame then did again.
let movesAtEnd = true;
let movesShown = -1;
let wasLive = true;
let pinning = false;
const atEnd = (list) => list.scrollTop + list.clientHeight >= list.scrollHeight - 2;
function pinMoves(list) {
  if (pinning) return;
  pinning = true;
  requestAnimationFrame(() => {
    pinning = false;
    if (movesAtEnd && !atEnd(list)) list.scrollTop = list.scrollHeight;
  });
}
function followMoves(list) {
  if (list.dataset.follows) return;
  list.dataset.follows = "true";
  list.addEventListener("scroll", () => (movesAtEnd = atEnd(list)), { passive: true });
  const pin = () => pinMoves(list);
  new ResizeObserver(pin).observe(list);
  new MutationObserver(pin).observe(list, { childList: true });
  if (document.fonts) document.fonts.ready.then(pin);
  window.addEventListener("load", pin);
}

function renderResult(over) {
  const { table } = state;
  const box = $("result");
  if (!over) {
    box.hidden = true;
    return;
  }
  $("result-text").textContent = playerResultText(table.outcome, table);
  const rematchLink = $("rematch-watch-link");
  rematchLink.hidden = !table.rematch_id || Boolean(you);
  if (table.rematch_id) {
    rematchLink.href = inPageLanguage(`/t/${encodeURIComponent(table.rematch_id)}/watch`);
  }
  box.hidden = false;
  box.dataset.winner = table.outcome.winner || "draw";
}

// A link the server gives (a seat link, a table) in the language of this page: the prefix of
// docs/browser.md, or for English an explicit choice, since a bare seat link follows the
// browser's language.
export function inPageLanguage(path) {
  const lang = document.documentElement.lang;
  if (!path.startsWith("/") || path.startsWith("//")) return path;
  if (lang && lang !== "en") return `/${lang}${path}`;
  if (!/\/(seat|join)\//.test(path)) return path;
  return `${path}${path.includes("?") ? "&" : "?"}lang=en`;
}

