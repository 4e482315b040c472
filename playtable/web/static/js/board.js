// Shared pieces of the SVG boards: element creation and keyboard navigation.
//
// Every clickable board element carries the class "target" and data-key (unique on the
// board); one that plays a move also carries data-move="<move text>".
// Keyboard users move a single focus between targets with the arrow keys (roving
// tabindex: exactly one target is in the tab order) and play with Enter or Space.

export const SVG_NS = "http://www.w3.org/2000/svg";

/** Create an SVG element with attributes, optionally appending it to `parent`. */
export function svgEl(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * The position in words for a screen reader (the SVG drawing is hidden from it, and its
 * targets are only the moves open now): a list, visually hidden, that follows the drawing
 * inside the board's group. Not focusable and not live: read when the player explores the
 * board, never with every target. Null when there is nothing to list.
 */
export function positionList(items) {
  if (!items.length) return null;
  const list = document.createElement("ul");
  list.className = "visually-hidden board-position";
  for (const text of items) {
    const item = document.createElement("li");
    item.textContent = text;
    list.append(item);
  }
  return list;
}

/** Round to two decimals: keeps the SVG source small and stable. */
export function r2(value) {
  return Math.round(value * 100) / 100;
}

/** Move the focus to a board: its target in the tab order, else its root (which then hands
 * the focus on to a target when the turn comes round). */
export function focusBoard(root) {
  const current = root.querySelector('.target[tabindex="0"]');
  (current || root).focus({ preventScroll: true });
}

const DIRECTIONS = {
  ArrowRight: [1, 0],
  ArrowLeft: [-1, 0],
  ArrowDown: [0, 1],
  ArrowUp: [0, -1],
};

function centre(node) {
  const box = node.getBoundingClientRect();
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}

/**
 * The target nearest to `from` in the arrow's direction: distance along the direction,
 * plus a penalty for drifting sideways, so moving right from a line picks the next line
 * in the same row before one in the next row.
 */
function nextInDirection(from, targets, [dx, dy]) {
  const start = centre(from);
  let best = null;
  let bestScore = Infinity;
  for (const target of targets) {
    if (target === from) continue;
    const c = centre(target);
    const along = (c.x - start.x) * dx + (c.y - start.y) * dy;
    if (along <= 1) continue;
    const across = Math.abs((c.x - start.x) * dy - (c.y - start.y) * dx);
    if (across > along * 2.5) continue;
    const score = along + across * 2;
    if (score < bestScore) {
      bestScore = score;
      best = target;
    }
  }
  return best;
}

/**
 * Keyboard and pointer handling for one board root. The board calls `refresh()` after
 * every redraw; focus stays on the same move if it is still there, else on the target
 * nearest to where it was.
 */
export class BoardControls {
  constructor(root, { onActivate, onEscape }) {
    this.root = root;
    this.onActivate = onActivate;
    this.onEscape = onEscape;
    this.current = null; // data-key of the target in the tab order
    this.lastPoint = null; // where the focused target was, for after a redraw
    // The root holds the focus while there is nothing to play (the opponent's turn), so a
    // keyboard player lands back on the board when the turn comes round.
    root.setAttribute("tabindex", "-1");

    root.addEventListener("click", (event) => {
      const target = event.target.closest(".target[data-key]");
      if (target && root.contains(target)) {
        event.preventDefault();
        this.current = target.dataset.key;
        this.onActivate(target.dataset.move ?? null, target, false);
      }
    });
    root.addEventListener("keydown", (event) => this.keydown(event));
    root.addEventListener("focusin", (event) => {
      const target = event.target.closest(".target");
      if (target) this.makeCurrent(target);
    });
  }

  targets() {
    return Array.from(this.root.querySelectorAll(".target[data-key]"));
  }

  makeCurrent(target) {
    for (const other of this.targets()) other.setAttribute("tabindex", "-1");
    target.setAttribute("tabindex", "0");
    this.current = target.dataset.key;
    this.lastPoint = centre(target);
  }

  keydown(event) {
    if (event.key === "Escape") {
      if (this.onEscape && this.onEscape()) event.preventDefault();
      return;
    }
    const target = event.target.closest(".target[data-key]");
    if (!target) {
      this.rootKeydown(event);
      return;
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.onActivate(target.dataset.move ?? null, target, true);
      return;
    }
    const targets = this.targets();
    let next = null;
    if (DIRECTIONS[event.key]) {
      next = nextInDirection(target, targets, DIRECTIONS[event.key]);
    } else if (event.key === "Home") {
      next = targets[0];
    } else if (event.key === "End") {
      next = targets[targets.length - 1];
    } else {
      return;
    }
    event.preventDefault();
    if (next) {
      this.makeCurrent(next);
      next.focus();
    }
  }

  /** A key pressed on the root itself (it holds the focus while there is nothing to play):
   * the board's keys stay on the board. Passed on, they would reach the page's replay keys
   * and step the game back unseen, leaving a past position on the board when the turn
   * comes. An arrow goes to the target in the tab order, if there is one. */
  rootKeydown(event) {
    if (event.target !== this.root || event.altKey || event.ctrlKey || event.metaKey) return;
    if (!DIRECTIONS[event.key] && event.key !== "Home" && event.key !== "End") return;
    event.preventDefault();
    const current = this.root.querySelector('.target[tabindex="0"]');
    if (current) current.focus();
  }

  /** Put one target in the tab order after a redraw, keeping the focus if the board had it. */
  refresh({ hadFocus = false, prefer = null } = {}) {
    const targets = this.targets();
    if (targets.length === 0) {
      if (hadFocus) this.root.focus({ preventScroll: true });
      return;
    }
    let chosen =
      (prefer && targets.find((t) => t.dataset.key === prefer)) ||
      (this.current && targets.find((t) => t.dataset.key === this.current)) ||
      null;
    if (!chosen && this.lastPoint) {
      let bestDistance = Infinity;
      for (const target of targets) {
        const c = centre(target);
        const distance = Math.hypot(c.x - this.lastPoint.x, c.y - this.lastPoint.y);
        if (distance < bestDistance) {
          bestDistance = distance;
          chosen = target;
        }
      }
    }
    chosen = chosen || targets[0];
    for (const target of targets) target.setAttribute("tabindex", "-1");
    chosen.setAttribute("tabindex", "0");
    this.current = chosen.dataset.key;
    if (hadFocus) {
      chosen.focus({ preventScroll: true });
      this.lastPoint = centre(chosen);
    }
  }

  /** Whether keyboard focus is inside the board right now. */
  hasFocus() {
    return this.root.contains(document.activeElement);
  }
}
