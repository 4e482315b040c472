// The table page's shared state: the page's data, the table as this page last received it,
// and the connection's flags. The page's modules (table.js, connection.js, table_events.js,
// table_panels.js) read and write this one object; nothing else is shared between them.

export const page = JSON.parse(document.getElementById("table-data").textContent);
export const you = page.you; // "red", "blue" or null (watching)

export const state = {
  table: page.table,
  version: page.table.version,
  connected: false,
  sending: false, // a move is on its way: the board waits for the position to move on
  pending: null, // that move, { ply, move }
  unsent: null, // a move the connection dropped before it was confirmed, { ply, move }
  leaving: false,
  lastMover: null, // from the event stream, when the state does not say
  everConnected: false, // "connection lost" only after there was one
  joined: false, // the first state after a (re)join is a catch-up, not a change seen
  reconnected: false, // the socket came back: the rejoin's state is announced as a catch-up
};

export const other = (player) => (player === "red" ? "blue" : "red");

export function moversOf(current) {
  return Array.isArray(current.movers) ? current.movers : null;
}

export function lastMoverOf(current) {
  const movers = moversOf(current);
  if (movers) return movers.length ? movers[movers.length - 1] : null;
  return state.lastMover;
}

export function isOver() {
  return state.table.outcome !== null && state.table.outcome !== undefined;
}

export function myTurn() {
  return Boolean(you) && !isOver() && state.table.to_move === you;
}
