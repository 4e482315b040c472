// Copy a read-only field's link to the clipboard from its button: the button says so for two
// seconds; on failure the field is selected for the visitor to copy and `false` is returned
// (the caller says why in its own words). The table page's links and the continue page's.

export async function copyField(button, input, copiedWord) {
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.focus();
    input.select();
    return false;
  }
  button.textContent = copiedWord;
  setTimeout(() => {
    button.textContent = label;
  }, 2000);
  return true;
}
