// Dots and Boxes on 5x5 boxes (60 lines) for boardgame.io: the peer of Playtable's game in
// bench/peer.py. A move draws one free line; completing a box scores it and moves again.
const { INVALID_MOVE } = require('boardgame.io/core');

const ROWS = 5;
const COLS = 5;
// Lines 0..29 are horizontal (row r from 0 to ROWS, column c), 30..59 vertical (row r, dot c).
const HORIZONTAL = (ROWS + 1) * COLS;
const LINES = HORIZONTAL + ROWS * (COLS + 1);

function sides(row, col) {
  const top = row * COLS + col;
  const left = HORIZONTAL + row * (COLS + 1) + col;
  return [top, top + COLS, left, left + 1];
}

const BOXES_OF_LINE = Array.from({ length: LINES }, () => []);
for (let row = 0; row < ROWS; row++) {
  for (let col = 0; col < COLS; col++) {
    for (const line of sides(row, col)) BOXES_OF_LINE[line].push(row * COLS + col);
  }
}

const DotsAndBoxes = {
  name: 'dots',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({
    lines: Array(LINES).fill(false),
    boxes: Array(ROWS * COLS).fill(null),
    score: [0, 0],
  }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    draw: ({ G, ctx, events }, line) => {
      if (!Number.isInteger(line) || line < 0 || line >= LINES || G.lines[line]) {
        return INVALID_MOVE;
      }
      G.lines[line] = true;
      let claimed = 0;
      for (const box of BOXES_OF_LINE[line]) {
        const [row, col] = [Math.floor(box / COLS), box % COLS];
        if (sides(row, col).every((l) => G.lines[l])) {
          G.boxes[box] = ctx.currentPlayer;
          claimed++;
        }
      }
      G.score[Number(ctx.currentPlayer)] += claimed;
      if (claimed) events.endTurn({ next: ctx.currentPlayer });
      else events.endTurn();
    },
  },
  endIf: ({ G }) => {
    if (!G.lines.every(Boolean)) return undefined;
    const [a, b] = G.score;
    return a === b ? { draw: true } : { winner: a > b ? '0' : '1' };
  },
};

module.exports = { DotsAndBoxes, LINES };
