// The table page's clocks (docs/protocol.md "Clocks"): both clocks counting down from the
// server's figures, the running one marked, low time highlighted, a correspondence deadline
// in the viewer's own date and time, announcements for screen readers at thresholds, and
// telling a player whose tab is in the background that it is their move (a sound and, if
// they allowed it, a browser notification).
//
// The server is the only authority: every state carries each side's time left as of the
// moment the server sent it (clock.now), and this page only counts down from that moment
// until the next state.
//
// The replay of a finished game shows each side's time as it stood at the position shown,
// from the table's clock_history (the record's [%clk]); nothing runs then. While the game
// runs the clocks stay live whatever the replay shows: the player's time is still running.

import { playerName, t } from "./i18n.js";
import { setUpPush } from "./push.js";

const LOW_REALTIME_S = 10; // highlighted below this many seconds...
const LOW_SHARE = 0.1; // ...or a tenth of the base time, whichever is more (at most 60 s)
const LOW_CORRESPONDENCE_S = 12 * 3600;
const THRESHOLDS_S = [60, 30, 10, 5];

const $ = (id) => document.getElementById(id);
const lang = document.documentElement.lang || undefined;
// A deadline in the device's time zone as it is now: a formatter made once kept the zone the
// page was opened in, and a player who travelled (or whose device changed zone) read the
// deadline hours off until they reloaded.
const dateTime = {
  format: (moment) =>
    new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(moment),
};
const secondsWords = new Intl.NumberFormat(lang, {
  style: "unit",
  unit: "second",
  unitDisplay: "long",
});
const days = new Intl.NumberFormat(lang, { style: "unit", unit: "day", unitDisplay: "long" });
// The last seconds in tenths, with the language's decimal sign (6,0 in Czech and Finnish).
const tenths = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

let current = null; // the table object last given
let past = null; // {red, blue}: the times at the replay's position of a finished game, or null
let pastPly = null;
let you = null;
let receivedAt = 0; // performance.now() when the server sent that state, as seen here
// performance.now() when the current turn reached this page (the player saw it from then): set
// by the first state of a ply, kept through the news that comes while the player thinks (a
// spectator, a message, a presence), which must not cut the thinking time a move reports.
let arrivedAt = 0;
let turnKey = "";
// The server's clock minus this page's monotonic one, from the quickest message so far: a
// state that arrives late (a phone's network stalling for seconds) is counted down from when
// the server sent it (its clock.now), not from when it arrived.
let bestSkew = -Infinity;
const LATE_MAX_MS = 10 * 60 * 1000;

/** How long ago, in ms, the server sent a state stamped `now`, beyond the quickest delivery
 * seen (0 for a state as timely as the best). */
function lateness(now) {
  const sent = now ? Date.parse(now) : NaN;
  if (!Number.isFinite(sent)) return 0;
  const skew = sent - (performance.timeOrigin + performance.now());
  if (skew > bestSkew) bestSkew = skew;
  return Math.min(LATE_MAX_MS, bestSkew - skew);
}
let frame = null;
// While the page's socket is down the clocks stop at what they showed (performance.now()
// then): the page cannot know whose clock runs (the other side may have moved meanwhile),
// so it counts nothing until the server's state after the rejoin says again. All but the
// viewer's own clock while it is their move: nothing but their move stops it, so it runs on
// (frozen, it showed a blitz player seconds they no longer had).
let frozenAt = null;

/** Whether `player`'s clock stands still for want of the server. */
function frozenFor(player) {
  if (frozenAt === null) return false;
  const clock = current && current.clock;
  return !(you && player === you && clock && clock.running === you);
}
let announced = new Set(); // thresholds already read out in this stretch
let stretchKey = "";
let wasMyTurn = null;

/** The time the viewer spent on their move so far, in seconds (for lag compensation). */
export function thinkSeconds() {
  return Math.max(0, (performance.now() - arrivedAt) / 1000);
}

/** The result sentence of a game ended by the clock, or "" for any other end. */
export function timeResult(outcome) {
  if (!outcome) return "";
  if (outcome.reason === "aborted") return t("aborted");
  if (outcome.reason === "timeout" && outcome.winner) {
    const loser = outcome.winner === "red" ? "blue" : "red";
    return t("wins_timeout", { winner: playerName(outcome.winner), loser: playerName(loser) });
  }
  return "";
}

