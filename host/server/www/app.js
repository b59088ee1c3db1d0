// app.js — castellan's browser client (docs/web-client.md): one WebSocket
// to `castellan serve` (protocol 4, docs/server.md), the lobby and the
// table.  The board is the game plugin's own SVG, sanitized and put in a
// shadow root so its styles stay its own (picture.js installs it whole
// and patches it with each update's changes); click to play follows the
// marks of docs/abi.md ("ABI 1.2: click to play").  Plain ES module, no
// build.

import { sanitizeSvg, installPicture, patchPicture } from './picture.js';

import { Viewport, LastMoves } from './board.js';
import { Placement, quickPlay, setQuickPlay } from './placement.js';
import { Tray, who, withNames, seatColour, swatch, hintWords, breakdown } from './panels.js';
import { wireCues, turnCue } from './cues.js';
import { Help } from './help.js';
import { correspondenceClock, yourTurnFirst } from './turns.js';
import { applyLobby } from './lobby.js';

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- storage
// A seat's token lives in sessionStorage (this tab: survives a reload, and
// two tabs of one browser may hold two seats of one game) and is also
// remembered in localStorage so the lobby can offer "play as seat N" later.

const SEATS_KEY = 'castellan.seats';

function rememberedSeats() {
  try { return JSON.parse(localStorage.getItem(SEATS_KEY)) || {}; } catch { return {}; }
}

function rememberSeat(game, seat, token) {
  const all = rememberedSeats();
  const list = (all[game] || []).filter((s) => s.seat !== seat);
  list.push({ seat, token });
  all[game] = list;
  try { localStorage.setItem(SEATS_KEY, JSON.stringify(all)); } catch { /* private mode */ }
}

function forgetSeat(game, seat) {
  const all = rememberedSeats();
  if (!all[game]) return;
  all[game] = all[game].filter((s) => s.seat !== seat);
  if (!all[game].length) delete all[game];
  try { localStorage.setItem(SEATS_KEY, JSON.stringify(all)); } catch { /* private mode */ }
}

function tabSeat(game) {
  try { return JSON.parse(sessionStorage.getItem('castellan.seat.' + game)); } catch { return null; }
}

function setTabSeat(game, seat, token) {
  const key = 'castellan.seat.' + game;
  try {
    if (seat === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify({ seat, token }));
  } catch { /* private mode */ }
}

// ------------------------------------------------------------- connection
// One socket, reopened with exponential backoff (0.5 s doubling to 15 s,
// with jitter) whenever it drops; on every open the client says hello and
// subscribes again to what it followed (the lobby or its game).

const conn = {
  ws: null,
  attempt: 0,
  timer: null,
  nextId: 1,
  pending: new Map(),        // request id -> what it was, for errors
  protocol: null,            // the server's, as its hello answer says (null: not yet)
  lobby: false,              // this socket is subscribed to the lobby
};

function wsUrl() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return proto + '//' + location.host + '/ws';
}

function connect() {
  clearTimeout(conn.timer);
  conn.timer = null;
  $('retry').hidden = true;
  setConn('connecting…');
  let ws;
  try {
    ws = new WebSocket(wsUrl(), 'castellan.v1');
  } catch (e) {
    scheduleReconnect();
    return;
  }
  conn.ws = ws;
  ws.onopen = () => {
    conn.attempt = 0;
    document.body.dataset.connects = String(Number(document.body.dataset.connects || 0) + 1);
    setConn('connected');
    conn.protocol = null;
    conn.lobby = false;
    send({ type: 'hello', client: 'castellan-web/1' });
    resubscribe();
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (msg && typeof msg.type === 'string') receive(msg);
  };
  ws.onclose = () => {
    if (conn.ws !== ws) return;
    conn.ws = null;
    // A click sent just before may be lost: nothing is clickable until the
    // rejoin brings the game's state again.
    view.busy = false;
    view.sel = null;
    scheduleReconnect();
  };
  ws.onerror = () => { /* onclose follows */ };
}

function scheduleReconnect() {
  const base = Math.min(15000, 500 * 2 ** conn.attempt);
  const delay = Math.round(base * (0.5 + Math.random() / 2));
  conn.attempt++;
  setConn(`connection lost — reconnecting in ${Math.ceil(delay / 1000)} s (attempt ${conn.attempt})`);
  $('retry').hidden = false;
  conn.timer = setTimeout(connect, delay);
}

function setConn(text) {
  $('conn').textContent = text;
  document.body.dataset.conn = text === 'connected' ? 'up' : 'down';
}

// Sends one message; returns its id, or null when the socket is not open.
function send(msg) {
  if (!conn.ws || conn.ws.readyState !== WebSocket.OPEN) {
    showAlert('Not connected to the server: wait for the connection to come back, then try again.');
    return null;
  }
  const id = conn.nextId++;
  msg.id = id;
  conn.pending.set(id, msg.type);
  if (conn.pending.size > 200) conn.pending.delete(conn.pending.keys().next().value);
  conn.ws.send(JSON.stringify(msg));
  return id;
}

// Keeps the socket alive behind proxies that close idle connections.
setInterval(() => {
  if (conn.ws && conn.ws.readyState === WebSocket.OPEN)
    conn.ws.send(JSON.stringify({ type: 'ping' }));
}, 25000);

// ------------------------------------------------------------------ routes

const view = {
  screen: null,              // 'lobby' | 'table'
  game: null,                // the game id at the table
  seat: null, token: null,   // the seat this tab acts for, or null: watching
  lobby: null,               // the lobby's list, as its whole list and changes built it
  lobbyResuming: false,      // a resume was asked for changes this page missed
  state: null,               // the game as the last state and updates tell it
  seq: null,                 // the number of the last of them
  resyncing: false,          // a join was sent for what this page missed
  text: false,               // the text view is asked for
  events: [],                // the log as shown, for the game-over breakdown
  sel: null,                 // click-to-play selection (see below)
  busy: false,               // an act was sent, its state not yet seen
  preview: { sent: null, want: null }, // the ghost's preview asked (its id) and the next one
  followUp: null,            // {ply, action}: a figure chosen on the ghost, played at ply
  clockAt: 0,                // performance.now() when the state came
};

function route() {
  const m = location.pathname.match(/^\/game\/([^/]+)\/?$/);
  hideAlert();
  if (m) {
    openTable(decodeURIComponent(m[1]));
  } else {
    openLobby();
  }
}

// Reads an invite (#seat=N&token=T, or ?seat=N&token=T) into this tab's
// storage and takes it out of the address bar, so the token is not left on
// screen, in the history or in a bookmark.
function takeInvite(game) {
  const params = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const p = params.has('token') ? params : query;
  if (!p.has('token')) return;
  const seat = Number.parseInt(p.get('seat') || '', 10);
  const token = p.get('token');
  if (Number.isInteger(seat) && seat >= 0 && token) {
    setTabSeat(game, seat, token);
    rememberSeat(game, seat, token);
  }
  history.replaceState(null, '', '/game/' + encodeURIComponent(game));
}

// A sign-in link (#signin=KEY, docs/players.md) hands its key to the
// server, which keeps it in a cookie no script can read; the key leaves
// the address bar, the history and any bookmark at once.
async function takeSignin() {
  const key = new URLSearchParams(location.hash.slice(1)).get('signin');
  if (!key) return;
  history.replaceState(null, '', location.pathname);
  try {
    const answer = await fetch('/signin', {
      headers: { Authorization: 'Bearer ' + key }, cache: 'no-store', credentials: 'same-origin',
    });
    const body = await answer.json();
    showPlayer(body.player, body.error);
  } catch {
    showPlayer(null, 'the server could not be reached to sign you in; open the link again');
  }
}

