// The swap of a Swaptimum placement that forms a crosscut, chosen one checker at a time:
// first any checker that takes part in a legal swap, then its partner, then the page asks
// for a confirmation. No step plays anything by itself, and each can be taken back.

/** The placement and the swapped pair of a move text: "d4:c3-d4" -> ["d4", ["c3", "d4"]]. */
export function parseMove(text) {
  const [placement, swap] = text.split(":");
  return [placement, swap ? swap.split("-") : null];
}

export class SwapChoice {
  /** `square`: the provisional placement; `moves`: its legal moves ("d4:c3-d4", ...). */
  constructor(square, moves) {
    this.square = square;
    this.pairs = moves
      .map((move) => [move, parseMove(move)[1]])
      .filter(([, pair]) => pair !== null);
    this.picked = [];
  }

  /** Every square that takes part in some legal swap, in the order the moves list them. */
  allSquares() {
    const squares = [];
    for (const [, pair] of this.pairs) {
      for (const name of pair) if (!squares.includes(name)) squares.push(name);
    }
    return squares;
  }

  /** The squares a legal swap pairs with `name`. */
  partners(name) {
    return this.pairs
      .filter(([, pair]) => pair.includes(name))
      .map(([, pair]) => (pair[0] === name ? pair[1] : pair[0]));
  }

  /** The squares that can be chosen (or chosen again to take them back) right now. */
  choosable() {
    if (this.picked.length === 0) return this.allSquares();
    if (this.picked.length === 1) return [this.picked[0], ...this.partners(this.picked[0])];
    return [...this.picked];
  }

  /** Choose `name`, or take it back if it was chosen. A first checker with only one
   * possible partner completes the pair at once (the move still waits for confirmation). */
  pick(name) {
    const at = this.picked.indexOf(name);
    if (at >= 0) {
      this.picked.splice(at, 1);
      return;
    }
    if (!this.choosable().includes(name)) return;
    this.picked.push(name);
    if (this.picked.length === 1) {
      const partners = this.partners(name);
      if (partners.length === 1) this.picked.push(partners[0]);
    }
  }

  /** Undo the last step; false if nothing was chosen. */
  back() {
    if (this.picked.length === 0) return false;
    this.picked.pop();
    return true;
  }

  /** The move of the chosen pair, once both checkers are chosen; else null. */
  move() {
    if (this.picked.length !== 2) return null;
    const found = this.pairs.find(
      ([, pair]) => pair.includes(this.picked[0]) && pair.includes(this.picked[1]),
    );
    return found ? found[0] : null;
  }

  /** The chosen pair in board order (as the notation writes it), or null. */
  pair() {
    const move = this.move();
    return move ? parseMove(move)[1] : null;
  }
}
