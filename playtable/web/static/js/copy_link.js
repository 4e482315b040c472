// The continue page's Copy button: the seat link to the clipboard (a phone user cannot
// easily select a long read-only field). Its words come translated from the page itself.

const button = document.querySelector("button[data-copy]");
const input = button && document.getElementById(button.dataset.copy);
const status = document.getElementById("copy-status");

button?.addEventListener("click", async () => {
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  try {
    await navigator.clipboard.writeText(input.value);
    button.textContent = button.dataset.copied;
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  } catch {
    input.focus();
    input.select();
    if (status) status.textContent = button.dataset.failed;
  }
});
