// The continue page's Copy button: the seat link to the clipboard (a phone user cannot
// easily select a long read-only field). Its words come translated from the page itself.

import { copyField } from "./copy.js";

const button = document.querySelector("button[data-copy]");
const input = button && document.getElementById(button.dataset.copy);
const status = document.getElementById("copy-status");

button?.addEventListener("click", async () => {
  if (!(await copyField(button, input, button.dataset.copied)) && status) {
    status.textContent = button.dataset.failed;
  }
});
