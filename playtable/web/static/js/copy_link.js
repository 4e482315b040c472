// The Copy buttons of the continue page and the players' links page: a link to the clipboard
// (a phone user cannot easily select a long read-only field). Their words come translated
// from the page itself; the status line under each (a live region, `data-status`, else
// #copy-status) says whether it worked. After "Make a new seat link" the page loads with its
// note focused, so a screen reader reads it.

import { copyField } from "./copy.js";

function say(status, text) {
  if (!status) return;
  // emptied first, so the same words a second time are read again
  status.textContent = "";
  setTimeout(() => {
    status.textContent = text;
  }, 50);
}

for (const button of document.querySelectorAll("button[data-copy]")) {
  const input = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status || "copy-status");
  button.addEventListener("click", async () => {
    const copied = await copyField(button, input, button.dataset.copied);
    say(status, copied ? button.dataset.copied : button.dataset.failed);
  });
}

document.getElementById("renewed")?.focus();
