// Stepping through a game on the board: buttons, the ← → Home End keys and the move list.
//
// The page keeps its live table; while the replay shows an earlier ply, `shown(table)` gives
// the board a table of that position (read from GET /t/{id}/position.json?ply=n, the same
// replay of the record as the pictures), and the board takes no moves. A move arriving
// meanwhile is shown as a notice with one button back to the live position.

import { focusBoard } from "./board.js";
import { formatNumber, t } from "./i18n.js";
import { claimedBy, moveWords } from "./move_words.js";
import { inProjectorView } from "./projector.js";

const COORDS_KEY = "playtable.coordinates";

function button(kind, label, text) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = `button button--small replay__${kind}`;
  node.dataset.replay = kind;
  node.setAttribute("aria-label", label);
  node.title = label;
  node.textContent = text;
  return node;
}

/** Whether a key press belongs to a text field or a control with arrow keys of its own. */
function ownsKeys(target) {
  if (!(target instanceof Element)) return false;
  return Boolean(target.closest("input, textarea, select, [contenteditable], dialog"));
}

export class Replay {
  /**
   * `root`: an empty element for the controls; `list`: the move list (<ol>) whose items
   * become buttons; `table()`: the live table; `onChange()`: redraw the page; `positionUrl`
   * (ply) -> the address of a position's JSON; `game`: "dots" or "swaptimum".
   */
  constructor({
    root,
    list,
    table,
    onChange,
    positionUrl,
    game,
    keys = true,
    pictures = null,
    liveText = "replay_live",
    overText = "replay_final",
    board = null,
    said = null,
  }) {
    // the board the focus goes back to from "Back to the game" or, once the game is over,
    // "Back to the final position" (which then hides itself)
    this.board = board;
    // what a step the viewer takes is announced with (else the status line): read once
    // per step, never on a redraw that a move or a loaded value makes; null: not yet (the
    // position is on its way), asked again at the next redraw
    this.said = said;
    this.stepped = false;
    // the key of the one button back to the live position; null: none (nothing is live);
    // `overText` once the game is over, when that position is its final one, not a game
    this.liveText = liveText;
    this.overText = overText;
    this.root = root;
    this.list = list;
    this.table = table;
    this.onChange = onChange;
    this.positionUrl = positionUrl;
    // the server's words when it refused a position (too many reads, busy): shown until
    // the position it asks again for arrives
    this.refused = null;
    // the ply whose position could not be read (offline, an error): its step is said
    // without it
    this.failed = null;
    this.game = game;
    this.pictures = pictures; // {png: ply -> url, gif: url} or null
    this.ply = null; // null: live; else the ply shown
    this.cache = new Map(); // "ply:moves" -> position
    this.seenPly = table().ply; // the live ply when the replay began (for "new move")
    // The list shows the move shown: scrolled to it at each step (`reveal`), and again when
    // the list is drawn anew while an earlier position is shown (`follow`), until the viewer
    // scrolls the list themselves (a scroll that is not the one made here: `scrolledTop`).
    // Where nothing is live (the analysis board: its last position is a step like the
    // others), the list follows the move shown from the start: it opened at the first
    // moves while the board showed the last.
    this.reveal = false;
    this.follow = !liveText;
    this.scrolledTop = null;
    this.coordinates = localStorage.getItem(COORDS_KEY) === "1";
    this.build();
    if (keys) document.addEventListener("keydown", (event) => this.keydown(event));
    // An address may name a position (#ply=12: a moment of the game shared as a link), and
    // the address follows the steps, so a link copied from the bar opens where it was.
    this.linked = keys;
    if (keys) {
      window.addEventListener("hashchange", () => this.goToHash());
      setTimeout(() => this.goToHash(), 0);
    }
    list?.addEventListener(
      "scroll",
      () => {
        if (this.scrolledTop === null || Math.abs(list.scrollTop - this.scrolledTop) > 1) {
          this.follow = false;
        }
      },
      { passive: true },
    );
    list?.addEventListener("click", (event) => {
      const target = event.target.closest("[data-replay-ply]");
      if (!target) return;
      this.go(Number(target.dataset.replayPly));
      revealBoard();
    });
  }

