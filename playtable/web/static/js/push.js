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
  const show = async () => {
    const subscription = await registration.pushManager.getSubscription();
    on.hidden = Boolean(subscription);
    off.hidden = !subscription;
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
      await subscription.unsubscribe();
    }
    say("push_off");
    await show();
  });
  await show();
}