// Who this browser plays as: a registered player's name, or why its key
// was refused (the hello answer says it on every connection).
function showPlayer(player, error) {
  const me = $('me');
  me.hidden = !player && !error;
  me.textContent = player ? `Signed in as ${player}` : error ? `Not signed in: ${error}` : '';
  $('my-name').disabled = Boolean(player);
  if (player) $('my-name').value = player;
}

function navigate(path) {
  history.pushState(null, '', path);
  route();
}

// The lobby's whole list, then its changes; after a dropped connection
// only the changes after the last one held (docs/server.md, "lobby").
function subscribeLobby() {
  const since = typeof view.lobby?.seq === 'number' ? view.lobby.seq : null;
  send(since === null ? { type: 'lobby', deltas: true } : { type: 'lobby', deltas: true, since });
  conn.lobby = true;
}

// Away from the lobby the page wants none of its changes: a server of
// protocol 4 stops them; an older one knows no leave_lobby (it would
// answer unknown-type), so they keep coming there and are ignored.
function leaveLobby() {
  if (!conn.lobby || view.screen === 'lobby' || !(conn.protocol >= 4)) return;
  send({ type: 'leave_lobby' });
  conn.lobby = false;
}

function resubscribe() {
  if (view.screen === 'lobby') subscribeLobby();
  else if (view.screen === 'table') join(true);
}

// ------------------------------------------------------------------- lobby

function openLobby() {
  if (view.screen === 'table' && conn.ws) send({ type: 'leave' });
  view.screen = 'lobby';
  view.game = null;
  $('table').hidden = true;
  $('lobby').hidden = false;
  document.title = 'castellan — games';
  $('my-name').value = localStorage.getItem('castellan.name') || '';
  // The list as left: its changes since come out of the server's history
  // (the whole list when it holds them no more).
  if (conn.ws && conn.ws.readyState === WebSocket.OPEN) subscribeLobby();
}

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function seatWords(s) {
  const name = s.name || (s.label ? '' : 'seat ' + (s.seat + 1));
  const who = `${s.seat + 1}. ${name}${s.label ? (name ? ` (${s.label})` : s.label) : ''}`;
  if (s.open) return `${who}: open`;
  const agent = s.agent && s.agent !== 'human' ? ` (${s.agent})` : '';
  const online = s.agent === 'human' ? (s.connected ? ', online' : ', offline') : '';
  return who + agent + online;
}

// A lobby message: the list it makes shown; a change that does not follow
// the list held asks to resume after the last one held (once).
function lobbyMessage(msg) {
  const { list, resume } = applyLobby(view.lobby, msg);
  if (resume !== null) {
    if (!view.lobbyResuming) {
      view.lobbyResuming = true;
      send(resume < 0 ? { type: 'lobby', deltas: true } : { type: 'lobby', deltas: true, since: resume });
    }
    return;
  }
  view.lobbyResuming = false;
  if (list !== view.lobby) renderLobby(list);
}

function renderLobby(msg) {
  view.lobby = msg;
  document.body.dataset.lobbySeq = String(msg.seq ?? '');
  fillCreateForm(msg);
  const body = $('games').tBodies[0];
  body.replaceChildren();
  const mine = rememberedSeats();
  const games = yourTurnFirst(msg.games || [], (game) => (mine[game] || []).map((s) => s.seat));
  $('no-games').hidden = games.length > 0;
  $('games').hidden = games.length === 0;
  for (const g of games) {
    const go = el('td', { class: 'go' });
    for (const s of mine[g.game] || [])
      go.append(el('button', { type: 'button', text: `Play seat ${s.seat + 1}`,
        onclick: () => { setTabSeat(g.game, s.seat, s.token); navigate('/game/' + encodeURIComponent(g.game)); } }));
    for (const s of g.seats || []) {
      if (!s.open || g.status === 'over') continue;
      go.append(el('button', { type: 'button', text: `Take seat ${s.seat + 1}`,
        onclick: () => claim(g.game, s.seat) }));
    }
    go.append(el('a', { href: '/game/' + encodeURIComponent(g.game), 'data-nav': 'game',
      text: g.status === 'over' ? 'See the end' : 'Watch' }));
    if (g.status === 'over')
      go.append(el('a', { href: '/game/' + encodeURIComponent(g.game) + '/replay.html', text: 'Replay' }));
    const seats = el('ul', { class: 'seat-list' });
    for (const s of g.seats || []) seats.append(el('li', {}, swatch(s.label), ' ' + seatWords(s)));
    const clock = g.clock ? ` · clock ${fmtClockSetting(g.clock)}` : '';
    const practice = g.practice ? ' · practice (seed chosen)' : '';
    body.append(el('tr', { 'data-game': g.game, class: g.yourTurn ? 'your-turn' : null },
      el('td', {}, g.yourTurn ? el('strong', { class: 'your-turn-mark', text: 'Your turn: ' }) : '',
        el('strong', { text: gameTitle(g.title, msg) }), ` (game ${g.game})` + clock + practice),
      el('td', { text: g.status }),
      el('td', { text: String(g.ply ?? '') }),
      el('td', {}, seats),
      go));
  }
  renderRecent(msg, new Set(games.map((g) => g.game)));
}

// The store's last finished games (across restarts), those no longer in
// the list above, each with its result and replay.
function renderRecent(msg, listed) {
  const recent = (msg.finished || []).filter((g) => !listed.has(g.game));
  $('recent').hidden = recent.length === 0;
  $('recent-games').replaceChildren(...recent.map((g) => {
    const seats = (g.seats || []).map((s) => {
      const agent = s.agent && s.agent !== 'human' ? ` (${s.agent})` : '';
      const score = s.score === null || s.score === undefined ? '' : ` ${s.score}`;
      const left = g.flagged === s.seat ? (g.reason === 'left' ? ', left' : ', out of time') : '';
      return `${s.seat + 1}. ${s.name || 'seat ' + (s.seat + 1)}${agent}${score}${left}`;
    }).join(' · ');
    const when = String(g.finished || '').replace('T', ' ').replace(/:\d\dZ?$|Z$/, '');
    return el('li', { 'data-game': g.game },
      el('strong', { text: gameTitle(g.title, msg) }), ` (game ${g.game}, ${when}): ${seats} `,
      el('a', { href: '/game/' + encodeURIComponent(g.game) + '/replay.html', text: 'Replay' }));
  }));
}

// "carcassonne + inns-cathedrals" in the plugins' own names.
function gameTitle(title, lobby) {
  const names = new Map();
  for (const g of lobby?.games_available || []) {
    names.set(g.id, g.name);
    (g.expansions || []).forEach((x, i) => names.set(x, g.expansion_names?.[i] || x));
  }
  return String(title || '').split(' + ').map((id) => shortName(names.get(id) || id)).join(' + ');
}