  build() {
    const bar = document.createElement("div");
    bar.className = "replay__bar";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", t("replay_label"));
    const keys = { start: "Home", back: "ArrowLeft", forward: "ArrowRight", end: "End" };
    bar.append(
      button("start", t("replay_start"), "«"),
      button("back", t("replay_back"), "‹"),
      button("forward", t("replay_forward"), "›"),
      button("end", t("replay_end"), "»"),
    );
    for (const node of bar.children)
      node.setAttribute("aria-keyshortcuts", keys[node.dataset.replay]);
    const status = document.createElement("p");
    status.className = "replay__status";
    status.id = "replay-status";
    // not a live region: it changes with every move played, which the page announces
    // itself; a step the viewer takes is read from #replay-said
    const said = document.createElement("p");
    said.className = "visually-hidden";
    said.id = "replay-said";
    said.setAttribute("aria-live", "polite");
    const live = document.createElement("div");
    live.className = "replay__live";
    live.id = "replay-live";
    live.hidden = true;
    const news = document.createElement("span");
    news.className = "replay__news";
    news.id = "replay-news";
    const back = button("live", "", this.liveText ? t(this.backText()) : "");
    back.classList.add("button--primary");
    back.removeAttribute("aria-label");
    back.removeAttribute("title");
    live.append(news, " ", back);
    const extras = document.createElement("div");
    extras.className = "replay__extras";
    if (this.game === "dots") {
      const label = document.createElement("label");
      label.className = "replay__coords";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = "replay-coordinates";
      box.checked = this.coordinates;
      box.addEventListener("change", () => {
        this.coordinates = box.checked;
        localStorage.setItem(COORDS_KEY, box.checked ? "1" : "0");
        this.onChange();
      });
      label.append(box, " ", t("coordinates"));
      extras.append(label);
    }
    if (this.pictures) {
      const png = document.createElement("a");
      png.id = "replay-png";
      png.textContent = t("picture_png");
      const gif = document.createElement("a");
      gif.id = "replay-gif";
      gif.textContent = t("picture_gif");
      gif.href = this.pictures.gif;
      gif.setAttribute("download", "");
      extras.append(png, gif);
    }
    const help = document.createElement("p");
    help.className = "replay__help";
    help.textContent = t("replay_help");
    this.root.replaceChildren(bar, status, said, live, extras, help);
    this.root.hidden = false;
    this.root.addEventListener("click", (event) => {
      const target = event.target.closest("[data-replay]");
      // a button with nowhere to go is aria-disabled, not disabled: it keeps the focus
      if (!target || target.getAttribute("aria-disabled") === "true") return;
      const kind = target.dataset.replay;
      const total = this.table().ply;
      const at = this.at();
      const next = {
        start: 0,
        back: at - 1,
        forward: at + 1,
        end: total,
        live: total,
      }[kind];
      const focused = document.activeElement === target;
      this.go(next);
      // "Back to the game" (the final position) hid itself: the keyboard player lands on
      // the game's board
      if (kind === "live" && focused && this.board) focusBoard(this.board);
    });
  }

  /** The key of the button back to the live position: the game while it is played, its
   * final position once it is over. */
  backText() {
    const outcome = this.table().outcome;
    return outcome !== null && outcome !== undefined ? this.overText : this.liveText;
  }

  /** The ply on the board (the live one when not replaying). */
  at() {
    return this.ply === null ? this.table().ply : this.ply;
  }

  isLive() {
    return this.ply === null;
  }

  /** Options for the board's render: coordinates, and whether it may take moves. */
  boardOptions(interactive) {
    return { interactive: interactive && this.isLive(), coordinates: this.coordinates };
  }

