// Web Push on the table page (web/push.py): at a correspondence table, a player may ask to
// be told of their move while the tab is closed, on this device, and stop it again.

import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let started = false;

function base64ToBytes(text) {
  const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  if (!response.ok) throw new Error(String(response.status));
  return response;
}

// The tables this browser asked to be told of, each with its subscription's endpoint.
const STORED = "playtable-push:";

function remembered(tableId) {
  try {
    return localStorage.getItem(STORED + tableId);
  } catch {
    return null; // storage refused: push is offered again, and sending it again is harmless
  }
}

function remember(tableId, endpoint) {
  try {
    if (endpoint) localStorage.setItem(STORED + tableId, endpoint);
    else localStorage.removeItem(STORED + tableId);
  } catch {
    // storage refused: nothing remembered
  }
}

/** How many tables keep the subscription `endpoint`. */
function tablesWith(endpoint) {
  let count = 0;
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key && key.startsWith(STORED) && localStorage.getItem(key) === endpoint) count += 1;
    }
  } catch {
    return 1; // unknown: the subscription is kept, as other tables may hold it
  }
  return count;
}

/** The page leaves for its rematch at `url` (its seat link): the server carried this
 * table's subscriptions to the rematch (web/push.py), and this browser's is remembered
 * there too, so the new table says push is on where it is. */
export function carryPush(tableId, url) {
  const match = /\/t\/([^/?#]+)\/seat\//.exec(url);
  const endpoint = remembered(tableId);
  if (match && endpoint) remember(decodeURIComponent(match[1]), endpoint);
}

/** Offer push at a correspondence table to a seated player whose browser can do it. */
export async function setUpPush(table, you) {
  if (started || !you || !table.clock || table.clock.control.kind !== "correspondence") return;
  if (table.outcome !== null && table.outcome !== undefined) return; // no move of theirs to come
  started = true;
  const on = $("push-on");
  const off = $("push-off");
  const status = $("push-status");
  if (!on || !off || !("serviceWorker" in navigator) || !("PushManager" in window)) return;
  const pushPath = `/t/${encodeURIComponent(table.id)}/push`;
  const say = (key) => {
    status.textContent = t(key); // a live region: read out
  };
  const registration = await navigator.serviceWorker.register("/push-sw.js");
  // A browser has one subscription for the whole site, and the server keeps it for each table
  // it was sent for: whether this table has it is remembered here (table page by table page).
  // Read from the browser's subscription alone, a second game (a rematch) said push was on
  // where the server had nothing, and turning it off there ended it for every game.
  const mine = (subscription) =>
    Boolean(subscription) && remembered(table.id) === subscription.endpoint;
  const show = async () => {
    const subscription = await registration.pushManager.getSubscription();
    on.hidden = mine(subscription);
    off.hidden = !mine(subscription);
  };
  // Sent again at every visit: a seat whose link was replaced loses its subscriptions (a
  // device that saw the old link is told nothing more), and the player's own pages, which
  // hold the new key, get theirs back; one refused (the seat is no longer this browser's)
  // is forgotten here.
  const renew = async () => {
    const subscription = await registration.pushManager.getSubscription();
    if (subscription && !mine(subscription)) {
      // not asked for here, but perhaps carried here by the server: a rematch page opened
      // from a push, not followed to from its game's page (carryPush)
      try {
        const response = await call("POST", `${pushPath}/kept`, {
          endpoint: subscription.endpoint,
        });
        if ((await response.json()).kept) remember(table.id, subscription.endpoint);
      } catch {
        // unknown: push is offered, and turning it on again is harmless
      }
      return;
    }
    if (!mine(subscription)) return;
    try {
      await call("POST", pushPath, {
        subscription: subscription.toJSON(),
        lang: document.documentElement.lang,
      });
    } catch (error) {
      if (error.message === "403") remember(table.id, null);
    }
  };
  on.addEventListener("click", async () => {
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        // blocked, or the browser's question put away unanswered (asked again next time)
        say(permission === "denied" ? "notify_denied" : "notify_dismissed");
        return;
      }
      const { key } = await (await fetch("/push/key")).json();
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: base64ToBytes(key),
      });
      await call("POST", pushPath, {
        subscription: subscription.toJSON(),
        lang: document.documentElement.lang,
      });
      remember(table.id, subscription.endpoint);
      say("push_on");
    } catch {
      say("push_failed");
    }
    await show();
  });
  off.addEventListener("click", async () => {
    const subscription = await registration.pushManager.getSubscription();
    if (subscription) {
      await call("DELETE", pushPath, { endpoint: subscription.endpoint }).catch(() => {});
      remember(table.id, null);
      // the browser's subscription ends with the last table that has it
      if (!tablesWith(subscription.endpoint)) await subscription.unsubscribe();
    }
    say("push_off");
    await show();
  });
  await renew();
  await show();
}
