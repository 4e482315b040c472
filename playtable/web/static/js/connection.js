// The table page's WebSocket (docs/protocol.md): join with `since`, ping, give a silent
// connection up, reconnect with backoff, and the connection line above the board.

import { showFeedback } from "./feedback.js";
import { t } from "./i18n.js";
import { clearNotice, showNotice } from "./notices.js";
import { state } from "./table_state.js";

const PROTOCOL = 2;
const PING_EVERY_MS = 25000;
// A connection that has gone silent (a phone that changed networks, a dead Wi-Fi: the
// browser is not told for minutes) is given up after this long without a word from the
// server once the page is waiting for one: a move not answered, or a ping not answered.
export const MOVE_SILENCE_MS = 6000;
const PING_SILENCE_MS = 10000;
const RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15000];
// A socket closed with 1012 (Service Restart: a release or a restart of the server) is tried
// again every second or so, with some jitter, for this long: the server is expected back in
// seconds, and the back-off above left a player reading "Reconnecting…" for up to 15 s after
// it was, while their real-time clock ran on the server.
const RESTART_RETRY_MS = 1000;
// How often the page looks whether the device slept, and how far the wall clock must have
// run ahead of the monotonic clock for it to count as asleep.
const WAKE_CHECK_MS = 2000;
const SLEPT_MS = 30000;
const RESTART_PATIENCE_MS = 2 * 60 * 1000;

/**
 * The connection to the table at `url` (the page's `ws_url`): each message the server sends
 * goes to `onMessage(message)`; `onChange()` redraws the page when the connection's state
 * changes. `state.connected`, `state.everConnected`, `state.joined` and `state.sending` are
 * kept here; `state.version` is what a (re)join asks from.
 */