// A descriptor's description may run on ("Carcassonne: the base game,
// ..."): its name is up to the first colon, dash or comma.
function shortName(text) {
  return String(text).split(/\s*(?::|;|—| - |,|\(|\. )\s*/)[0].replace(/\.$/, '') || text;
}

function fmtClockSetting(c) {
  if (c.days_per_move) return `${c.days_per_move} ${c.days_per_move === 1 ? 'day' : 'days'} per move`;
  return `${Math.round(c.base_ms / 60000)} min + ${Math.round(c.increment_ms / 1000)} s`;
}

let formFilled = false;

function fillCreateForm(msg) {
  const presets = msg.presets || [];
  const sel = $('preset');
  const keep = sel.value;
  sel.replaceChildren(...presets.map((p, i) => el('option', { value: p,
    text: msg.preset_titles?.[i] ? `${msg.preset_titles[i]} (${p})` : p })));
  if (presets.includes(keep)) sel.value = keep;
  $('preset-form').hidden = presets.length === 0;
  const games = msg.games_available || [];
  const gsel = $('game');
  const gkeep = gsel.value;
  gsel.replaceChildren(...games.map((g) => el('option', { value: g.id, title: g.name, text: `${shortName(g.name)} (${g.id})` })));
  if (games.some((g) => g.id === gkeep)) gsel.value = gkeep;
  if (!formFilled && games.length) {
    formFilled = true;
    fillExpansions();
    resetSeats();
  }
}

function chosenGame() {
  return (view.lobby?.games_available || []).find((g) => g.id === $('game').value);
}

function fillExpansions() {
  const g = chosenGame();
  const box = $('expansions');
  box.replaceChildren(el('legend', { text: 'Expansions' }));
  (g?.expansions || []).forEach((x, i) => {
    const name = g.expansion_names?.[i];
    box.append(el('label', { title: name || x }, el('input', { type: 'checkbox', value: x }), ' ' + (name ? shortName(name) : x)));
  });
  if (!g?.expansions?.length) box.append(el('p', { text: 'This game has no expansions.' }));
}

function agentChoices() {
  return view.lobby?.agents || ['human', 'open', 'random', 'greedy', 'mcts-easy', 'mcts', 'mcts-hard'];
}

function addSeat(agent) {
  const list = $('seats');
  const n = list.children.length + 1;
  const pick = el('select', { 'aria-label': `Seat ${n} player` },
    ...agentChoices().map((a) => el('option', { value: a, text: a === 'open' ? 'open (anyone may take it)' : a })));
  pick.value = agent;
  list.append(el('li', {},
    el('input', { 'aria-label': `Seat ${n} name`, placeholder: `name (optional)`, maxlength: 40 }), ' ', pick));
}

function resetSeats() {
  $('seats').replaceChildren();
  const g = chosenGame();
  const min = g?.players?.[0] || 2;
  for (let i = 0; i < min; i++) addSeat(i === 0 ? 'human' : 'open');
}

function customCreate() {
  const seats = [...$('seats').children].map((li) => {
    const name = li.querySelector('input').value.trim();
    const agent = li.querySelector('select').value;
    return name ? { name, agent } : { agent };
  });
  const me = $('my-name').value.trim();
  if (me && seats[0] && !seats[0].name && seats[0].agent === 'human') seats[0].name = me;
  const rules = {};
  for (const line of $('rules').value.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const eq = t.indexOf('=');
    if (eq <= 0) {
      showAlert(`Rule line "${t}" is not name=value: write one rule a line, e.g. farmers=on.`);
      return;
    }
    rules[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  }
  const msg = {
    type: 'create', game: $('game').value, seats, rules,
    expansions: [...$('expansions').querySelectorAll('input:checked')].map((i) => i.value),
  };
  const days = $('clock-days').value;
  if (days && $('clock-on').checked) {
    showAlert('Choose one time control: a Fischer clock or days per move (correspondence).');
    return;
  }
  if (days)
    msg.clock = { days_per_move: Number(days) };
  else if ($('clock-on').checked)
    msg.clock = { base_ms: Number($('clock-base').value) * 60000, increment_ms: Number($('clock-inc').value) * 1000 };
  // The server draws the seed and commits to it; a chosen one makes a
  // practice game (docs/server.md, "Fair draws").
  const seed = $('seed').value.trim();
  if (seed) { msg.seed = seed; msg.practice = true; }
  send(msg);
}

function claim(game, seat) {
  const name = $('my-name').value.trim() || undefined;
  send({ type: 'claim', game, seat, name });
}

function absoluteLink(link) {
  return new URL(link, location.origin).href;
}

function showCreated(msg) {
  const box = $('created');
  box.hidden = false;
  const list = $('invites');
  list.replaceChildren();
  for (const s of msg.seats || []) {
    rememberSeat(msg.game, s.seat, s.token);
    const url = absoluteLink(s.link);
    const field = el('input', { readonly: true, value: url, 'aria-label': `Invite link of seat ${s.seat + 1}`, class: 'link' });
    list.append(el('li', { 'data-seat': s.seat },
      el('span', { class: 'who', text: `Seat ${s.seat + 1}` }), field,
      el('button', { type: 'button', text: 'Copy', onclick: (e) => copy(url, field, e.target) }),
      el('button', { type: 'button', text: 'Play this seat here', onclick: () => {
        setTabSeat(msg.game, s.seat, s.token);
        navigate('/game/' + encodeURIComponent(msg.game));
      } })));
  }
  $('watch-link').href = msg.watch || '/game/' + encodeURIComponent(msg.game);
  $('custom').open = false;
  box.scrollIntoView({ block: 'nearest' });
  list.querySelector('button')?.focus();
}

async function copy(text, field, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    field.select();
    document.execCommand('copy');
  }
  button.textContent = 'Copied';
  setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}

// ------------------------------------------------------------------- table

function openTable(game) {
  takeInvite(game);
  view.screen = 'table';
  view.game = game;
  view.state = null;
  view.seq = null;
  view.fitPending = true;
  const mine = tabSeat(game);
  view.seat = mine ? mine.seat : null;
  view.token = mine ? mine.token : null;
  $('lobby').hidden = true;
  $('table').hidden = false;
  $('table-title').textContent = 'Game ' + game;
  document.title = 'castellan — game ' + game;
  view.events = [];
  $('board').replaceChildren();
  $('log').replaceChildren();
  if (conn.ws && conn.ws.readyState === WebSocket.OPEN) {
    leaveLobby();
    join();
  }
}

// Follows the game: the full state, or with `resume` only the updates
// after the last one this page holds (after a dropped connection, or a
// gap in the numbers).
function join(resume = false) {
  view.busy = false;
  view.preview = { sent: null, want: null }; // an answer on the old socket never comes
  const msg = { type: 'join', game: view.game, text: view.text };
  if (view.seat !== null) { msg.seat = view.seat; msg.token = view.token; }
  const st = view.state;
  if (resume && st && view.seq !== null && String(st.game) === view.game && st.you === view.seat)
    msg.since = view.seq;
  else
    view.seq = null;
  send(msg);
}

// A refused seat link: the page says so until the player dismisses it
// (a state does not clear it), and watches; the seat box beside the
// board offers the open seats to take.
function watchInstead(why) {
  if (view.seat !== null) forgetSeat(view.game, view.seat);
  setTabSeat(view.game, null);
  view.seat = null;
  view.token = null;
  showNotice(why);
  join();
}

function showNotice(text) {
  $('notice-text').textContent = text;
  $('notice').hidden = false;
}

function playerName(players, seat) {
  return who(players, seat);
}

// The seat's choice of forced passes (server: "autopass"), on unless the
// player turned it off in this browser; told to the server at each join.
function autoPass() {
  try { return localStorage.getItem('castellan.autopass') !== 'off'; } catch { return true; }
}

// A full state: the picture installed whole, the log replaced.
function onState(msg) {
  view.resyncing = false;
  view.seq = msg.seq;
  installBoard(msg.svg, msg.text);
  renderState(msg, true);
}

// An update continues the state: the next number, or the page resumes.
function onUpdate(msg) {
  if (view.seq === null || msg.seq !== view.seq + 1 || !view.state) {
    // Missed some (or the picture went astray): once, ask for what is
    // missing; the replies come in order after the updates on their way.
    if (!view.resyncing && view.seq !== null && msg.seq > view.seq) {
      view.resyncing = true;
      join(true);
    }
    return;
  }
  const patched = msg.svg_changes ? patchPicture(boardRoot(), msg.svg_changes) : true;
  if (!patched) {
    view.resyncing = true;
    join(false);
    return;
  }
  view.resyncing = false;
  if (msg.svg !== undefined) installBoard(msg.svg, view.state.text);
  view.seq = msg.seq;
  const st = { ...view.state, ...msg, type: 'state' };
  delete st.svg_changes;
  st.svg = undefined;
  renderState(st, !!msg.events_reset);
}

// The game stopped where nothing of it could be shown (protocol 4: it
// could not wake): the page says why where it says whose turn it is, and
// offers no decision.
function onStopped(msg) {
  delete document.body.dataset.busy;
  if (view.state) {
    renderState({ ...view.state, failure: msg.failure }, false);
  } else {
    $('turn').textContent = `The game stopped: ${msg.failure}.`;
  }
}

function onText(msg) {
  if (!view.state || msg.seq !== view.seq) return;
  view.state.text = msg.text;
  $('text').textContent = msg.text || '';
  if (!boardRoot().querySelector('svg')) $('text-view').textContent = msg.text || '';
}

function renderState(st, first) {
  $('table-title').textContent = 'Game ' + st.game + (st.practice ? ' (practice: seed ' + st.seed + ')' : '');
  // The seat's choice of forced passes is told again with every full state
  // (a join, a resync): the server forgets it with the connection.
  if (first && typeof st.you === 'number' && !autoPass())
    send({ type: 'autopass', game: view.game, on: false });
  const plyChanged = !view.state || view.state.ply !== st.ply || view.state.actor !== st.actor;
  view.state = st;
  view.busy = false;
  view.clockAt = performance.now();
  if (st.you !== null && st.you !== undefined && view.seat === null) view.seat = st.you;
  document.body.dataset.ply = String(st.ply);
  document.body.dataset.actor = String(st.actor);
  document.body.dataset.over = String(!!st.over);
  document.body.dataset.you = st.you === null || st.you === undefined ? '' : String(st.you);

  if (st.title) $('table-title').textContent = `${gameTitle(st.title, view.lobby)} — game ${view.game}`;
  const mine = st.you !== null && st.you !== undefined && st.actor === st.you && !st.over &&
    !st.failure;
  let turn;
  if (st.failure) turn = `The game stopped: ${st.failure}.`;
  else if (st.over) turn = 'The game is over.';
  else if (mine) turn = `Your turn (ply ${st.ply}).`;
  else if (st.actor === 'chance') turn = `The game draws (ply ${st.ply}).`;
  else turn = `${playerName(st.players, st.actor)} to play (ply ${st.ply}).`;
  if (st.you !== null && st.you !== undefined) turn += ` You play ${playerName(st.players, st.you)}.`;
  else turn += ' You are watching.';
  $('turn').textContent = turn;

  renderPlayers(st);
  renderEvents(st.events || [], first || st.events_reset === true, st.players);
  decorateBoard(st);
  renderDecision(st, mine, plyChanged);
  renderSeatBox(st);
  renderLeaver(st);
  renderResult(st);
  turnCue(mine, 'castellan — game ' + view.game, turn);
  help.load(view.game).then(() => help.explain(mine ? view.state?.actions : []));
}

function fmtClock(ms) {
  if (ms === null || ms === undefined) return '—';
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const mm = h ? String(m).padStart(2, '0') : String(m);
  return (h ? h + ':' : '') + mm + ':' + String(r).padStart(2, '0');
}

// A seat's clock cell: a Fischer clock's minutes and seconds, or a
// correspondence game's days per move and the time left to move.
function clockText(st, p, ms) {
  if (st.clock?.days_per_move)
    return correspondenceClock(st.clock, ms, p.seat === st.actor && !st.over);
  return fmtClock(ms);
}

function renderPlayers(st) {
  const body = $('players').tBodies[0];
  body.replaceChildren();
  // Once over, the scores are the result's (after a flag fall, the
  // scores the game ended with), the same on every page.
  const final = st.over ? st.result?.scores : null;
  $('clock-note').hidden = !(st.clock && st.clock.running === false && !st.over);
  for (const p of st.players || []) {
    const acting = p.seat === st.actor && !st.over;
    const status = [];
    if (p.seat === st.you) status.push('you');
    if (acting) status.push('to play');
    if (p.open) status.push('open seat');
    else if (p.agent === 'human') status.push(p.connected ? 'online' : 'offline');
    else status.push('bot: ' + p.agent);
    const clock = el('td', { class: 'clock', 'data-seat': p.seat, text: clockText(st, p, p.clock_ms) });
    body.append(el('tr', { class: acting ? 'acting' : null, 'data-seat': p.seat },
      el('th', { scope: 'row' }, acting ? '▶ ' : '', swatch(p.label), ' ' + who(st.players, p.seat)),
      final ? el('td', { class: 'score', text: String(final[p.seat] ?? p.score ?? '') })
        : el('td', { class: 'score', title: p.projected == null ? null : 'if the game ended now',
          text: String(p.score ?? '') + (p.projected == null || p.projected === p.score ? '' : ` (${p.projected} if it ended now)`) }),
      clock,
      el('td', { text: status.join(', ') })));
  }
}

// The actor's clock runs down between states; the server's figure is the
// truth and replaces this guess at every state.
setInterval(() => {
  const st = view.state;
  if (!st || st.over || typeof st.actor !== 'number' || st.clock?.running === false) return;
  const p = (st.players || []).find((q) => q.seat === st.actor);
  if (!p || p.clock_ms === null || p.clock_ms === undefined) return;
  const cell = $('players').querySelector(`td.clock[data-seat="${st.actor}"]`);
  if (cell) cell.textContent = clockText(st, p, p.clock_ms - (performance.now() - view.clockAt));
}, 250);

// The whole log comes after a join and after an undo (events_reset): it
// replaces what is shown; other states bring only the new events.
function renderEvents(events, full, players) {
  const log = $('log');
  if (full) { log.replaceChildren(); view.events = []; }
  view.events.push(...events);
  // The game's own words name who did what by its seat labels ("Red"):
  // each label is given its player's name, "Ada (Red)".
  for (const e of events) {
    log.append(el('li', { 'data-ply': e.ply, 'data-player': e.player ?? '' },
      el('span', { class: 'ply', text: `ply ${e.ply}` }), ' ' + withNames(e.text, players)));
  }
  log.scrollTop = log.scrollHeight;
}

function renderSeatBox(st) {
  const watching = st.you === null || st.you === undefined;
  const box = $('seat-box');
  const mine = (rememberedSeats()[view.game] || []);
  const open = (st.players || []).filter((p) => p.open);
  box.hidden = !watching || st.over || (!mine.length && !open.length);
  const buttons = $('my-seats');
  buttons.replaceChildren();
  for (const s of mine)
    buttons.append(el('button', { type: 'button', text: `Play ${playerName(st.players, s.seat)}`,
      onclick: () => { setTabSeat(view.game, s.seat, s.token); view.seat = s.seat; view.token = s.token; join(); } }));
  for (const p of open)
    buttons.append(el('button', { type: 'button', text: `Take the open seat ${p.seat + 1}`,
      onclick: () => claim(view.game, p.seat) }));
}

// A seat gone at its turn past the server's grace: the other players may
// give it to a bot or claim the game (docs/server.md, "Clocks").
function renderLeaver(st) {
  const gone = st.leaver?.seat;
  const box = $('leaver-box');
  box.hidden = typeof gone !== 'number' || typeof st.you !== 'number' || gone === st.you || !!st.over;
  if (box.hidden) return;
  $('leaver-text').textContent = `${playerName(st.players, gone)} left the game at their turn and has not come back. ` +
    'Their clock keeps running; you may also let a bot play their seat, or claim the game (they are ranked last).';
  $('leaver-bot').textContent = `Let a bot play ${playerName(st.players, gone)}`;
}

function renderResult(st) {
  const box = $('result');
  box.hidden = !st.over;
  $('board-over').hidden = true;
  if (!st.over) return;
  const r = st.result || {};
  const parts = [];
  (r.scores || []).forEach((s, i) => parts.push(`${playerName(st.players, i)} ${s}`));
  const winners = (r.winners || []).map((w) => playerName(st.players, w));
  let text = parts.length ? 'Final scores: ' + parts.join(', ') + '.' : '';
  if (winners.length) text += ` Winner${winners.length > 1 ? 's' : ''}: ${winners.join(', ')}.`;
  if (r.reason === 'flag' && r.flagged !== null && r.flagged !== undefined)
    text += ` ${playerName(st.players, r.flagged)} ran out of time.`;
  if (r.reason === 'left' && typeof r.flagged === 'number')
    text += ` ${playerName(st.players, r.flagged)} left; the game was claimed.`;
  $('result-text').textContent = text;
  $('board-over').hidden = false;
  $('board-over').textContent = r.reason === 'flag' ? `Game over: ${playerName(st.players, r.flagged)} ran out of time.`
    : r.reason === 'left' ? `Game over: ${playerName(st.players, r.flagged)} left; the game was claimed.` : 'Game over.';
  renderBreakdown(st);
  $('replay-link').href = '/game/' + encodeURIComponent(view.game) + '/replay.html';
}

// Game over: the points of each category by player, summed from the
// score events of the log (their category, not their text).
function renderBreakdown(st) {
  const table = breakdown(view.events);
  const box = $('breakdown');
  box.hidden = !table.size;
  if (!table.size) return;
  const seats = (st.players || []).map((p) => p.seat);
  box.tHead.replaceChildren(el('tr', {}, el('th', { scope: 'col', text: 'Category' }),
    ...seats.map((seat) => el('th', { scope: 'col', text: who(st.players, seat) }))));
  box.tBodies[0].replaceChildren(...[...table].map(([cat, row]) => el('tr', { 'data-category': cat },
    el('th', { scope: 'row', text: cat }), ...seats.map((seat) => el('td', { text: String(row.get(seat) || 0) })))));
}

// ------------------------------------------------------------ the picture
// The picture itself (sanitizing, installing it whole, patching it in
// place) is picture.js's; this is the board around it.

const MARK_CSS = `
:host { display: block; }
svg { display: block; width: 100%; height: 100%; touch-action: none; user-select: none; }
[data-cas-choices].cas-live { cursor: pointer; }
[data-cas-choices].cas-live:hover, [data-cas-choices].cas-live:focus {
  outline: 3px solid #111; outline-offset: 2px; filter: drop-shadow(0 0 4px #000); }
[data-cas-choices].cas-active { stroke: #111; stroke-width: 3px; stroke-dasharray: 6 3; }
[data-cas-choices] text, [data-cas-choices] tspan { stroke: none; }
[data-cas-choices].cas-later { opacity: .85; }
[data-cas-choices].cas-dim { opacity: .2; cursor: pointer; }
[data-cas-choices].cas-chosen { opacity: 1; outline: 4px double #111; outline-offset: 1px; }
[data-cas-choices]:focus-visible { outline: 3px solid #111; }
[data-cas-choices].cas-hint { outline: 5px solid #0b7a3b; outline-offset: 3px; }
.cas-ghost { cursor: pointer; }
.cas-ghost-frame { fill: none; stroke: #111; stroke-width: 4px; stroke-dasharray: 10 5; }
.cas-ghost:focus-visible .cas-ghost-frame { stroke-width: 7px; }
.cas-spot { cursor: pointer; }
.cas-spot .hit { fill: #fffaf0; fill-opacity: .85; stroke: #111; stroke-width: 3px; stroke-dasharray: 5 3; }
.cas-spot:hover .hit, .cas-spot:focus-visible .hit { stroke-width: 5px; }
.cas-spot.cas-chosen .hit { fill: #1f4e8c; fill-opacity: 1; stroke-dasharray: none; stroke-width: 5px; }
.cas-last-move rect { fill: none; stroke-width: 5px; }
.cas-last-move text { font: bold 15px sans-serif; fill: #111; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
`;

let viewport = null, lastMoves = null, placement = null, tray = null;
const help = new Help($('rules-panel'), $('rules-text'), $('decision-help'));

function boardRoot() {
  const host = $('board');
  if (!host.shadowRoot) {
    const root = host.attachShadow({ mode: 'open' });
    const markSheet = new CSSStyleSheet();
    markSheet.replaceSync(MARK_CSS);
    root.adoptedStyleSheets = [markSheet];
    root.addEventListener('click', onBoardClick);
    root.addEventListener('keydown', onBoardKey);
    host.addEventListener('contextmenu', (e) => {
      if (view.sel && view.sel.picked.length) { e.preventDefault(); resetSelection(); }
    });
    viewport = new Viewport(host, root);
    lastMoves = new LastMoves(viewport);
    placement = new Placement(viewport,
      { bar: $('place-bar'), rotate: $('place-rotate'), confirm: $('place-confirm'), cancel: $('place-cancel'),
        what: $('place-what'), figures: $('place-figures') },
      { choose: (m) => pickMark(m, false, true), play, reset: resetSelection, preview: askPreview,
        follow: (action) => { view.followUp = { ply: view.state.ply + 1, action }; } });
    tray = new Tray($('tray'), (m) => pickMark(m));
  }
  return host.shadowRoot;
}

// The board's picture, whole; without one, the text view in its place
// (asked for from the server when the picture is missing).
function installBoard(svgText, text) {
  const svg = installPicture(boardRoot(), svgText);
  $('text-view').hidden = !!svg;
  $('text-view').textContent = svg ? '' : (text || '');
  if (!svg) {
    if (!view.text) { view.text = true; join(true); }
    return;
  }
  const title = svg.querySelector('title')?.textContent;
  svg.setAttribute('aria-label', title ? `${title}: board` : 'board');
}

// What the page adds to the picture in place, however it came (whole, or
// patched element by element): its role, the players' names in its
// texts, the camera (board.js) and the last moves.  Safe to run again on
// the same picture.
function decorateBoard(st) {
  const svg = [...boardRoot().children].find((e) => e.localName === 'svg');
  document.querySelector('.board-tools').hidden = !svg;
  if (!svg) return;
  // A picture with choices to click is a group of controls, not an image.
  svg.setAttribute('role', st.marked ? 'group' : 'img');
  // The picture's seat labels ("Red places M") get their players' names.
  for (const t of svg.querySelectorAll('text')) {
    if (t.children.length || t.closest('.cas-overlay')) continue;
    const named = withNames(t.textContent, st.players);
    if (named !== t.textContent) t.textContent = named;
  }
  viewport.attach(view.fitPending);
  view.fitPending = false;
  lastMoves.update(st, seatColour);
}

// ----------------------------------------------------------- click to play
// view.sel: { n, cand: Set of action indices still possible, picked: marks
// clicked so far, marks: [{el, step, choices}] }.

function renderDecision(st, mine, plyChanged) {
  $('decide').hidden = !mine;
  $('hint-out').hidden = plyChanged ? true : $('hint-out').hidden;
  if (!mine) { view.sel = null; return; }
  const actions = st.actions || [];
  // A state that changes nothing of the decision (a player connects, a
  // clock is sent) keeps what was clicked so far.
  const old = view.sel;
  const keep = old && old.ply === st.ply && old.actions.join('\n') === actions.join('\n')
    ? old.picked.map((m) => old.marks.indexOf(m)) : [];
  const marks = [];
  const named = new Set();
  const svg = boardRoot().querySelector('svg');
  if (st.marked && svg) {
    for (const m of svg.querySelectorAll('[data-cas-choices]')) {
      const choices = m.getAttribute('data-cas-choices').trim().split(/\s+/)
        .map(Number).filter((i) => Number.isInteger(i) && i >= 0 && i < actions.length);
      if (!choices.length) continue;
      const step = Number.parseInt(m.getAttribute('data-cas-step'), 10) || 1;
      choices.forEach((i) => named.add(i));
      marks.push({ el: m, step, choices });
      const label = m.getAttribute('data-cas-label') || m.querySelector('title')?.textContent ||
        (choices.length === 1 ? actions[choices[0]] : `${choices.length} actions`);
      m.setAttribute('role', 'button');
      m.setAttribute('aria-label', label);
      if (!m.querySelector('title')) {
        const t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
        t.textContent = label;
        m.prepend(t);
      }
    }
  }
  view.sel = { n: actions.length, cand: new Set(actions.map((_, i) => i)), picked: [], marks, named,
    ply: st.ply, actions };
  if (keep.length && old.marks.length === marks.length)
    for (const i of keep) {
      view.sel.picked.push(marks[i]);
      view.sel.cand = new Set(marks[i].choices.filter((c) => view.sel.cand.has(c)));
    }
  $('n-actions').textContent = String(actions.length);
  if (!marks.length) $('all-actions').open = true;
  const list = $('action-list');
  list.replaceChildren(...actions.map((a, i) => actionButton(a, i)));
  const others = $('others');
  const unnamed = actions.map((a, i) => i).filter((i) => !named.has(i));
  others.replaceChildren();
  if (marks.length && unnamed.length) {
    others.append(el('p', { class: 'label', text: 'Not on the board:' }));
    for (const i of unnamed) others.append(actionButton(actions[i], i));
  }
  $('undo').disabled = !st.can_undo;
  $('hint').disabled = false;
  updateSelection();
  playFollowUp(st);
}

// A figure chosen on the ghost is played as soon as the placement's
// deploy decision comes (the ply after it); a board that went otherwise
// (the move refused, a figure no longer possible) drops it and says so.
function playFollowUp(st) {
  const f = view.followUp;
  if (!f || view.busy || st.ply < f.ply) return;
  view.followUp = null;
  const i = st.ply === f.ply && st.actor === st.you ? (st.actions || []).indexOf(f.action) : -1;
  if (i >= 0) play(i);
  else showAlert(`The tile is placed, but “${f.action}” could not be played: choose again.`);
}

// The ghost's preview (server: "preview"): one request in flight; while
// it is, only the latest one wanted waits.
function askPreview(i) {
  const st = view.state;
  if (!st?.actions?.[i]) return;
  view.preview.want = { ply: st.ply, action: st.actions[i] };
  if (view.preview.sent === null) sendPreview();
}

function sendPreview() {
  const want = view.preview.want;
  view.preview.want = null;
  view.preview.sent = want ? send({ type: 'preview', game: view.game, ply: want.ply, action: want.action }) : null;
}

function previewDone(msg) {
  if (msg.id !== view.preview.sent) return;
  view.preview.sent = null;
  sendPreview();
}

function actionButton(text, i) {
  return el('button', { type: 'button', class: 'action', 'data-action': i, text, onclick: () => play(i) });
}

function meets(choices, cand) {
  return choices.some((i) => cand.has(i));
}

// The active step is the first one not yet clicked that can still narrow
// the candidates; marks of that step that meet them are live, those of
// later steps that meet them stay visible, the rest are dimmed.
function activeStep(sel) {
  const done = new Set(sel.picked.map((m) => m.step));
  let best = Infinity;
  for (const m of sel.marks)
    if (!done.has(m.step) && m.step < best && meets(m.choices, sel.cand)) best = m.step;
  return best;
}

function updateSelection() {
  const sel = view.sel;
  if (!sel) return;
  const step = activeStep(sel);
  for (const m of sel.marks) {
    const e = m.el;
    const live = meets(m.choices, sel.cand);
    const chosen = sel.picked.includes(m);
    e.classList.toggle('cas-chosen', chosen);
    e.classList.toggle('cas-dim', !live && !chosen);
    e.classList.toggle('cas-live', live && !chosen);
    e.classList.toggle('cas-active', live && !chosen && m.step === step);
    e.classList.toggle('cas-later', live && !chosen && m.step > step);
    if (live && !chosen) e.setAttribute('tabindex', '0'); else e.removeAttribute('tabindex');
    e.setAttribute('aria-disabled', String(!live));
  }
  const n = sel.cand.size;
  const actionsWord = (k) => (k === 1 ? '1 action' : `${k} actions`);
  let words;
  if (!sel.marks.length) words = 'Choose one of the legal actions below.';
  else if (step === Infinity && n > 1) words = `${n} actions match what you clicked: pick one below.`;
  else if (step === Infinity) words = 'Confirm plays what you chose; Escape starts over.';
  else if (!sel.picked.length) words = `Step ${step}: click a highlighted place on the board (${actionsWord(n)}), or pick from the list.`;
  else words = `Step ${step}: click one of the highlighted choices (${actionsWord(n)} left). Escape starts over.`;
  $('step').textContent = words;
  document.body.dataset.step = step === Infinity ? '' : String(step);
  document.body.dataset.candidates = String(n);
  document.body.dataset.picked = sel.picked.map((m) => m.step).join(' ');
  const box = $('candidates');
  box.replaceChildren();
  if (sel.picked.length && n > 1 && n <= 40) {
    box.append(el('p', { class: 'label', text: 'Matching actions:' }));
    for (const i of [...sel.cand].sort((a, b) => a - b)) box.append(actionButton(view.state.actions[i], i));
  }
  $('reset').disabled = !sel.picked.length;
  showToPlace();
  placement.refresh(sel, step, view.state?.actions);
  if (placement.options.length)
    $('step').textContent = 'Turn the piece (click it, R or Rotate) through its legal rotations; where spots show on ' +
      'it, click one to put a figure there too; Confirm plays it, Escape starts over.';
  tray.render(boardRoot().querySelector('svg'), sel);
}

// The tile or card the decision is about, when the picture marks it
// (class "drawn" / "to-place" or data-cas-role="to-place"): shown again
// large beside the board.
function showToPlace() {
  const box = $('to-place');
  const svg = boardRoot().querySelector('svg');
  const item = svg && svg.querySelector('[data-cas-role~="to-place"], .to-place, .drawn');
  box.hidden = !item;
  if (!item) { box.replaceChildren(); return; }
  let bb;
  try { bb = item.getBBox(); } catch { bb = null; }
  if (!bb || !bb.width || !bb.height) { box.hidden = true; return; }
  const host = box.shadowRoot || box.attachShadow({ mode: 'open' });
  const pic = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  pic.setAttribute('viewBox', `${bb.x - 4} ${bb.y - 4} ${bb.width + 8} ${bb.height + 8}`);
  pic.setAttribute('role', 'img');
  pic.setAttribute('aria-label', item.getAttribute('data-cas-label') || 'to place');
  pic.style.width = '100%';
  pic.style.maxHeight = '8rem';
  for (const keep of svg.querySelectorAll(':scope > defs, :scope > style')) pic.append(keep.cloneNode(true));
  const clone = item.cloneNode(true);
  for (const m of [clone, ...clone.querySelectorAll('[data-cas-choices]')]) {
    m.removeAttribute('data-cas-choices');
    m.removeAttribute('tabindex');
    m.removeAttribute('role');
  }
  pic.append(clone);
  host.replaceChildren(pic);
}

function markOf(target) {
  const sel = view.sel;
  if (!sel) return null;
  for (let e = target; e && e.nodeType === 1; e = e.parentNode) {
    const m = sel.marks.find((q) => q.el === e);
    if (m) return m;
  }
  return null;
}

// A click on a mark narrows the candidates.  A rotation while a ghost
// is shown only turns the ghost (placement.js) until it is confirmed; a
// click that leaves one action plays it, after Confirm where the move
// could be ended by one slip of the finger (placement.offer).
function pickMark(m, byKeyboard, confirmed = false) {
  const sel = view.sel;
  if (!sel || view.busy) return;
  if (!confirmed && placement.isOption(m)) { placement.show(m); return; }
  let next = new Set(m.choices.filter((i) => sel.cand.has(i)));
  if (!next.size) {
    // A click elsewhere than the highlighted choices starts a new selection.
    sel.picked = [];
    sel.cand = new Set(Array.from({ length: sel.n }, (_, i) => i));
    next = new Set(m.choices);
  }
  sel.picked = sel.picked.filter((p) => p.step !== m.step);
  sel.picked.push(m);
  sel.cand = next;
  if (next.size === 1 && !confirmed && needsConfirm(m)) {
    updateSelection();
    placement.offer([...next][0]);
    return;
  }
  if (next.size === 1) {
    play([...next][0]);
    return;
  }
  updateSelection();
  if (byKeyboard) focusFirstChoice();
}

// A decision one click would end (its first click, or a space whose next
// step is a ghost) waits for Confirm; a later step's click is deliberate.
function needsConfirm(m) {
  return m.step === 1 || m.el.hasAttribute('data-cas-box');
}

// Keyboard users land on the active step's first live choice.
function focusFirstChoice() {
  const sel = view.sel;
  const ghost = boardRoot().querySelector('.cas-ghost');
  if (ghost) { ghost.focus(); return; }
  const step = activeStep(sel);
  const first = sel.marks.find((q) => q.step === step && meets(q.choices, sel.cand));
  if (first) first.el.focus();
}

// A label or figure drawn over a mark must not swallow its click: the
// first live mark under the pointer takes it.
function markAt(e) {
  const m = markOf(e.target);
  if (m && m.el.classList.contains('cas-live')) return m;
  for (const hit of boardRoot().elementsFromPoint(e.clientX, e.clientY)) {
    const under = markOf(hit);
    if (under && under.el.classList.contains('cas-live')) return under;
  }
  return m;
}

// A faded element is clickable too: the move starts over from it.
function onBoardClick(e) {
  const spot = e.target.closest?.('.cas-spot');
  if (spot) { e.preventDefault(); placement.pickSpot(spot.casSpot, false); return; }
  if (e.target.closest?.('.cas-ghost')) { e.preventDefault(); placement.rotate(); return; }
  const m = markAt(e);
  if (m && !m.el.classList.contains('cas-chosen')) { e.preventDefault(); pickMark(m); }
}

function onBoardKey(e) {
  if (e.key !== 'Enter' && e.key !== ' ') return;
  const spot = e.target.closest?.('.cas-spot');
  if (spot) { e.preventDefault(); placement.pickSpot(spot.casSpot, true); return; }
  if (e.target.closest?.('.cas-ghost')) {
    e.preventDefault();
    if (e.key === 'Enter') placement.confirm(); else placement.rotate();
    return;
  }
  const m = markOf(e.target);
  if (m && m.el.classList.contains('cas-live')) { e.preventDefault(); pickMark(m, true); }
}

function resetSelection() {
  const sel = view.sel;
  if (!sel) return;
  sel.picked = [];
  sel.cand = new Set(Array.from({ length: sel.n }, (_, i) => i));
  placement.clear();
  updateSelection();
  if (document.activeElement === $('board') || document.activeElement === document.body) focusFirstChoice();
}

function play(i) {
  const st = view.state;
  if (!st || view.busy || !st.actions || i < 0 || i >= st.actions.length) return;
  if (send({ type: 'act', game: view.game, ply: st.ply, action: st.actions[i] }) === null) return;
  view.busy = true;
  placement.clear();
  document.body.dataset.busy = 'true';
  $('step').textContent = `Playing “${st.actions[i]}”…`;
  for (const b of $('decide').querySelectorAll('button')) b.disabled = true;
}

// ------------------------------------------------------------ the messages

function receive(msg) {
  const what = msg.id !== undefined ? conn.pending.get(msg.id) : undefined;
  if (msg.id !== undefined) conn.pending.delete(msg.id);
  switch (msg.type) {
  case 'hello':
    showPlayer(msg.player, msg.signin_error);
    document.body.dataset.player = msg.player || ''; // who this socket acts for
    conn.protocol = msg.protocol;
    leaveLobby(); // the page went to a table before the answer came
    break;
  case 'lobby':
    if (view.screen === 'lobby') lobbyMessage(msg);
    break;
  case 'created':
    if (view.screen === 'lobby') showCreated(msg);
    break;
  case 'claimed':
    rememberSeat(msg.game, msg.seat, msg.token);
    setTabSeat(msg.game, msg.seat, msg.token);
    if (view.screen === 'table' && view.game === String(msg.game)) {
      view.seat = msg.seat; view.token = msg.token; join();
    } else {
      navigate('/game/' + encodeURIComponent(msg.game));
    }
    break;
  case 'state':
  case 'update':
    if (view.screen === 'table' && String(msg.game) === view.game) {
      delete document.body.dataset.busy;
      hideAlert();
      if (msg.type === 'state') onState(msg); else onUpdate(msg);
    }
    break;
  case 'text':
    if (view.screen === 'table' && String(msg.game) === view.game) onText(msg);
    break;
  case 'stopped':
    if (view.screen === 'table' && String(msg.game) === view.game) onStopped(msg);
    break;
  case 'hint':
    showHint(msg);
    break;
  case 'preview':
    previewDone(msg);
    if (view.screen === 'table' && String(msg.game) === view.game && msg.ply === view.state?.ply)
      placement.previewed(msg);
    break;
  case 'error':
    onError(msg, what);
    break;
  default:
    break;
  }
}

// The hint: its action in words, the reason in plain words, and on the
// board the elements that lead to it (the space, the rotation, the
// spot) ringed; "Show it" selects them, a ghost and all.
function showHint(msg) {
  const out = $('hint-out');
  out.hidden = false;
  out.replaceChildren(el('strong', { text: 'Hint: ' }), msg.action || '');
  if (msg.text && msg.text !== msg.action) out.append(el('br'), hintWords(msg.text));
  const i = (view.state?.actions || []).indexOf(msg.action);
  const sel = view.sel;
  const path = i >= 0 && sel ? sel.marks.filter((m) => m.choices.includes(i)) : [];
  for (const m of sel?.marks || []) m.el.classList.toggle('cas-hint', path.includes(m));
  if (path.length) {
    out.append(' ', el('button', { type: 'button', text: 'Show it on the board', onclick: () => {
      resetSelection();
      const steps = [...path].sort((a, b) => a.step - b.step);
      for (const m of steps) {
        if (view.busy || !view.sel?.cand.has(i)) break;
        if (placement.isOption(m)) placement.show(m);
        else if (!view.sel.picked.includes(m) && view.sel.cand.size > 1) pickMark(m);
      }
    } }));
  }
  if (i >= 0) out.append(' ', el('button', { type: 'button', text: 'Play it', onclick: () => play(i) }));
}

function onError(msg, what) {
  const code = msg.code || 'error';
  if (what === 'preview') { previewDone(msg); return; } // a board that moved on: the next state says it
  if (what === 'join' && (code === 'bad-token' || code === 'not-found') && view.seat !== null) {
    watchInstead(`This tab's seat link was refused (${code}): ${msg.message} You are watching instead.`);
    return;
  }
  if (what === 'join' && code === 'not-found') {
    // No such game (any more): nothing of an old board stays on screen.
    view.state = null;
    view.sel = null;
    for (const id of ['decide', 'result', 'seat-box']) $(id).hidden = true;
    boardRoot().replaceChildren();
    $('turn').textContent = 'There is no such game on this server.';
  }
  if (what === 'act') {
    view.followUp = null;
    view.busy = false;
    delete document.body.dataset.busy;
    view.sel = null;   // the refused move starts over
    if (view.state) renderDecision(view.state, true, false);
  }
  showAlert(`${msg.message || 'The server refused the request.'} (${code})`);
}

function showAlert(text) {
  const a = $('alert');
  a.textContent = text;
  a.hidden = false;
}

function hideAlert() {
  $('alert').hidden = true;
}

// -------------------------------------------------------------- the wiring

// Keys at the table: Escape starts the move over; with a ghost or a
// choice waiting, R turns it and Enter confirms; + - 0 C move the view.
function onKey(e) {
  if (view.screen !== 'table' || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'Escape' && view.sel && (view.sel.picked.length || placement?.active)) {
    e.preventDefault(); resetSelection(); return;
  }
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName);
  const onControl = e.target.tagName === 'BUTTON' || e.target.tagName === 'SUMMARY' || e.target.tagName === 'A';
  if (typing) return;
  if (placement?.active && (e.key === 'r' || e.key === 'R')) { e.preventDefault(); placement.rotate(); return; }
  if (placement?.active && e.key === 'Enter' && !onControl && !e.composedPath().some((n) => n.getAttribute?.('role') === 'button')) {
    e.preventDefault(); placement.confirm(); return;
  }
  if (!viewport || onControl && (e.key === 'Enter' || e.key === ' ')) return;
  const act = { '+': () => viewport.zoom(1.25), '=': () => viewport.zoom(1.25), '-': () => viewport.zoom(0.8),
    '0': () => viewport.fit(), c: () => viewport.centreOnLast(), C: () => viewport.centreOnLast() }[e.key];
  if (act) { e.preventDefault(); act(); }
}