/** Seconds `player` has left now, counted down from the last state. */
function remaining(player) {
  const clock = current && current.clock;
  if (!clock || clock.remaining[player] === null) return null;
  const left = clock.remaining[player];
  if (clock.running !== player) return left;
  const now = Math.max(frozenFor(player) ? frozenAt : performance.now(), receivedAt);
  return Math.max(0, left - (now - receivedAt) / 1000);
}

let noteTimer = null; // the first move's countdown, redrawn each second

let lowTimer = null; // a correspondence deadline's highlight, when it comes near

/** Seconds left until the clock's deadline (a real-time first move, a correspondence move):
 * from the deadline as of when the server sent the state (its clock.now), counted down on
 * this page's monotonic clock since. */
function untilDeadline(clock) {
  const due = Date.parse(clock.deadline) - Date.parse(clock.now);
  if (!Number.isFinite(due)) return 0;
  const now = frozenAt !== null ? frozenAt : performance.now();
  return Math.max(0, due / 1000 - Math.max(0, now - receivedAt) / 1000);
}

function format(seconds) {
  if (seconds < 20) return tenths.format(Math.floor(seconds * 10) / 10);
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Each side's time as it stood after `ply` moves of a finished game, from its
 * `clock_history` (after move i the mover's is history[i]; the other side's, its time after
 * its own last move before, or the starting time); null for the clocks as they are: a game
 * running, its final position, no replay, no history. */
function timesAt(table, ply) {
  const clock = table.clock;
  const history = table.clock_history;
  const over = table.outcome !== null && table.outcome !== undefined;
  if (ply === null || !over || !clock || !Array.isArray(history) || ply >= table.ply) {
    return null;
  }
  const control = clock.control;
  const start = control.kind === "correspondence" ? control.days * 86400 : control.minutes * 60;
  const times = { red: start, blue: start };
  const movers = table.movers || [];
  for (let index = 0; index < ply && index < history.length; index += 1) {
    // a hair over the tenth the record wrote, so that the display's floor keeps that tenth
    if (movers[index] in times && typeof history[index] === "number") {
      times[movers[index]] = history[index] + 1e-6;
    }
  }
  return times;
}

/** The clock's name for a screen reader: whose time, and at the replay's position which. */
function clockLabel(player) {
  const name = playerName(player);
  if (past === null) return t("clock_label", { player: name });
  if (pastPly === 0) return t("clock_label_start", { player: name });
  return t("clock_label_after", { player: name, ply: pastPly });
}

function lowAt(clock) {
  if (clock.control.kind === "correspondence") return LOW_CORRESPONDENCE_S;
  return Math.min(60, Math.max(LOW_REALTIME_S, clock.control.minutes * 60 * LOW_SHARE));
}

function draw() {
  frame = null;
  const clock = current && current.clock;
  if (!clock) return;
  const over = current.outcome !== null && current.outcome !== undefined;
  const correspondence = clock.control.kind === "correspondence";
  for (const player of ["red", "blue"]) {
    const el = $(`clock-${player}`);
    if (!el) continue;
    const running = !over && clock.running === player;
    const waiting = !over && clock.waiting_for === player;
    // a correspondence move's time counts down to its deadline too, though no clock runs:
    // a page left open for a day highlighted it only once reloaded
    const toDeadline = !past && correspondence && waiting && clock.deadline;
    const left = past ? past[player] : toDeadline ? untilDeadline(clock) : remaining(player);
    if (toDeadline) {
      clearTimeout(lowTimer);
      const early = left - lowAt(clock);
      if (early > 0) lowTimer = setTimeout(draw, Math.min(2 ** 31 - 1, early * 1000 + 500));
    }
    if (correspondence && waiting && clock.deadline) {
      el.classList.remove("is-days");
      showDeadline(el, dateTime.format(new Date(clock.deadline)));
    } else if (correspondence) {
      // "1 den": words in the text's font (clock.css), one no-break space between the number
      // and the word (in the monospace font the gap after a "1" looked doubled)
      el.classList.remove("is-deadline");
      el.classList.add("is-days");
      el.textContent = days.format(Math.round(left / 86400)).replace(/\s+/g, "\u00a0");
    } else {
      el.classList.remove("is-deadline", "is-days");
      el.textContent = format(left ?? 0);
    }
    el.dataset.seconds = left === null ? "" : left.toFixed(1);
    // a deadline says what it is itself ("Next move by ..."): not "time left: next move by"
    const label = el.classList.contains("is-deadline") ? playerName(player) : clockLabel(player);
    el.setAttribute("aria-label", `${label}: ${el.textContent}`);
    el.classList.toggle("is-running", running || (correspondence && waiting));
    el.classList.toggle("is-low", (running || (correspondence && waiting)) && left < lowAt(clock));
    el.classList.toggle("is-stale", frozenFor(player));
    el.classList.toggle("is-past", past !== null);
    if (running && !correspondence && !frozenFor(player)) announceThresholds(player, left);
  }
  const note = $("clock-note");
  if (note) {
    const firstMove = !over && clock.expiry === "abort" && !clock.running && clock.deadline;
    note.hidden = !firstMove;
    if (firstMove && correspondence) {
      // the mover's clock says "Next move by <date>" already (draw): the note says what
      // happens then, not the date a second time (seen, and read out, twice)
      note.textContent = firstMoveWords("clock_first_move_abort", clock.waiting_for);
    } else if (firstMove) {
      // real time: the clock shows the whole base time, which does not run yet; the minute
      // for the first move is counted down here (a time of day, "by 3:26:09 AM", had to be
      // worked out against the player's own clock)
      const left = untilDeadline(clock);
      note.textContent = firstMoveWords(
        "clock_first_move_in",
        clock.waiting_for,
        secondsWords.format(Math.ceil(left)),
      );
      // the note changes every second and is not read out: the thresholds are, as a running
      // clock's are (a blind player was never told the table would be aborted)
      if (frozenAt === null) announceThresholds(clock.waiting_for, left, true);
      clearTimeout(noteTimer);
      if (left > 0) noteTimer = setTimeout(draw, (left - Math.floor(left)) * 1000 || 1000);
    }
  }
  if (!over && clock.running && !correspondence && !frozenFor(clock.running)) {
    frame = requestAnimationFrame(draw);
  }
}

// The first move a table waits for, said to the player who must make it as "you" (it named
// them in the third person: "Red must make a first move…", read to Red).
function firstMoveWords(key, player, time) {
  if (you !== null && player === you) return t(`${key}_you`, { time });
  return t(key, { player: playerName(player), time });
}

// "Next move by 7.12.2026 klo 11.27": the date and time kept on one line (a span that does
// not wrap), so the line breaks at most between the words and the date, never inside it.
const MARK = "\u0000";
function showDeadline(el, time) {
  const [before, after = ""] = t("clock_deadline", { time: MARK }).split(MARK);
  const when = document.createElement("span");
  when.className = "clock-when";
  when.textContent = time;
  el.classList.add("is-deadline");
  el.replaceChildren(before, when, after);
}

/** Reads out the first threshold `left` crossed in this stretch: the time left on a
 * running clock, or (`firstMove`) before a real-time first move, that the table is aborted. */
function announceThresholds(player, left, firstMove = false) {
  for (const threshold of THRESHOLDS_S) {
    if (left > threshold || announced.has(threshold)) continue;
    announced.add(threshold);
    // only the first threshold crossed: a clock seen at 8 s does not read out four times
    for (const bigger of THRESHOLDS_S) if (bigger > threshold) announced.add(bigger);
    const region = $("clock-announcer");
    if (!region) return;
    const name = playerName(player);
    if (firstMove) {
      const time = secondsWords.format(threshold);
      region.textContent = firstMoveWords("clock_first_move_in", player, time);
    } else {
      region.textContent =
        threshold === 60
          ? t("clock_minute", { player: name })
          : t("clock_low", { player: name, seconds: threshold });
    }
    return;
  }
}

// -- telling the player it is their move ----------------------------------------------------------
let audio = null;
function beep() {
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch {
    // no sound where the browser refuses it
  }
}

function tellYourMove() {
  if (!document.hidden) return;
  beep();
  if ("Notification" in window && Notification.permission === "granted") {
    const note = new Notification(t("notify_your_move"), {
      body: document.title,
      tag: `playtable-${current.id}`,
      lang,
    });
    note.onclick = () => window.focus();
    document.body.dataset.notified = String(Number(document.body.dataset.notified || 0) + 1);
  }
}

function setUpNotifyButton() {
  const button = $("notify-button");
  if (!button || !you || !("Notification" in window)) return;
  const status = $("notify-status");
  const show = () => {
    const permission = Notification.permission;
    button.hidden = permission !== "default";
    if (status) {
      // a live region, kept in the page (an empty one takes no room): its words are read
      const words = { granted: t("notify_on"), denied: t("notify_denied") };
      status.textContent = words[permission] || "";
    }
  };
  button.addEventListener("click", async () => {
    await Notification.requestPermission();
    show();
  });
  show();
}

// The device's time zone may have changed while the page was away (a laptop closed on one
// side of the world and opened on the other): its deadline is written again when it is back.
function redraw() {
  if (!current) return;
  if (frame !== null) cancelAnimationFrame(frame);
  draw();
}
window.addEventListener("focus", redraw);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") redraw();
});

