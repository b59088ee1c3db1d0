// board.js — the board's viewport (docs/web-client.md, "The board"): the
// plugin's picture shown through a camera the player moves.  It fits the
// board to the window on load and as the board grows, until the player
// zooms (wheel, pinch, buttons, + and - keys: around the pointer) or pans
// (drag); Fit brings that back, Last tile centres on the last tile.  It
// also keeps a layer of the client's own drawings over the picture
// (highlights of each player's last move, the placement ghost).
//
// The camera is the root <svg>'s viewBox, nothing else: the picture's
// elements may be replaced whole or patched in place (added, changed,
// removed) and the camera stays where the player left it.  A new root
// <svg> is adopted by attach(); a viewBox the picture itself changes is
// taken as its new extent.

const SVG_NS = 'http://www.w3.org/2000/svg';
const MIN_TARGET_PX = 40;       // a finger's target on a touch screen
const ZOOM_STEP = 1.25;

// Narrow or touch screens: the fitted board keeps every target >= 40 px.
const touchLike = () => matchMedia('(pointer: coarse), (max-width: 40rem)').matches;

export class Viewport {
  // host: the element the picture fills (its shadow root holds the svg);
  // onChange(viewport) is called after every camera move.
  constructor(host, root, onChange = () => {}) {
    this.host = host;
    this.root = root;
    this.onChange = onChange;
    this.svg = null;
    this.extent = null;         // the picture's own viewBox {x, y, w, h}
    this.cam = null;            // {cx, cy, scale}: centre (units), px per unit
    this.follow = true;         // fits every new picture until the player moves the view
    this.written = '';          // the viewBox we wrote last
    this.pointers = new Map();  // pointerId -> {x, y}
    this.dragged = false;
    this.observer = new MutationObserver((records) => this.onMutation(records));
    this.listen();
    new ResizeObserver(() => { if (this.cam) this.apply(); }).observe(host);
  }

  // Adopts the root svg now in the shadow root (a new picture, or the same
  // one patched).  `fresh` fits it again (a new game, a joined table).
  attach(fresh = false) {
    const svg = [...this.root.children].find((e) => e.localName === 'svg');
    if (!svg) { this.svg = null; return; }
    if (svg !== this.svg) {
      this.observer.disconnect();
      this.svg = svg;
      this.extent = parseBox(svg.getAttribute('viewBox'));
      svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
      this.observer.observe(svg, { attributes: true, attributeFilter: ['viewBox'] });
    }
    this.overlay();
    if (fresh || !this.cam || this.follow) this.fit();
    else this.apply();
  }

  onMutation(records) {
    for (const r of records) {
      const now = this.svg.getAttribute('viewBox');
      if (r.attributeName === 'viewBox' && now !== this.written) {
        this.extent = parseBox(now);
        this.apply();
      }
    }
  }

  // The client's own layer, last in the picture so it is drawn on top.
  overlay() {
    if (!this.svg) return null;
    let g = this.svg.querySelector(':scope > g.cas-overlay');
    if (!g) {
      g = document.createElementNS(SVG_NS, 'g');
      g.setAttribute('class', 'cas-overlay');
    }
    if (g !== this.svg.lastElementChild) this.svg.append(g);
    return g;
  }

  size() {
    const r = this.host.getBoundingClientRect();
    return { w: Math.max(1, r.width), h: Math.max(1, r.height) };
  }

  // The part of the picture worth fitting: the board and its marks when
  // the picture names them (class "board" / "marks"), else all of it.
  boardBox() {
    const parts = [...this.svg.querySelectorAll(':scope > g.board, :scope > g.marks')];
    let box = null;
    for (const p of parts) box = union(box, bbox(p));
    return box && box.w > 0 && box.h > 0 ? pad(box, 20) : this.extent;
  }

  // Smallest target of the picture's board, in units (or null).
  smallestTarget() {
    let least = null;
    for (const m of this.svg.querySelectorAll('g.marks [data-cas-choices]')) {
      const b = bbox(m);
      if (b && b.w > 0 && b.h > 0) least = Math.min(least ?? Infinity, b.w, b.h);
    }
    return least;
  }

  fit() {
    if (!this.svg || !this.extent) return;
    const box = this.boardBox();
    const { w, h } = this.size();
    // A small board is not blown up past half again the whole picture's
    // fit: the first tiles stay tile-sized.
    const whole = Math.min(w / this.extent.w, h / this.extent.h);
    let scale = Math.min(w / box.w, h / box.h, whole * 1.5);
    let cx = box.x + box.w / 2, cy = box.y + box.h / 2;
    const least = this.smallestTarget();
    if (touchLike() && least && scale * least < MIN_TARGET_PX) {
      // Too small to touch: zoom in to the targets, centred on the last tile.
      scale = MIN_TARGET_PX / least;
      const last = this.lastBox();
      if (last) { cx = last.x + last.w / 2; cy = last.y + last.h / 2; }
    }
    this.cam = { cx, cy, scale };
    this.follow = true;
    this.apply();
  }

