// What the server says at the table (docs/protocol.md), applied to the page: a whole table
// or a patch to the one this page holds, the events that led to it (announced, with sounds
// and feedback), offers that lapsed, errors, and the link to a rematch.

import { clearFeedback, showFeedback } from "./feedback.js";
import { hasString, playerName, refusal, t, tn } from "./i18n.js";
import { claimedBy, moveWords, skipWords } from "./move_words.js";
import {
  announce,
  clearNotice,
  forgetNext,
  keepNotice,
  mayReload,
  noticeText,
  showNotice,
} from "./notices.js";
import { applyPatch } from "./patch.js";
import { carryPush } from "./push.js";
import { rememberRematch } from "./rematch_note.js";
import { playerResultText } from "./result_words.js";
import { playSound } from "./sound.js";
import { inPageLanguage } from "./table_panels.js";
import { other, page, state, you } from "./table_state.js";

const MOVED_ON_MS = 3000; // a message stays at least this long before a move takes it away

const $ = (id) => document.getElementById(id);

// offers answered by an event (declined, agreed, taken back): any other offer that goes
// away lapsed (a move clears them), and the players are told so
const answered = { draw: false, undo: false };
// A rematch agreed before this page was opened: the server repeats its link on every join,
// but someone who came back to look at the old game is not sent away from it.
const rematchAtLoad = Boolean(page.table.rematch_id);

/**
 * `receive(message)`: one message from the server applied to `state`; the page is drawn
 * again with `render()`. `rejoin()` asks for the whole table when a change went missing;
 * `setConnection("rematch")` says the page is leaving for the rematch.
 */
export function eventsFor({ render, rejoin, setConnection }) {
  function receive(message) {
    switch (message.type) {
      case "state":
        // an older state than one already seen (from a reconnect race) changes nothing
        if (typeof message.version === "number" && message.version < state.version) break;
        showTable(message.table, message.version);
        break;
      case "change":
        receiveChange(message);
        break;
      case "error":
        // only the move's own answer ends "Sending…" (a refused quick message or offer
        // meanwhile does not: the move is still on its way)
        if (message.request === "move") {
          state.sending = false;
          state.pending = null;
        }
        if (message.code === "protocol" && message.request === "join") {
          // A page from before a release that changed the protocol: its join is never
          // taken. It showed "Your turn" with nothing to play, said "Connected" and asked
          // again every second for ever; it loads again now (the new release's page), or,
          // if it did so lately, says it is out of date and stops asking.
          outOfDate(errorText(message));
          break;
        }
        // a join that failed (the store away a moment): asked again, or the page would
        // wait for ever with nothing to play
        if (message.request === "join" && !state.joined) setTimeout(rejoin, 1000);
        if (message.code === "seat_key_replaced") {
          // This page's seat link was replaced: loaded again, it is what its cookie holds
          // now (a spectator, or the player on the device that made the new link).
          reloadForSeat(errorText(message));
          break;
        }
        showNotice(t("server_error", { message: errorText(message) }));
        render();
        break;
      case "rematch":
        if (rematchAtLoad) {
          const link = $("rematch-seat-link");
          link.href = inPageLanguage(message.url);
          link.hidden = false;
          link.onclick = () => {
            rememberRematch(link.href, you);
            carryPush(page.table.id, link.href);
          };
          break;
        }
        state.leaving = true;
        setConnection("rematch");
        rememberRematch(message.url, you);
        carryPush(page.table.id, message.url);
        window.location.assign(inPageLanguage(message.url));
        break;
      default:
        break; // "pong" and anything newer than this page
    }
  }

  function showTable(next, nextVersion) {
    if (you !== null && next.you !== undefined && next.you !== you) {
      // The server no longer seats this page (its seat link was replaced while it was
      // away, so no socket of it heard the news): loaded again, it shows what it is now.
      if (reloadForSeat(t("error_seat_key_replaced"))) return;
    }
    noteLapsedOffers(state.table.offers, next, state.joined);
    const before = state.table;
    // The first state after a join is a catch-up when the socket came back, and also when
    // the table moved on while the page loaded (the computer's move, played at once, or its
    // answer while the page was reloaded): the board changed, and nobody was told.
    const reconnected = state.reconnected;
    const newer = (nextVersion ?? next.version) > state.version;
    const catchUp = !state.joined && (reconnected || newer);
    state.joined = true;
    state.reconnected = false;
    state.table = next;
    if (catchUp) announceCatchUp(before, next, reconnected);
    state.version = nextVersion ?? state.table.version;
    // "Sending…" holds until the position moves on (the move played, or a take-back or the
    // end of the game) or an error answers the move: a presence, a quick message or a
    // spectator at the same position used to cancel it and offer the old board again.
    const pending = state.pending;
    if (state.sending && (!pending || next.ply !== pending.ply || next.outcome)) {
      state.sending = false;
    }
    noteUnsent(next);
    render();
  }

  // What changed at the table: its events (for the announcements and sounds), then either the
  // whole table or a patch to the one this page holds. A patch from another version than ours
  // means a message went missing: the page asks for the whole table instead.
  function receiveChange(message) {
    let next = message.table;
    if (!next) {
      if (message.base !== state.version) {
        if (message.version > state.version) rejoin();
        return;
      }
      try {
        next = applyPatch(state.table, message.patch);
      } catch {
        rejoin();
        return;
      }
    } else if (message.version < state.version) {
      return;
    }
    state.version = Math.max(state.version, message.version);
    // the events are read against the table they lead to (who moved last decides the words
    // of a Swaptimum win), though the page shows it only after them
    for (const event of message.events) handleEvent(event, next);
    showTable(next, message.version);
  }

  return { receive };
}

