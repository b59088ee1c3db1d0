// panels.js — what the table shows beside the board (docs/web-client.md):
// players named with their colours ("Ada (Red)", from the plugin's seat
// labels), and the tray: the choices the picture draws off the board (the
// rotations, figures and picks of Carcassonne's side panel) shown again
// beside it, so they stay at hand however the board is zoomed or panned.

const SVG_NS = 'http://www.w3.org/2000/svg';

// A seat's colour word ("Red") as a CSS colour, or null.
export function seatColour(label) {
  const word = String(label || '').trim().toLowerCase();
  return word && CSS.supports('color', word) ? word : null;
}

// "Ada (Red)": the player's name with the plugin's label for the seat;
// the label alone where the name is missing or the same.
export function who(players, seat) {
  if (seat === null || seat === undefined) return 'the game';
  const p = (players || []).find((q) => q.seat === seat);
  const name = p?.name || `Seat ${seat + 1}`;
  return p?.label && p.label !== name ? `${name} (${p.label})` : name;
}

// A text of the game's ("Red +4 city") with each seat's label given its
// player's name ("Ada (Red) +4 city").
export function withNames(text, players) {
  const named = (players || []).filter((p) => p.label && p.name && p.name !== p.label);
  if (!named.length) return text;
  const words = new Map(named.map((p) => [p.label, `${p.name} (${p.label})`]));
  // A label already given its name ("Ada (Red)") is left as it is.
  const re = new RegExp(`(?<!\\()\\b(${[...words.keys()].map(escapeRe).join('|')})\\b(?!\\))`, 'g');
  return text.replace(re, (w) => words.get(w));
}