  go(ply) {
    const total = this.table().ply;
    if (!Number.isInteger(ply)) return;
    const target = Math.max(0, Math.min(total, ply));
    if (target === total) {
      this.ply = null;
      this.seenPly = total;
    } else {
      if (this.ply === null) this.seenPly = total;
      this.ply = target;
      this.load(target);
    }
    this.stepped = true;
    this.reveal = true;
    this.follow = true;
    this.remember(target === total ? null : target);
    this.onChange();
  }

  /** The position the address names (#ply=n), if any. */
  goToHash() {
    const match = /^#ply=(\d{1,5})$/.exec(window.location.hash);
    if (match && Number(match[1]) !== this.at()) this.go(Number(match[1]));
  }

  /** Put the shown position in the address (none for the live one), without a history
   * entry per step. */
  remember(ply) {
    if (!this.linked) return;
    const bare = window.location.pathname + window.location.search;
    const wanted = ply === null ? bare : `${bare}#ply=${ply}`;
    if (wanted !== bare + window.location.hash) window.history.replaceState(null, "", wanted);
  }

  key(ply, table) {
    return `${ply}:${table.moves.slice(0, ply).join(" ")}`;
  }

  async load(ply) {
    const table = this.table();
    const key = this.key(ply, table);
    if (this.cache.has(key)) return;
    try {
      const response = await fetch(this.positionUrl(ply), {
        headers: { Accept: "application/json" },
      });
      if (response.status === 429 || response.status === 503) {
        // too many reads from here, or the server busy drawing: say so (its words, in the
        // page's language) and ask again when it says, if the position is still wanted
        const body = await response.json().catch(() => null);
        this.refused = body && typeof body.error === "string" ? body.error : null;
        const after = Number(response.headers.get("Retry-After")) || 1;
        const seconds = Math.min(30, Math.max(1, after));
        setTimeout(() => {
          if (this.ply === ply) this.load(ply);
        }, seconds * 1000);
        if (this.ply === ply) this.onChange();
        return;
      }
      if (!response.ok) {
        this.lost(ply);
        return;
      }
      const position = await response.json();
      this.refused = null;
      this.failed = null;
      this.cache.set(`${position.ply}:${position.moves.join(" ")}`, position);
      if (this.ply === ply) this.onChange();
    } catch {
      // offline: the board keeps what it shows
      this.lost(ply);
    }
  }

  lost(ply) {
    this.failed = ply;
    if (this.ply === ply) this.onChange();
  }

  /** The replayed position shown (as position.json has it), or null: live, or not read. */
  position() {
    if (this.ply === null) return null;
    return this.cache.get(this.key(this.ply, this.table())) || null;
  }

  /** The table the board should draw: the live one, or the position being replayed. */
  shown(table) {
    if (this.ply !== null && this.ply >= table.ply) {
      // a take-back shortened the game below the shown ply: back to live
      this.ply = null;
    }
    if (this.ply === null) {
      this.last = table;
      return table;
    }
    const position = this.cache.get(this.key(this.ply, table));
    if (!position) return this.last || table; // on its way: keep the board as it was
    this.last = {
      ...table,
      ply: position.ply,
      moves: position.moves,
      movers: position.movers,
      view: position.view,
      to_move: position.view.to_move,
      outcome: null,
      past: true,
    };
    return this.last;
  }

