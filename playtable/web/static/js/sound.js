// Move sounds, made with WebAudio (no sound files): a short soft "tock" for a move, a
// lower one for the opponent's, two notes at the end of the game. Off unless chosen; the
// audio context is created on the first press of the toggle (browsers allow sound only
// after a gesture).

let context = null;
let enabled = false;

export function setSound(on) {
  enabled = on;
  if (on && !context) {
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (Audio) context = new Audio();
  }
  if (on && context && context.state === "suspended") context.resume();
}

export function soundEnabled() {
  return enabled && Boolean(context);
}

function tone(frequency, start, length, volume = 0.18) {
  const oscillator = context.createOscillator();
  const gain = context.createGain();
  oscillator.type = "triangle";
  oscillator.frequency.setValueAtTime(frequency, start);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(volume, start + 0.008);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  oscillator.connect(gain).connect(context.destination);
  oscillator.start(start);
  oscillator.stop(start + length + 0.02);
}

/** `kind`: "mine" (your move), "theirs" (anyone else's) or "end". */
export function playSound(kind) {
  if (!soundEnabled()) return;
  const now = context.currentTime;
  if (kind === "end") {
    tone(523.25, now, 0.25);
    tone(783.99, now + 0.18, 0.4);
  } else {
    tone(kind === "mine" ? 660 : 440, now, 0.12);
  }
  window.dispatchEvent(new CustomEvent("playtable:sound", { detail: kind }));
}