// A swatch of the seat's colour with a letter, so the colour is never the
// only sign (the letter is the label's first).
export function swatch(label) {
  const s = document.createElement('span');
  s.className = 'swatch';
  s.setAttribute('aria-hidden', 'true');
  const c = seatColour(label);
  if (c) s.style.setProperty('--seat', c);
  s.textContent = String(label || '?').slice(0, 1).toUpperCase();
  return s;
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The tray: one button per choice drawn outside the board's marks (a
// picture whose board is a group of class "board"), its drawing copied
// from the picture; a click on it is a click on the choice itself.
export class Tray {
  constructor(host, onPick) {
    this.host = host;
    this.onPick = onPick;
    this.root = host.attachShadow({ mode: 'open' });
    this.root.addEventListener('click', (e) => {
      const b = e.target.closest?.('button');
      const mark = b && this.buttons.get(b);
      if (mark) onPick(mark);
    });
    this.buttons = new Map();
    this.key = '';
  }

  render(svg, sel) {
    const off = svg && sel && svg.querySelector(':scope > g.board')
      ? sel.marks.filter((m) => !m.el.closest('g.marks, g.board')) : [];
    const shown = off.filter((m) => m.el.classList.contains('cas-live') || m.el.classList.contains('cas-chosen'));
    this.host.hidden = !shown.length;
    const key = shown.map((m) => sel.marks.indexOf(m)).join(' ');
    if (key !== this.key || !this.root.firstChild) this.build(svg, shown, key);
    for (const [b, m] of this.buttons) {
      for (const c of ['cas-live', 'cas-active', 'cas-chosen', 'cas-later']) b.classList.toggle(c, m.el.classList.contains(c));
      b.setAttribute('aria-pressed', String(m.el.classList.contains('cas-chosen')));
    }
  }

  build(svg, marks, key) {
    this.key = key;
    this.buttons = new Map();
    if (!marks.length) { this.root.replaceChildren(); return; }
    const style = document.createElement('style');
    style.textContent = TRAY_CSS;
    // One copy of the picture's definitions and styles serves every button.
    const defs = document.createElementNS(SVG_NS, 'svg');
    defs.setAttribute('class', 'defs');
    defs.setAttribute('aria-hidden', 'true');
    for (const d of svg.querySelectorAll(':scope > defs, :scope > style')) defs.append(d.cloneNode(true));
    const list = document.createElement('div');
    list.className = 'tray';
    for (const m of marks) {
      const b = document.createElement('button');
      b.type = 'button';
      const label = m.el.getAttribute('data-cas-label') || m.el.getAttribute('aria-label') || 'choice';
      b.setAttribute('aria-label', label);
      b.title = label;
      const pic = picture(m.el);
      if (pic) b.append(pic);
      const words = document.createElement('span');
      words.textContent = label;
      b.append(words);
      this.buttons.set(b, m);
      list.append(b);
    }
    this.root.replaceChildren(style, defs, list);
  }
}

function picture(el) {
  let bb;
  try { bb = el.getBBox(); } catch { return null; }
  if (!bb || !bb.width || !bb.height) return null;
  const pic = document.createElementNS(SVG_NS, 'svg');
  pic.setAttribute('viewBox', `${bb.x - 2} ${bb.y - 2} ${bb.width + 4} ${bb.height + 4}`);
  pic.setAttribute('aria-hidden', 'true');
  const clone = el.cloneNode(true);
  for (const m of [clone, ...clone.querySelectorAll('[data-cas-choices]')]) {
    m.removeAttribute('data-cas-choices');
    m.removeAttribute('tabindex');
    m.removeAttribute('role');
    m.removeAttribute('class');
  }
  for (const t of clone.querySelectorAll('title')) t.remove();
  pic.append(clone);
  return pic;
}

const TRAY_CSS = `
:host { display: block; }
.defs { position: absolute; width: 0; height: 0; overflow: hidden; }
.tray { display: flex; flex-wrap: wrap; gap: .35rem; }
button { display: flex; flex-direction: column; align-items: center; min-width: 44px; min-height: 44px;
  padding: .2rem; font: inherit; font-size: .8rem; background: #fffaf0; color: #1d1a16;
  border: 2px dashed #6b6150; border-radius: .4rem; cursor: pointer; }
button svg { width: 4.2rem; height: 4.2rem; }
button span { max-width: 6rem; overflow-wrap: anywhere; }
button.cas-active { border: 3px solid #1d1a16; }
button.cas-later { opacity: .85; }
button:not(.cas-live):not(.cas-chosen) { opacity: .35; }
button.cas-chosen { border: 4px double #1d1a16; background: #f3ead2; }
button:focus-visible { outline: 3px solid #1d1a16; outline-offset: 2px; }
`;

// The hint bot's reason in plain words.  The greedy bot says "it leaves
// you +4 against the best opponent after your move (+0 now; the best
// other choice, +2)": told as points ahead of or behind the best other
// player.  Any other text is shown as it is.
export function hintWords(text) {
  const m = /leaves you ([+-]?\d+) against the best opponent after your move \(([+-]?\d+) now(?:; the best other choice, ([+-]?\d+))?\)/
    .exec(text || '');
  if (!m) return text || '';
  const where = (n) => (n > 0 ? `${n} point${n === 1 ? '' : 's'} ahead of` : n < 0
    ? `${-n} point${n === -1 ? '' : 's'} behind` : 'level with');
  const [after, now] = [Number(m[1]), Number(m[2])];
  let words = `After this move you would be ${where(after)} the best other player (now you are ${where(now)} them).`;
  if (m[3] !== undefined) {
    const other = Number(m[3]);
    words += other < after ? ' No other move does as well.'
      : other === after ? ' Another move does as well.' : ` Another move would leave you ${where(other)} them.`;
  }
  return words;
}

// The final scores by category, from the score events' own data
// (protocol 2's `score`: who scored how many points for what category):
// a table of category by player.  A game whose plugin does not name the
// category (before ABI 1.1) has its points under "points".
export function breakdown(events) {
  const table = new Map();   // category -> Map(seat -> points)
  for (const e of events) {
    const s = e.score;
    if (!s || typeof s.player !== 'number' || typeof s.points !== 'number') continue;
    const cat = typeof s.category === 'string' && s.category ? s.category : 'points';
    if (!table.has(cat)) table.set(cat, new Map());
    const row = table.get(cat);
    row.set(s.player, (row.get(s.player) || 0) + s.points);
  }
  return table;
}