// This page lost its seat (its link was replaced): it loads again, in a moment (the browser
// that made the new link may still be storing its cookie), and says why; or, if it did so
// lately, only says it. `true` if it is reloading.
function reloadForSeat(text) {
  if (!mayReload()) {
    showNotice(text);
    return false;
  }
  keepNotice(text);
  state.leaving = true;
  setTimeout(() => window.location.reload(), 500);
  return true;
}

// This page speaks another protocol than the server (a release since it was loaded): loaded
// again, unless it was lately (then the notice says to reload, and the page asks no more).
function outOfDate(text) {
  showNotice(text);
  if (!mayReload()) return;
  state.leaving = true;
  setTimeout(() => window.location.reload(), 500);
}

// A move the connection dropped before the server confirmed it (connection.js `lost`): the
// first state after the rejoin says whether it was played. If not, the player is told to
// play it again; if it arrives later after all (a network that held it), it shows as
// played and the notice goes.
function noteUnsent(next) {
  const unsent = state.unsent;
  if (!unsent) return;
  if (next.ply !== unsent.ply || next.outcome) {
    // settled: played (late or not), or the game moved on otherwise (a flag, a take-back):
    // the notice about it goes, "checking" or "play it again" alike
    state.unsent = null;
    if (noticeText() === unsent.notice) clearNotice();
  } else if (!unsent.told) {
    unsent.told = true;
    unsent.notice = t("move_not_sent", { move: unsent.move });
    showNotice(unsent.notice);
  }
}

// The page is connected (again, if `reconnected`: a screen reader hears so) and has the
// table as it is now: what the other side did meanwhile (their last move, as a live move is
// read, then who moves, or the result), since the board simply changed while nobody was told.
function announceCatchUp(before, next, reconnected) {
  if (reconnected) announce(t("reconnected"));
  announceMissedMove(before, next);
  announceMissedOffers(before, next);
}

function announceMissedMove(before, next) {
  const movers = Array.isArray(next.movers) ? next.movers : [];
  if (next.moves.length <= before.moves.length && next.ply <= before.ply) return;
  const mover = movers[movers.length - 1];
  const move = next.moves[next.moves.length - 1];
  const over = next.outcome !== null && next.outcome !== undefined;
  if (over) {
    announce(playerResultText(next.outcome, next));
    return;
  }
  if (!mover || !move || mover === you) return;
  let text = moveWords(next.game, mover, move, claimedBy(next, move));
  const skipped = next.view && next.view.skipped;
  if (skipped) text += ` ${skipWords(skipped, you)}`;
  announce(text, next.to_move ? t("ann_next", { player: playerName(next.to_move) }) : "");
}

// An offer made while this page was away (the other side offered a draw, asked to take a
// move back or for a rematch): shown when the state came, and said as a live one is, or a
// screen reader user back from a lost connection would not know an answer waits for them.
function announceMissedOffers(before, next) {
  const was = before.offers || {};
  const now = next.offers || {};
  const over = next.outcome !== null && next.outcome !== undefined;
  const kinds = over ? [] : [["draw", "draw_offered"], ["undo", "undo_requested"]];
  for (const [kind, words] of kinds) {
    const by = now[kind];
    if (!by || by === you || was[kind] === by) continue;
    announce(t(`ann_${words}`, { player: playerName(by) }));
  }
  const asked = Array.isArray(now.rematch) ? now.rematch : [];
  const askedBefore = Array.isArray(was.rematch) ? was.rematch : [];
  for (const by of asked) {
    if (over && by !== you && !askedBefore.includes(by)) {
      announce(t("ann_rematch_offered", { player: playerName(by) }));
    }
  }
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
      state.lastMover = event.player;
      clearFeedback({ olderThan: MOVED_ON_MS }); // "took the seat", "declined": the game went on
      playSound(event.player === you ? "mine" : "theirs");
      text = moveWords(state.table.game, event.player, event.move, event.claimed || 0);
      if (event.skipped) text += ` ${skipWords(event.skipped, you)}`;
      // Who moves next: the same player after a claimed box or a skipped turn. If the move
      // ended the game, the "game_over" event right behind it drops this and gives the result.
      if (event.player) {
        const again = event.claimed > 0 || Boolean(event.skipped);
        next = t("ann_next", { player: playerName(again ? event.player : other(event.player)) });
      }
      break;
    case "undo": {
      state.lastMover = null;
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
      // in the words of the result that follows ("You resigned. Red wins."), read once
      text = playerResultText({ winner: other(event.player), reason: "resign" }, after);
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
      // a player is not told of their own arrival (every join of theirs)
      if (event.player !== you) {
        text = t(event.online ? "ann_online" : "ann_offline", { player: who });
      }
      break;
    case "game_over":
      clearFeedback(); // the result says what happened
      playSound("end");
      text = playerResultText(event.outcome, after);
      break;
    default:
      break;
  }
  if (event.kind === "game_over") forgetNext();
  if (text) announce(text, next);
}