export function connectionFor({ url, onMessage, onChange }) {
  let socket = null;
  let retries = 0;
  let pingTimer = null;
  let silenceTimer = null; // gives the socket up if the server says nothing in time
  let retryTimer = null; // the next try to connect, after a back-off
  let answerTimer = null; // gives the socket up if the move sent is not answered in time
  let restartSince = null; // performance.now() when the server said it was restarting

  function socketUrl() {
    const address = new URL(url, window.location.href);
    address.protocol = address.protocol === "https:" ? "wss:" : "ws:";
    return address.toString();
  }

  function connect() {
    // one socket at a time: a retry pending, or an old socket (a page restored from the
    // back-forward cache calls this again), goes
    clearTimeout(retryTimer);
    retryTimer = null;
    if (socket) {
      const old = socket;
      socket = null;
      old.close();
    }
    if (state.leaving) return;
    setConnection(retries === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(socketUrl());
    socket = ws;
    ws.addEventListener("open", () => {
      state.connected = true;
      state.joined = false;
      if (state.everConnected) {
        showFeedback(t("reconnected"), "ok");
        // said with what happened meanwhile, once the rejoin's state has come
        // (table_events.js `announceCatchUp`)
        state.reconnected = true;
      }
      state.everConnected = true;
      retries = 0;
      restartSince = null;
      ws.send(JSON.stringify({ type: "join", protocol: PROTOCOL, since: state.version }));
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
      onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      if (event.code === 1012 && restartSince === null) restartSince = performance.now();
      if (socket === ws) lost();
    });
  }

  // The socket is gone (closed, or given up as silent): say so and connect again. A move
  // that was on its way is awaited: the state after the rejoin says whether it was played
  // (table_events.js `noteUnsent`), and the player is told meanwhile.
  function lost() {
    socket = null;
    state.connected = false;
    clearInterval(pingTimer);
    clearTimeout(silenceTimer);
    silenceTimer = null;
    clearTimeout(answerTimer);
    answerTimer = null;
    if (state.sending) {
      state.sending = false;
      if (state.pending) {
        const notice = t("move_unconfirmed", { move: state.pending.move });
        state.unsent = { ...state.pending, told: false, notice };
        showNotice(notice);
      }
      state.pending = null;
      onChange();
    }
    if (state.leaving) return;
    setConnection("reconnecting");
    const restarting =
      restartSince !== null && performance.now() - restartSince < RESTART_PATIENCE_MS;
    const delay = restarting
      ? RESTART_RETRY_MS * (0.5 + Math.random())
      : RETRY_DELAYS_MS[Math.min(retries, RETRY_DELAYS_MS.length - 1)];
    retries += 1;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      connect();
    }, delay);
  }

  // The browser knows when its network comes back, and when the page is shown again (a
  // phone woken, a tab brought forward): a retry waiting out its back-off (up to 15 s)
  // goes at once then, and a socket that may have died meanwhile is asked for a word. The
  // browser going offline ends the socket at once, where the silence would take 35 s.
  function retryNow() {
    if (retryTimer === null || state.leaving) return;
    retries = 0;
    connect(); // (which cancels the pending retry)
  }
  // A device that slept (a laptop closed for the night) wakes with a socket that is dead
  // more often than not: the server gave it up as idle, the network's path is gone. The page
  // learnt it at its next ping, up to 25 s and then 10 s of silence later, showing meanwhile
  // the board and the clocks of the evening before as if live (the monotonic clock the
  // clocks count with stands still while the device sleeps). The wall clock runs on: when it
  // has run well ahead of the monotonic one, the device slept, and the socket is made anew.
  let wallAt = Date.now();
  let monotonicAt = performance.now();
  setInterval(() => {
    const wall = Date.now();
    const monotonic = performance.now();
    const slept = wall - wallAt - (monotonic - monotonicAt);
    wallAt = wall;
    monotonicAt = monotonic;
    if (slept < SLEPT_MS || state.leaving) return;
    if (retryTimer !== null) retryNow();
    else if (socket) giveUp(socket);
  }, WAKE_CHECK_MS);
  window.addEventListener("online", retryNow);
  window.addEventListener("offline", () => giveUp(socket));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    if (retryTimer !== null) retryNow();
    else if (send({ type: "ping" }, { quiet: true })) expectWord(PING_SILENCE_MS);
  });

  /** The move just sent should be answered within `ms` (the position moves on, or an
   * error): if it is still "Sending…" then, the socket is given up, even if other news came
   * meanwhile (a downlink alive with the uplink stalled, as phones' networks do). */
  function expectAnswer(ms) {
    clearTimeout(answerTimer);
    const ws = socket;
    answerTimer = setTimeout(() => {
      answerTimer = null;
      if (state.sending) giveUp(ws);
    }, ms);
  }

  /** The server should answer within `ms`: if it says nothing, the connection is dead. */
  function expectWord(ms) {
    if (silenceTimer !== null) return; // already waiting for a word
    const ws = socket;
    silenceTimer = setTimeout(() => {
      silenceTimer = null;
      giveUp(ws);
    }, ms);
  }

  /** Give the socket `ws` up, if it is still this page's: closed, and reconnected. Its own
   * close event comes late or never (a dead network), so `lost` runs now. */
  function giveUp(ws) {
    if (!ws || socket !== ws) return;
    ws.close();
    lost();
  }

  function send(message, { quiet = false } = {}) {
    if (!state.connected || !socket || socket.readyState !== WebSocket.OPEN) {
      if (!quiet) showNotice(t("not_connected"));
      return false;
    }
    if (!quiet) clearNotice();
    socket.send(JSON.stringify(message));
    return true;
  }

  /** Ask for the whole table again (a change went missing). */
  function rejoin() {
    send({ type: "join", protocol: PROTOCOL, since: state.version }, { quiet: true });
  }

  function setConnection(name) {
    const line = document.getElementById("connection");
    line.dataset.state = name;
    line.textContent = t(
      {
        connecting: "connecting",
        reconnecting: "reconnecting",
        connected: "connected",
        rematch: "opening_rematch",
      }[name],
    );
    onChange();
  }

  return { connect, send, expectAnswer, rejoin, setConnection };
}
