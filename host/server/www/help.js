// help.js — help at the table (docs/web-client.md, "Help"): the game's
// own notation help (the plugin's notation_help, served at
// /game/ID/help.txt) as a rules panel, and for the decision at hand the
// help entries of the actions it offers, in plain words ("castle keep:
// draw as usual and keep your castles").

// Entries of the help text: "  WORDS  explanation", continued on lines
// indented further; the words' capitals are placeholders (ID, X,Y, ROT).
export function parseHelp(text) {
  const entries = [];
  let cur = null;
  for (const line of String(text).split('\n')) {
    const m = /^ {2}(\S.*?)(?: {2,}(\S.*))?$/.exec(line);
    if (m && !/^ {3,}/.test(line)) {
      cur = { words: m[1].trim(), text: m[2] || '' };
      entries.push(cur);
    } else if (cur && /^ {3,}\S/.test(line)) {
      cur.text += (cur.text ? ' ' : '') + line.trim();
    } else {
      cur = null;
    }
  }
  return entries.filter((e) => e.text);
}

// The literal words an entry starts with ("castle keep", "deploy wagon"),
// up to its first placeholder.
function head(words) {
  const out = [];
  for (const w of words.split(/\s+/)) {
    if (/^[A-Z][A-Z0-9,]*$/.test(w) || /[A-Z]{2,}/.test(w)) break;
    out.push(w);
  }
  return out.join(' ');
}

// The entries that explain some of `actions`: for each action, the entry
// whose literal head is the longest prefix of it.
export function helpFor(entries, actions) {
  const found = new Map();
  for (const a of actions || []) {
    let best = null;
    for (const e of entries) {
      const h = head(e.words);
      if (h && (a === h || a.startsWith(h + ' ')) && (!best || h.length > head(best.words).length)) best = e;
    }
    if (best) found.set(best.words, best);
  }
  return [...found.values()];
}

export class Help {
  constructor(panel, rules, decision) {
    this.panel = panel;         // <details> of the rules
    this.rules = rules;         // <pre> in it
    this.decision = decision;   // the decision's list of explanations
    this.game = null;
    this.entries = [];
    this.tries = 0;
  }

  // Fetches the game's help once (again after a refusal, a few times).
  async load(game) {
    if (this.game === game && (this.entries.length || this.tries >= 5)) return;
    if (this.game !== game) { this.game = game; this.tries = 0; this.entries = []; this.text = ''; }
    if (this.loading) return;
    this.loading = true;
    this.tries++;
    try {
      const r = await fetch(`/game/${encodeURIComponent(game)}/help.txt`);
      if (r.ok && this.game === game) {
        this.text = await r.text();
        this.entries = parseHelp(this.text);
      }
    } catch { /* offline: no help this time */ }
    this.loading = false;
    this.panel.hidden = !this.text;
    this.rules.textContent = this.text || '';
  }

  // The decision's actions explained, each kind once.
  explain(actions) {
    const list = this.decision;
    list.replaceChildren();
    for (const e of helpFor(this.entries, actions)) {
      const li = document.createElement('li');
      const b = document.createElement('strong');
      b.textContent = head(e.words) || e.words;
      li.append(b, ': ' + e.text);
      list.append(li);
    }
    list.hidden = !list.children.length;
  }
}