  lastBox() {
    const last = this.svg?.querySelector('.last, [data-cas-role~="last"]');
    return last ? bbox(last) : null;
  }

  centreOnLast() {
    const b = this.lastBox();
    if (!b || !this.cam) return false;
    this.follow = false;
    this.cam.cx = b.x + b.w / 2;
    this.cam.cy = b.y + b.h / 2;
    this.apply();
    return true;
  }

  // Zooms by `factor` keeping the picture point under (px, py) (client
  // coordinates; default the middle) where it is.
  zoom(factor, px, py) {
    if (!this.cam) return;
    const r = this.host.getBoundingClientRect();
    const ox = (px ?? r.left + r.width / 2) - (r.left + r.width / 2);
    const oy = (py ?? r.top + r.height / 2) - (r.top + r.height / 2);
    this.follow = false;
    const before = this.cam.scale;
    const fitted = Math.min(r.width / this.extent.w, r.height / this.extent.h);
    const after = Math.min(Math.max(before * factor, fitted / 4), 8);
    this.cam.cx += ox / before - ox / after;
    this.cam.cy += oy / before - oy / after;
    this.cam.scale = after;
    this.apply();
  }

  pan(dxPx, dyPx) {
    if (!this.cam) return;
    this.follow = false;
    this.cam.cx -= dxPx / this.cam.scale;
    this.cam.cy -= dyPx / this.cam.scale;
    this.apply();
  }

  apply() {
    if (!this.svg || !this.cam) return;
    const { w, h } = this.size();
    const vw = w / this.cam.scale, vh = h / this.cam.scale;
    // The camera stays over the picture: a picture larger than the view
    // fills it but for a sixth at its edges; a smaller one stays inside.
    // The picture is its viewBox and its board with the marks around it,
    // which may reach past the viewBox (the spaces next to the edge tiles).
    const e = union({ ...this.extent }, this.boardBox());
    this.cam.cx = within(this.cam.cx, e.x, e.w, vw);
    this.cam.cy = within(this.cam.cy, e.y, e.h, vh);
    this.written = `${round(this.cam.cx - vw / 2)} ${round(this.cam.cy - vh / 2)} ${round(vw)} ${round(vh)}`;
    this.svg.setAttribute('viewBox', this.written);
    this.host.dataset.zoom = this.cam.scale.toFixed(3);
    this.onChange(this);
  }

  // Wheel, drag and pinch.  A drag that moved is not a click: the click
  // that ends it is swallowed before the board's click handler sees it.
  listen() {
    const host = this.host;
    host.addEventListener('wheel', (e) => {
      if (!this.cam) return;
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      this.zoom(Math.exp(-e.deltaY * unit * 0.0015), e.clientX, e.clientY);
    }, { passive: false });
    host.addEventListener('pointerdown', (e) => {
      if (e.button !== 0 && e.pointerType === 'mouse') return;
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
      if (this.pointers.size === 1) this.dragged = false;
    });
    host.addEventListener('pointermove', (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p) return;
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        p.x = e.clientX; p.y = e.clientY;
        const after = Math.hypot(a.x - b.x, a.y - b.y);
        if (before > 0) this.zoom(after / before, (a.x + b.x) / 2, (a.y + b.y) / 2);
        this.dragged = true;
        return;
      }
      const dx = e.clientX - p.x, dy = e.clientY - p.y;
      p.x = e.clientX; p.y = e.clientY;
      if (!this.dragged && Math.hypot(p.x - p.x0, p.y - p.y0) < 6) return;
      if (!this.dragged) host.setPointerCapture?.(e.pointerId);
      this.dragged = true;
      this.pan(dx, dy);
    });
    const up = (e) => { this.pointers.delete(e.pointerId); };
    host.addEventListener('pointerup', up);
    host.addEventListener('pointercancel', up);
    host.addEventListener('click', (e) => {
      if (this.dragged) { e.stopPropagation(); e.preventDefault(); this.dragged = false; }
    }, true);
  }
}

function parseBox(text) {
  const n = (text || '').trim().split(/[\s,]+/).map(Number);
  return n.length === 4 && n.every(Number.isFinite) && n[2] > 0 && n[3] > 0
    ? { x: n[0], y: n[1], w: n[2], h: n[3] } : { x: 0, y: 0, w: 100, h: 100 };
}

