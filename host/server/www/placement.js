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
//
// Figure spots on the ghost: once the ghost stands for one action, the
// page asks the server what that action would lead to (a "preview",
// docs/server.md).  When it is this seat's next decision (Carcassonne's
// deploy), its marks on the board are drawn over the ghost as spots, and
// its other marks (the figure kinds) as buttons in the bar; a spot chosen
// (and a figure, when several may go there) makes Confirm play the
// placement and then that deploy (hooks.follow); a click on the chosen
// spot again takes it back.  Confirm without a spot plays the placement
// alone.

import { sanitizeSvg } from './picture.js';

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
  // {bar, rotate, confirm, cancel, what, figures}; hooks: {choose(mark) —
  // narrow by a rotation for good, play(i), reset(), preview(i) — ask what
  // action i leads to, follow(text) — play text once the decision after
  // the one being confirmed comes}.
  constructor(viewport, ui, hooks) {
    this.viewport = viewport;
    this.ui = ui;
    this.hooks = hooks;
    this.options = [];       // the marks of legal rotations, in order
    this.at = 0;             // the one shown
    this.box = null;         // the space's box
    this.spaceArt = null;    // the drawing of a piece the space alone places
    this.pending = null;     // an action index waiting for Confirm
    this.look = null;        // the ghost's preview: {index, text, reply, spots, figures, spot, figure, cand, deploy}
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

  // The server's answer to a preview: kept when it is still the ghost's.
  previewed(msg) {
    const look = this.look;
    if (!look || look.reply || msg.action !== look.text) return;
    look.reply = msg;
    const actions = msg.actions || [];
    const svg = msg.next === 'you' && msg.svg ? sanitizeSvg(msg.svg) : null;
    const marks = svg ? [...svg.querySelectorAll('[data-cas-choices]')].map((el) => ({
      el,
      step: Number.parseInt(el.getAttribute('data-cas-step'), 10) || 1,
      choices: el.getAttribute('data-cas-choices').trim().split(/\s+/).map(Number)
        .filter((i) => Number.isInteger(i) && i >= 0 && i < actions.length),
      label: el.getAttribute('data-cas-label') || '',
      board: !!el.closest('g.marks, g.board'),
    })).filter((m) => m.choices.length) : [];
    const first = Math.min(...marks.filter((m) => m.board).map((m) => m.step));
    look.spots = this.onGhost(marks.filter((m) => m.board && m.step === first && !m.el.hasAttribute('data-cas-box')));
    look.figures = marks.filter((m) => !m.board);
    this.draw();
  }

  // Of the marks, those that lie on the ghost (a figure's spots on the
  // tile, not a further move elsewhere on the board): measured in the
  // board's layer, where the ghost is drawn.
  onGhost(marks) {
    const layer = this.viewport.overlay();
    const ghost = layer?.querySelector(':scope > .cas-ghost');
    if (!ghost || !marks.length) return [];
    const g = ghost.getBBox();
    const slack = Math.min(g.width, g.height) * 0.1;
    const probe = document.createElementNS(SVG_NS, 'g');
    layer.append(probe);
    const on = marks.filter((m) => {
      const e = probe.appendChild(m.el.cloneNode(true));
      const b = e.getBBox();
      const x = b.x + b.width / 2, y = b.y + b.height / 2;
      return x >= g.x - slack && x <= g.x + g.width + slack && y >= g.y - slack && y <= g.y + g.height + slack;
    });
    probe.remove();
    return on;
  }

  // A spot on the ghost clicked: the figure goes there (a click on the
  // chosen one takes it back); the figure kind, if several may go there,
  // is picked in the bar.
  pickSpot(spot, byKeyboard) {
    const look = this.look;
    if (!look?.spots.includes(spot)) return;
    if (look.spot === spot) {
      look.spot = null; look.figure = null; look.cand = null; look.deploy = null;
      this.draw();
      return;
    }
    look.spot = spot;
    look.figure = null;
    look.cand = new Set(spot.choices);
    this.narrowed(byKeyboard);
  }

  pickFigure(figure, byKeyboard) {
    const look = this.look;
    if (!look?.spot) return;
    const next = new Set(figure.choices.filter((i) => look.spot.choices.includes(i)));
    if (!next.size) return;
    look.cand = next;
    look.figure = figure;
    this.narrowed(byKeyboard);
  }

  narrowed(byKeyboard) {
    const look = this.look;
    look.deploy = look.cand.size === 1 ? look.reply.actions[[...look.cand][0]] : null;
    if (look.deploy && quickPlay()) { this.confirm(); return; }
    this.draw();
    if (!byKeyboard) return;
    const next = look.deploy ? this.ui.confirm : this.ui.figures.querySelector('button');
    next?.focus();
  }

  // A click that leaves one action: play it now, or wait for Confirm.
  offer(i) {
    if (quickPlay()) { this.hooks.play(i); return; }
    this.pending = i;
    this.draw();
  }

  confirm() {
    const deploy = this.look?.deploy;
    if (deploy) this.hooks.follow(deploy);
    if (this.options.length) this.hooks.choose(this.options[this.at]);
    else if (this.pending !== null) this.hooks.play(this.pending);
  }

  clear() {
    this.options = [];
    this.pending = null;
    this.box = null;
    this.spaceArt = null;
    this.look = null;
    this.draw();
  }

  // The action the ghost stands for, when one: ask what it leads to.
  lookAt(index) {
    if (index === null || index === undefined || !this.actions?.[index]) { this.look = null; return; }
    if (this.look?.index === index && this.look.text === this.actions[index]) return;
    this.look = { index, text: this.actions[index], reply: null, spots: [], figures: [], spot: null,
      figure: null, cand: null, deploy: null };
    this.hooks.preview(index);
  }

  draw(actions, sel) {
    if (actions) this.actions = actions;
    if (sel) this.sel = sel;
    const layer = this.viewport.overlay();
    // Drawn again (turned, its spots come): the focus stays where it was.
    const focused = layer?.getRootNode().activeElement;
    const oldSpots = [...(layer?.querySelectorAll(':scope > .cas-ghost-spots .cas-spot') || [])];
    const refocus = focused?.closest?.('.cas-ghost') ? '.cas-ghost' : oldSpots.indexOf(focused);
    layer?.querySelector(':scope > .cas-ghost')?.remove();
    layer?.querySelector(':scope > .cas-ghost-spots')?.remove();
    const { bar, rotate, confirm, what, figures } = this.ui;
    bar.hidden = !this.active;
    document.body.dataset.ghost = this.options.length ? String(this.at) : '';
    document.body.dataset.confirm = this.active ? 'true' : '';
    figures.replaceChildren();
    if (!this.active) { this.look = null; this.tellSpots(); return; }
    const mark = this.options[this.at];
    rotate.hidden = this.options.length < 2;
    rotate.textContent = `Rotate (${this.at + 1} of ${this.options.length})`;
    let words, drawn = false;
    if (mark) {
      // The action the ghost stands for, when the space and this rotation
      // leave one; else the rotation's own label.
      const one = mark.choices.filter((i) => this.sel?.cand.has(i));
      words = one.length === 1 && this.actions?.[one[0]] || mark.el.getAttribute('data-cas-label') || 'this rotation';
      const art = mark.el.querySelector('[data-cas-ghost]');
      if (layer && art && this.box) { layer.append(this.ghost(art, words, true)); drawn = true; }
      this.lookAt(drawn && one.length === 1 ? one[0] : null);
    } else {
      words = this.actions?.[this.pending] ?? '';
      if (layer && this.spaceArt && this.box) { layer.append(this.ghost(this.spaceArt, words, false)); drawn = true; }
      this.lookAt(drawn ? this.pending : null);
    }
    const look = this.look;
    if (look?.spots.length && layer) layer.append(this.spotLayer(look));
    if (look?.spot) {
      for (const f of look.figures.filter((q) => q.choices.some((i) => look.spot.choices.includes(i))))
        figures.append(this.figureButton(f));
    }
    if (look?.deploy) words = `${words}, then ${look.deploy}`;
    what.textContent = words;
    confirm.setAttribute('aria-label', `Confirm: ${words}`);
    this.tellSpots();
    const again = refocus === '.cas-ghost' ? layer?.querySelector(':scope > .cas-ghost')
      : refocus >= 0 ? layer?.querySelectorAll(':scope > .cas-ghost-spots .cas-spot')[refocus] : null;
    again?.focus();
  }

  // For the page's tests: how many spots the ghost shows, and the figure
  // chosen with the tile.
  tellSpots() {
    const look = this.look;
    document.body.dataset.spots = look?.reply ? String(look.spots.length) : '';
    document.body.dataset.deploy = look?.deploy || '';
  }

  // The spots of the ghost's preview, over the ghost: each a button.
  spotLayer(look) {
    const g = document.createElementNS(SVG_NS, 'g');
    g.setAttribute('class', 'cas-ghost-spots');
    for (const spot of look.spots) {
      const e = spot.el.cloneNode(true);
      e.removeAttribute('data-cas-choices');
      e.removeAttribute('data-cas-step');
      e.classList.add('cas-spot');
      e.classList.toggle('cas-chosen', look.spot === spot);
      e.setAttribute('role', 'button');
      e.setAttribute('tabindex', '0');
      e.setAttribute('aria-pressed', String(look.spot === spot));
      const label = spot.label || 'a figure here';
      e.setAttribute('aria-label', `${label}, with the tile`);
      const t = document.createElementNS(SVG_NS, 'title');
      t.textContent = `${label}, with the tile: Confirm plays both`;
      e.prepend(t);
      e.casSpot = spot;
      g.append(e);
    }
    return g;
  }

  // A figure kind the chosen spot may take, as a button of the bar.
  figureButton(f) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'figure';
    b.textContent = f.label || 'figure';
    b.setAttribute('aria-pressed', String(this.look.figure === f));
    b.addEventListener('click', (e) => this.pickFigure(f, e.detail === 0));
    return b;
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
