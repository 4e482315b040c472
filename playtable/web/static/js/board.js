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

/**
 * Make the children of `root` (in the page) what `fresh` (just drawn, outside the page) are,
 * keeping every node that is still there: its attributes and text brought up to date, the
 * rest added or removed. A board drawn anew at each move made the browser style and lay out
 * thousands of new nodes (a 12x12 board on a throttled phone: most of a move's 150 ms); a
 * move changes a handful. Keeping the nodes also keeps the focus and the hover where they are.
 *
 * Children are matched in order, except those with a `data-key` (the targets) or a
 * `data-square` (the checkers), which are matched by it, so a target gone from the middle of
 * a layer, or a checker come, does not shift all those after it.
 */
export function morph(root, fresh) {
  const freshKeys = new Set();
  for (const node of fresh) {
    const key = keyOf(node);
    if (key) freshKeys.add(key);
  }
  const byKey = new Map();
  for (let node = root.firstChild; node; node = node.nextSibling) {
    const key = keyOf(node);
    if (key) byKey.set(key, node);
  }
  let live = root.firstChild;
  for (const node of fresh) {
    // a keyed node that is gone: removed where it stands rather than moved past
    while (live && keyOf(live) && !freshKeys.has(keyOf(live))) {
      const next = live.nextSibling;
      live.remove();
      live = next;
    }
    const key = keyOf(node);
    if (key) {
      const match = byKey.get(key);
      if (match && sameKind(match, node)) {
        byKey.delete(key);
        if (match === live) live = live.nextSibling;
        else root.insertBefore(match, live);
        update(match, node);
      } else {
        root.insertBefore(node, live);
      }
    } else if (live && !keyOf(live)) {
      const next = live.nextSibling;
      if (sameKind(live, node)) update(live, node);
      else live.replaceWith(node); // a box claimed: its polygon becomes a group
      live = next;
    } else {
      root.insertBefore(node, live);
    }
  }
  while (live) {
    const next = live.nextSibling;
    live.remove();
    live = next;
  }
}

function keyOf(node) {
  if (node.nodeType !== 1) return null;
  const key = node.getAttribute("data-key");
  if (key !== null) return key;
  const square = node.getAttribute("data-square"); // a Swaptimum checker, on its square
  return square === null ? null : `square ${square}`;
}

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.namespaceURI === b.namespaceURI && a.nodeName === b.nodeName;
}

function update(live, fresh) {
  if (live.nodeType !== 1) {
    if (live.nodeValue !== fresh.nodeValue) live.nodeValue = fresh.nodeValue;
    return;
  }
  const attributes = fresh.attributes;
  for (let i = 0; i < attributes.length; i += 1) {
    const { name, value } = attributes[i];
    if (live.getAttribute(name) !== value) live.setAttribute(name, value);
  }
  // the live node now has every attribute of the fresh one: if it has more, some go
  const had = live.attributes;
  if (had.length > attributes.length) {
    for (let j = had.length - 1; j >= 0; j -= 1) {
      if (!fresh.hasAttribute(had[j].name)) live.removeAttribute(had[j].name);
    }
  }
  if (live.firstChild || fresh.firstChild) morph(live, Array.from(fresh.childNodes));
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
 * The target after (`step` 1) or before (-1) `from` in reading order: the board's rows as
 * drawn, top to bottom, each left to right. Left and Right walk it, so that every target is
 * reached by one of them: the nearest in a direction alone could leave a line unreachable
 * (a line whose neighbours in its row are drawn, between four undrawn ones that each lead
 * on to the next in their own row).
 */
function nextInReadingOrder(from, targets, step) {
  const placed = targets.map((target) => ({ target, at: centre(target) }));
  // centres this close in height are one row (a few pixels: the hit areas of the lines on
  // the edge are cut, which moves their centres a little)
  const height = Math.min(...targets.map((target) => target.getBoundingClientRect().height));
  const tolerance = Math.max(1, height / 8);
  placed.sort((a, b) => a.at.y - b.at.y);
  let rowTop = -Infinity;
  let row = -1;
  for (const item of placed) {
    if (item.at.y - rowTop > tolerance) {
      rowTop = item.at.y;
      row += 1;
    }
    item.row = row;
  }
  placed.sort((a, b) => a.row - b.row || a.at.x - b.at.x);
  const index = placed.findIndex((item) => item.target === from);
  const next = placed[index + step];
  return index === -1 || !next ? null : next.target;
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
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      next = nextInReadingOrder(target, targets, event.key === "ArrowRight" ? 1 : -1);
    } else if (DIRECTIONS[event.key]) {
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
