// placement.js — placing a tile as in JCloisterZone (docs/web-client.md,
// "Placing a tile"): a click on a space puts a ghost of the tile there in
// a legal rotation; a click on the ghost, the Rotate button or R turns it
// to the next legal rotation (only legal ones); Confirm (or Enter) plays
// it.  A decision a single click would end (a card picked, a lone spot)
// waits for Confirm too, unless the player chose "play on the last click".
//
// It reads the click-to-play marks (docs/abi.md "Click to play"): a space
// mark carries data-cas-box (its box in picture units), and each mark of
// the next step that turns the piece holds a drawing with data-cas-ghost
// (the size of one space in that drawing's units); a space whose click
// alone places a piece (an abbey) holds that drawing itself, hidden.  The ghost is drawn in
// the board's own layer (board.js), so zoom and pan move it too.

const SVG_NS = 'http://www.w3.org/2000/svg';
const QUICK_KEY = 'castellan.play-on-last-click';

export function quickPlay() {
  try { return localStorage.getItem(QUICK_KEY) === 'on'; } catch { return false; }
}

export function setQuickPlay(on) {
  try { localStorage.setItem(QUICK_KEY, on ? 'on' : 'off'); } catch { /* private mode */ }
}

export class Placement {
  // viewport: board.js's Viewport (its overlay layer); ui: the buttons
  // {bar, rotate, confirm, cancel, what}; hooks: {choose(mark) — narrow by
  // a rotation for good, play(i), reset()}.
  constructor(viewport, ui, hooks) {
    this.viewport = viewport;
    this.ui = ui;
    this.hooks = hooks;
    this.options = [];       // the marks of legal rotations, in order
    this.at = 0;             // the one shown
    this.box = null;         // the space's box
    this.spaceArt = null;    // the drawing of a piece the space alone places
    this.pending = null;     // an action index waiting for Confirm
    ui.rotate.addEventListener('click', () => this.rotate());
    ui.confirm.addEventListener('click', () => this.confirm());
    ui.cancel.addEventListener('click', () => hooks.reset());
  }

  get active() { return this.options.length > 0 || this.pending !== null; }

  isOption(mark) { return this.options.includes(mark); }

  // After every change of the selection: is a space chosen whose next
  // step turns a piece?  Then the ghost shows the current rotation.
  refresh(sel, step, actions) {
    const space = [...(sel?.picked || [])].reverse().find((m) => m.el.hasAttribute('data-cas-box'));
    const options = space ? sel.marks.filter((m) => m.step === step && m.el.classList.contains('cas-live') &&
      m.el.querySelector('[data-cas-ghost]')) : [];
    const same = options.length === this.options.length && options.every((m, i) => m === this.options[i]);
    if (!same) this.at = 0;
    this.options = options;
    this.box = space ? parseBox(space.el.getAttribute('data-cas-box')) : null;
    // A piece the space's click alone places (an abbey in its hole) is
    // drawn, hidden, in the space's own mark.
    this.spaceArt = space?.el.querySelector('[data-cas-ghost]') || null;
    if (!sel || sel.cand.size !== 1) this.pending = null;
    this.draw(actions, sel);
  }

  // A click on a rotation (the ghost's, or one in the tray) shows it.
  show(mark) {
    const i = this.options.indexOf(mark);
    if (i >= 0) { this.at = i; this.draw(); }
  }

  rotate() {
    if (this.options.length < 2) return;
    this.at = (this.at + 1) % this.options.length;
    this.draw();
  }

  // A click that leaves one action: play it now, or wait for Confirm.
  offer(i) {
    if (quickPlay()) { this.hooks.play(i); return; }
    this.pending = i;
    this.draw();
  }

  confirm() {
    if (this.options.length) this.hooks.choose(this.options[this.at]);
    else if (this.pending !== null) this.hooks.play(this.pending);
  }

  clear() {
    this.options = [];
    this.pending = null;
    this.box = null;
    this.spaceArt = null;
    this.draw();
  }

  draw(actions, sel) {
    if (actions) this.actions = actions;
    if (sel) this.sel = sel;
    const layer = this.viewport.overlay();
    layer?.querySelector(':scope > .cas-ghost')?.remove();
    const { bar, rotate, confirm, what } = this.ui;
    bar.hidden = !this.active;
    document.body.dataset.ghost = this.options.length ? String(this.at) : '';
    document.body.dataset.confirm = this.active ? 'true' : '';
    if (!this.active) return;
    const mark = this.options[this.at];
    rotate.hidden = this.options.length < 2;
    rotate.textContent = `Rotate (${this.at + 1} of ${this.options.length})`;
    let words;
    if (mark) {
      // The action the ghost stands for, when the space and this rotation
      // leave one; else the rotation's own label.
      const one = mark.choices.filter((i) => this.sel?.cand.has(i));
      words = one.length === 1 && this.actions?.[one[0]] || mark.el.getAttribute('data-cas-label') || 'this rotation';
      const art = mark.el.querySelector('[data-cas-ghost]');
      if (layer && art && this.box) layer.append(this.ghost(art, words, true));
    } else {
      words = this.actions?.[this.pending] ?? '';
      if (layer && this.spaceArt && this.box) layer.append(this.ghost(this.spaceArt, words, false));
    }
    what.textContent = words;
    confirm.setAttribute('aria-label', `Confirm: ${words}`);
  }

  // The tile as it would lie, in the board's layer: its drawing scaled
  // from one space of its own units to the space's box.  turns: a click
  // on it turns it (else it has one way to lie).
  ghost(art, words, turns) {
    const unit = Number(art.getAttribute('data-cas-ghost')) || 100;
    const g = document.createElementNS(SVG_NS, 'g');
    g.setAttribute('class', 'cas-ghost');
    g.setAttribute('role', 'button');
    g.setAttribute('tabindex', '0');
    g.setAttribute('aria-label', turns ? `${words}: click to turn, Enter to confirm` : `${words}: Enter to confirm`);
    const t = document.createElementNS(SVG_NS, 'title');
    t.textContent = turns ? `${words} — click to turn, Confirm to play` : `${words} — Confirm to play`;
    const k = this.box.w / unit;
    const inner = document.createElementNS(SVG_NS, 'g');
    inner.setAttribute('transform', `translate(${this.box.x} ${this.box.y}) scale(${k})`);
    for (const kid of art.childNodes) inner.append(kid.cloneNode(true));
    for (const m of inner.querySelectorAll('[data-cas-choices]')) m.removeAttribute('data-cas-choices');
    const frame = document.createElementNS(SVG_NS, 'rect');
    frame.setAttribute('class', 'cas-ghost-frame');
    frame.setAttribute('x', this.box.x);
    frame.setAttribute('y', this.box.y);
    frame.setAttribute('width', this.box.w);
    frame.setAttribute('height', this.box.h);
    g.append(t, inner, frame);
    return g;
  }
}

function parseBox(text) {
  const n = (text || '').trim().split(/[\s,]+/).map(Number);
  return n.length === 4 && n.every(Number.isFinite) ? { x: n[0], y: n[1], w: n[2], h: n[3] } : null;
}