function wire() {
  $('retry').addEventListener('click', () => { conn.attempt = 0; connect(); });
  $('preset-form').addEventListener('submit', (e) => {
    e.preventDefault();
    send({ type: 'create', preset: $('preset').value });
  });
  $('custom-form').addEventListener('submit', (e) => { e.preventDefault(); customCreate(); });
  $('game').addEventListener('change', () => { fillExpansions(); resetSeats(); });
  $('add-seat').addEventListener('click', () => addSeat('open'));
  $('remove-seat').addEventListener('click', () => {
    const list = $('seats');
    if (list.children.length > 1) list.lastElementChild.remove();
  });
  $('my-name').addEventListener('change', () => {
    try { localStorage.setItem('castellan.name', $('my-name').value.trim()); } catch { /* private mode */ }
  });
  $('reset').addEventListener('click', resetSelection);
  $('text-box').addEventListener('toggle', () => {
    const want = $('text-box').open || !boardRoot().querySelector('svg');
    if (want === view.text || view.screen !== 'table') return;
    view.text = want;
    join(true);
  });
  $('undo').addEventListener('click', () => send({ type: 'undo', game: view.game }));
  $('hint').addEventListener('click', () => send({ type: 'hint', game: view.game }));
  document.addEventListener('keydown', onKey);
  $('zoom-in').addEventListener('click', () => viewport?.zoom(1.25));
  $('zoom-out').addEventListener('click', () => viewport?.zoom(0.8));
  $('zoom-fit').addEventListener('click', () => viewport?.fit());
  $('zoom-last').addEventListener('click', () => viewport?.centreOnLast());
  wireCues({ title: $('cue-title'), sound: $('cue-sound'), notify: $('cue-notify') });
  $('notice-close').addEventListener('click', () => { $('notice').hidden = true; });
  $('leaver-bot').addEventListener('click', () => send({ type: 'leaver', game: view.game, choice: 'bot' }));
  $('leaver-claim').addEventListener('click', () => send({ type: 'leaver', game: view.game, choice: 'claim' }));
  $('auto-pass').checked = autoPass();
  $('auto-pass').addEventListener('change', (e) => {
    try { localStorage.setItem('castellan.autopass', e.target.checked ? 'on' : 'off'); } catch { /* private mode */ }
    if (view.screen === 'table' && view.seat !== null) send({ type: 'autopass', game: view.game, on: e.target.checked });
  });
  $('quick-play').checked = quickPlay();
  $('quick-play').addEventListener('change', (e) => setQuickPlay(e.target.checked));
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-nav]');
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(a.getAttribute('href'));
  });
  window.addEventListener('popstate', route);
  // A sign-in link opened in a tab already on this server changes only the
  // fragment: sign in, then open the socket again to carry the cookie.
  window.addEventListener('hashchange', () => {
    if (new URLSearchParams(location.hash.slice(1)).has('signin')) takeSignin().finally(reopen);
  });
}

function reopen() {
  const old = conn.ws;
  conn.ws = null;
  if (old) old.close();
  connect();
}

wire();
route();
// The socket opens once a sign-in link's key is kept: it carries the cookie.
takeSignin().finally(connect);

// For the browser test (tests/browser): the sanitizer on hostile input,
// and a dropped connection (as a network would drop it).
function dropConnection() {
  if (conn.ws) conn.ws.close(4000, 'test');
}

export { sanitizeSvg, dropConnection };