/** The table page's hook: call with every state the page renders. `live`: false while the
 * page's connection is down or not yet answered after a reconnect (the clocks stand still,
 * dimmed, until a state from the server comes). `shownPly`: the ply the replay shows, null
 * at the live (or final) position. */
export function updateClock(table, viewer, live = true, shownPly = null) {
  if (you === null && viewer) {
    you = viewer;
    setUpNotifyButton();
    setUpPush(table, viewer).catch(() => {}); // no service worker here: no push offered
  }
  const fresh = table !== current;
  if (!live && frozenAt === null) {
    frozenAt = performance.now();
  } else if (live && frozenAt !== null) {
    // back: counted from the server's new state; with none (the same table), the pause
    // does not count, but for the viewer's own clock, which ran on
    if (!fresh && frozenFor(current && current.clock && current.clock.running)) {
      receivedAt += performance.now() - frozenAt;
    }
    frozenAt = null;
  }
  if (fresh) {
    current = table;
    const now = performance.now();
    receivedAt = now - lateness(table.clock && table.clock.now);
    const turn = `${table.ply}:${table.to_move}`;
    if (turn !== turnKey) {
      turnKey = turn;
      arrivedAt = now;
    }
    const clock = table.clock;
    // (a first move's stretch begins when its deadline comes: once both seats are taken)
    const key = clock ? `${clock.running}:${table.ply}:${Boolean(clock.deadline)}` : "";
    if (key !== stretchKey) {
      stretchKey = key;
      // read out only the thresholds this stretch crosses: a one-minute game does not start
      // with "one minute left", nor does a page opened with 20 s left say "30 seconds"
      let left = null;
      if (clock && clock.running) left = remaining(clock.running);
      else if (clock && clock.deadline && clock.control.kind !== "correspondence") {
        left = untilDeadline(clock); // a real-time first move's minute
      }
      announced = new Set(THRESHOLDS_S.filter((threshold) => left !== null && left <= threshold));
    }
    const over = table.outcome !== null && table.outcome !== undefined;
    const myTurn = Boolean(viewer) && !over && table.to_move === viewer;
    if (myTurn && wasMyTurn === false) tellYourMove();
    wasMyTurn = myTurn;
    if (over) {
      // no move of this player's is coming: nothing left to be told of, and no time left
      // said to a screen reader browsing the page after the result
      for (const id of ["notify-button", "push-on"]) if ($(id)) $(id).hidden = true;
      if ($("clock-announcer")) $("clock-announcer").textContent = "";
    }
  }
  const over = table.outcome !== null && table.outcome !== undefined;
  const abort = $("abort-form");
  if (abort) abort.hidden = !viewer || over || new Set(table.movers || []).size >= 2;
  if (over && table.outcome.reason === "aborted") {
    const turn = $("turn");
    if (turn) turn.textContent = t("aborted_turn");
  }
  past = timesAt(table, shownPly);
  pastPly = past === null ? null : shownPly;
  if (frame !== null) cancelAnimationFrame(frame);
  draw();
}
