// The continue page's Copy button: the seat link to the clipboard (a phone user cannot
// easily select a long read-only field). Its words come translated from the page itself;
// the status line under it (a live region) says whether it worked. After "Make a new seat
// link" the page loads with its note focused, so a screen reader reads it.

import { copyField } from "./copy.js";

const button = document.querySelector("button[data-copy]");
const input = button && document.getElementById(button.dataset.copy);
const status = document.getElementById("copy-status");

function say(text) {
  if (!status) return;
  // emptied first, so the same words a second time are read again
  status.textContent = "";
  setTimeout(() => {
    status.textContent = text;
  }, 50);
}

button?.addEventListener("click", async () => {
  const copied = await copyField(button, input, button.dataset.copied);
  say(copied ? button.dataset.copied : button.dataset.failed);
});

document.getElementById("renewed")?.focus();