  /** After every redraw: the status line, the notice of new moves, the move list. */
  update() {
    const table = this.table();
    const total = table.ply;
    const at = this.at();
    this.root.dataset.ply = String(at);
    this.root.dataset.live = this.isLive() ? "true" : "false";
    const status = this.root.querySelector("#replay-status");
    const where = at === 0 ? t("replay_at_start", { total }) : t("replay_at", { ply: at, total });
    const waiting = !this.isLive() && this.refused && !this.cache.has(this.key(at, table));
    const parts = this.isLive() ? [where] : [where, t("replay_past")];
    status.textContent = (waiting ? [...parts, this.refused] : parts).join(" ");
    // aria-disabled rather than disabled: a disabled button drops the focus to <body>
    for (const kind of ["start", "back"]) {
      const node = this.root.querySelector(`[data-replay="${kind}"]`);
      node.setAttribute("aria-disabled", String(at === 0));
    }
    for (const kind of ["forward", "end"]) {
      const node = this.root.querySelector(`[data-replay="${kind}"]`);
      node.setAttribute("aria-disabled", String(at === total));
    }
    const live = this.root.querySelector("#replay-live");
    const arrived = !this.isLive() && total > this.seenPly;
    live.hidden = this.isLive() || !this.liveText;
    if (this.liveText) {
      // the game may end while an earlier position is shown: the button names what it is now
      const back = this.root.querySelector('[data-replay="live"]');
      const label = t(this.backText());
      if (back.textContent !== label) back.textContent = label;
    }
    this.root.querySelector("#replay-news").textContent = arrived
      ? t("replay_new_move", { move: table.moves[total - 1] })
      : "";
    live.classList.toggle("has-news", arrived);
    const png = this.root.querySelector("#replay-png");
    if (png && this.pictures) png.href = this.pictures.png(at);
    this.decorate(at);
    if (this.stepped) {
      const text = this.said ? this.said() : status.textContent;
      // a position that does not come (refused, offline) is said without it
      if (text !== null || waiting || this.failed === at) {
        this.stepped = false;
        this.say(text === null ? status.textContent : text);
      }
    }
  }

  /** Read `text` once (the region is emptied first, so the same words again are read). */
  say(text) {
    const region = this.root.querySelector("#replay-said");
    region.textContent = "";
    clearTimeout(this.sayTimer);
    this.saying = text;
    this.sayTimer = setTimeout(() => {
      region.textContent = this.saying;
      this.saying = null;
    }, 50);
  }

  /** Add `text` to what the step said (an answer that comes later, as the best moves): the
   * region keeps the step's words and a screen reader reads the addition after them, where
   * replacing them cut them off. Nothing while the step is not said yet (its words, made
   * then, hold it). */
  add(text) {
    if (!text || this.stepped) return;
    if (this.saying) {
      this.saying = `${this.saying} ${text}`;
      return;
    }
    const part = document.createElement("span");
    part.append(" ", text);
    this.root.querySelector("#replay-said").append(part);
  }

  /** Make each move of the list a button that shows the position after it. The button holds
   * the notation (for the eye) and, where the list has it, the move in words, which is then
   * the button's name for a screen reader. */
  decorate(at) {
    if (!this.list) return;
    Array.from(this.list.children).forEach((item, index) => {
      let jump = item.querySelector(".move-jump");
      if (!jump) {
        const text = item.querySelector(".move-text");
        if (!text) return;
        jump = document.createElement("button");
        jump.type = "button";
        jump.className = "move-jump";
        const words = text.nextElementSibling;
        text.replaceWith(jump);
        jump.append(text);
        if (words && words.classList.contains("visually-hidden")) jump.append(words);
      }
      jump.dataset.replayPly = String(index + 1);
      if (index + 1 === at) jump.setAttribute("aria-current", "step");
      else jump.removeAttribute("aria-current");
      item.classList.toggle("is-shown", index + 1 === at && !this.isLive());
    });
    if (this.reveal || (this.follow && (!this.isLive() || !this.liveText))) {
      this.reveal = false;
      this.scrollToShown(at);
    }
    // the list drawn again under the keyboard (see `replaceMoves`): the same move's button
    // takes the focus back, unless it went elsewhere meanwhile
    const ply = this.list.dataset.refocus;
    delete this.list.dataset.refocus;
    const now = document.activeElement;
    if (ply && (now === null || now === document.body)) {
      const jump = this.list.querySelector(`.move-jump[data-replay-ply="${ply}"]`);
      if (jump) jump.focus({ preventScroll: true });
    }
  }