// An element's box in the root svg's units: its transforms and those of
// its groups applied (getBBox is in the element's own units).
export function bbox(el) {
  let b;
  try { b = el.getBBox(); } catch { return null; }
  let m = new DOMMatrix();
  for (let e = el; e && e.localName !== 'svg'; e = e.parentNode) {
    const t = e.transform?.baseVal?.consolidate();
    if (t) { const q = t.matrix; m = new DOMMatrix([q.a, q.b, q.c, q.d, q.e, q.f]).multiply(m); }
  }
  const pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
    .map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
  const xs = pts.map((p) => p.x), ys = pts.map((p) => p.y);
  return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
}

function union(a, b) {
  if (!b || !(b.w > 0)) return a;
  if (!a) return { ...b };
  const x = Math.min(a.x, b.x), y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

function within(c, start, length, view) {
  const lo = start + view / 2 - view / 6, hi = start + length - view / 2 + view / 6;
  return clamp(c, Math.min(lo, hi), Math.max(lo, hi));
}

const pad = (b, p) => ({ x: b.x - p, y: b.y - p, w: b.w + 2 * p, h: b.h + 2 * p });
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
const round = (v) => Math.round(v * 100) / 100;

// Each player's last move, outlined in the layer over the picture with
// the player's name and colour (and a dash pattern of its own, so the
// colour is never the only sign).  The picture draws its tiles in the
// order they were placed (class "tile" in the board group), so the tiles
// new since the previous state are the moves made meanwhile, in turn
// order from whoever was to act then (a state may bring your move and the
// bots' after it at once).  A box is kept relative to the first tile, so
// it stays on its tile when the board grows to the left or up.
const DASHES = ['none', '14 6', '4 4', '14 4 4 4', '2 6'];

export class LastMoves {
  constructor(viewport) {
    this.viewport = viewport;
    this.bySeat = new Map();   // seat -> box relative to the origin tile
    this.game = null;
    this.actor = null;         // who was to act in the previous state
    this.count = null;         // tiles in the previous state's picture
  }

  tiles() {
    return this.viewport.svg ? [...this.viewport.svg.querySelectorAll(':scope > g.board > g.tile')] : [];
  }

  // After each picture.
  update(st, colourOf) {
    if (this.game !== st.game) {
      this.bySeat.clear();
      this.game = st.game;
      this.actor = null;
      this.count = null;
    }
    const tiles = this.tiles();
    const o = tiles.length ? bbox(tiles[0]) : null;
    const n = (st.players || []).length;
    if (o && this.count !== null && tiles.length > this.count && typeof this.actor === 'number' && n) {
      tiles.slice(this.count).forEach((t, k) => {
        const b = bbox(t);
        if (b) this.bySeat.set((this.actor + k) % n, { x: b.x - o.x, y: b.y - o.y, w: b.w, h: b.h });
      });
    }
    this.count = tiles.length;
    this.actor = st.actor;
    this.draw(st, o, colourOf);
  }

  draw(st, o, colourOf) {
    const layer = this.viewport.overlay();
    if (!layer) return;
    for (const g of layer.querySelectorAll(':scope > .cas-last-move')) g.remove();
    if (!o) return;
    for (const [seat, b] of this.bySeat) {
      if (seat === st.you) continue;
      const p = (st.players || []).find((q) => q.seat === seat);
      const g = document.createElementNS(SVG_NS, 'g');
      g.setAttribute('class', 'cas-last-move');
      g.setAttribute('data-seat', seat);
      const x = o.x + b.x, y = o.y + b.y;
      const r = document.createElementNS(SVG_NS, 'rect');
      for (const [k, v] of Object.entries({ x: x - 4, y: y - 4, width: b.w + 8, height: b.h + 8, rx: 6 })) r.setAttribute(k, v);
      r.style.stroke = colourOf(p?.label) || '#333';
      r.style.strokeDasharray = DASHES[seat % DASHES.length];
      // The caption reads at 14 CSS px at the zoom of the moment.
      const unit = 1 / (this.viewport.cam?.scale || 1);
      const t = document.createElementNS(SVG_NS, 'text');
      t.setAttribute('x', x);
      t.setAttribute('y', y - 8 * unit);
      t.style.fontSize = `${14 * unit}px`;
      t.style.strokeWidth = `${4 * unit}px`;
      t.textContent = `${p?.name || 'Seat ' + (seat + 1)}${p?.label ? ' (' + p.label + ')' : ''}: last move`;
      g.append(r, t);
      layer.prepend(g);
    }
  }
}
