// The players' links of a table set up for two other players (organiser.py): the Copy
// buttons, and who is at the table as the players arrive, asked every few seconds while the
// page is in view (each line a live region, read out when it changes). Once a player has
// taken their seat, its invitation is no longer shown: there is nothing left to hand out.

import "./copy_link.js";

const EVERY_MS = 5000;
const root = document.getElementById("players-links");

function words(line, seat) {
  if (!seat.taken) return line.dataset.free;
  return seat.online ? line.dataset.here : line.dataset.away;
}

async function check() {
  if (document.visibilityState !== "visible") return;
  let seats;
  try {
    const response = await fetch(root.dataset.status, { cache: "no-store" });
    if (!response.ok) return;
    seats = await response.json();
  } catch {
    return; // offline for a moment: the next try
  }
  for (const player of ["red", "blue"]) {
    const line = document.getElementById(`${player}-here`);
    const text = line && seats[player] ? words(line, seats[player]) : null;
    if (text && line.textContent !== text) line.textContent = text;
  }
  for (const player of ["red", "blue"]) {
    const handout = document.getElementById(`${player}-handout`);
    if (handout && !handout.hidden && seats[player] && seats[player].taken) {
      putAway(handout, player);
    }
  }
}

/** The invitation hidden once its player has taken the seat. The keyboard's focus on its
 * field or Copy button would fall to the start of the page: it goes to the line saying the
 * player is at the table, which is what took the invitation away (and is read out). */
function putAway(handout, player) {
  const hadFocus = handout.contains(document.activeElement);
  handout.hidden = true;
  const line = document.getElementById(`${player}-here`);
  if (!hadFocus || !line) return;
  line.tabIndex = -1;
  line.focus();
}

if (root && root.dataset.status) {
  setInterval(check, EVERY_MS);
  document.addEventListener("visibilitychange", check);
}