  /** Scroll the move list, not the page (`scrollIntoView` would move the page too, a phone's
   * whole screen), so that the move of ply `at` is in its visible part; the start: its top. */
  scrollToShown(at) {
    const list = this.list;
    if (!list.clientHeight) return; // not drawn
    const jump = at > 0 ? list.querySelector(`.move-jump[data-replay-ply="${at}"]`) : null;
    if (at === 0) {
      list.scrollTop = 0;
    } else if (jump) {
      const item = jump.closest("li") || jump;
      const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top;
      const above = top - list.clientTop;
      const below = above + item.offsetHeight - list.clientHeight;
      if (above < 0) list.scrollTop += above;
      else if (below > 0) list.scrollTop += below;
    }
    this.scrolledTop = list.scrollTop;
  }

  keydown(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (ownsKeys(event.target)) return;
    // the projector view hides the replay: a key pressed at the hall's computer left the
    // room's screen on an earlier position as the game went on, with no way back shown
    if (inProjectorView()) return;
    const steps = { ArrowLeft: -1, ArrowRight: 1 };
    const at = this.at();
    let next = null;
    if (event.key in steps) next = at + steps[event.key];
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = this.table().ply;
    else return;
    event.preventDefault();
    this.go(next);
  }
}

// A move chosen in the list changes the board, which may be a screen above the list (a phone):
// it is brought into view, unless the whole of it is already (smoothly, unless the viewer
// asked for less motion).
function revealBoard() {
  const board = document.getElementById("board");
  if (!board) return;
  const box = board.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  board.scrollIntoView({ block: "nearest", behavior: reduce ? "auto" : "smooth" });
}

/** The replay of a table page: the controls in #replay, the moves of #move-list. */
/** Put `items` in the move list `list` in place of the ones it holds. The list is drawn
 * again on every change (a poll's answer, a presence, an offer), which took away the move
 * button that had the keyboard focus and dropped it to <body>: a keyboard or screen-reader
 * user lost their place every second while an analysis came in. The button is made again
 * by `Replay.decorate`, which gives it the focus back. */
export function replaceMoves(list, items) {
  const focused = document.activeElement;
  const ply = focused && list.contains(focused) ? focused.dataset.replayPly : undefined;
  list.replaceChildren(...items);
  if (ply) list.dataset.refocus = ply;
}

/** `replaceMoves` for the items from `keep` on: those before it stay as they are (the
 * table page's list at a new move), so does the focus on one of them. */
export function replaceMovesFrom(list, keep, items) {
  const gone = Array.from(list.children).slice(keep);
  if (!gone.length) {
    list.append(...items);
    return;
  }
  const focused = document.activeElement;
  const inGone = focused && gone.some((item) => item.contains(focused));
  const ply = inGone ? focused.dataset.replayPly : undefined;
  for (const item of gone) item.remove();
  list.append(...items);
  if (ply) list.dataset.refocus = ply;
}

/** The words of the step shown on a table page: where it is, the move that led to it and who
 * played it, and in Dots and Boxes the score; null while its position is on its way. */
function stepWords(replay, game) {
  const live = replay.table();
  const at = replay.at();
  if (at === 0) return t("replay_at_start", { total: live.ply });
  const shown = replay.isLive() ? live : replay.position();
  if (!shown) return null;
  const parts = [t("replay_at", { ply: at, total: live.ply })];
  const mover = Array.isArray(shown.movers) ? shown.movers[at - 1] : null;
  const move = shown.moves[at - 1];
  if (mover && move) {
    parts.push(moveWords(game, mover, move, claimedBy({ game, ...shown }, move)));
  }
  const score = game === "dots" && shown.view && shown.view.score;
  if (score) {
    const red = formatNumber(score.red);
    const blue = formatNumber(score.blue);
    parts.push(t("step_score", { red, blue }));
  }
  return parts.join(" ");
}

export function replayFor(tableId, game, table, onChange) {
  const id = encodeURIComponent(tableId);
  const replay = new Replay({
    root: document.getElementById("replay"),
    list: document.getElementById("move-list"),
    table,
    onChange,
    game,
    positionUrl: (ply) => `/t/${id}/position.json?ply=${ply}`,
    pictures: { png: (ply) => `/t/${id}.png?ply=${ply}`, gif: `/t/${id}.gif` },
    board: document.getElementById("board"),
    said: () => stepWords(replay, game),
  });
  return replay;
}
