// update_bytes.mjs — what a whole game's updates weigh, per recipient:
// the measuring client behind docs/server.md "What an update carries".
// It starts `castellan serve --in-process` on 127.0.0.1 (port 0), creates one game of
// two human seats from a fixed seed, joins both seats with node's `ws`
// (permessage-deflate on, as a browser offers it; the version pinned by
// tests/browser's package-lock.json), and plays every decision with the
// legal action at index ply % count until the game ends.  For every
// update each seat receives it keeps the bytes on the wire (the frame as
// read off the socket: header and compressed payload), the raw JSON, and
// how much of it is `actions` and `svg_changes`, split by the keys put
// (digits folded: "ms3,-1" and "ms0,2" count as "ms#") and removed.  The
// same seed and picks play the same game on any build, so two builds'
// figures compare update for update.
//
//   CASTELLAN=build/host/castellan CASTELLAN_PLUGIN_PATH=build/plugins \
//     node tests/server/update_bytes.mjs [--seed S] [--expansions a,b,...] [--json FILE]
//       [--messages FILE]
//
// Prints, for the decider's updates and the other seat's: count, mean
// and median raw bytes, mean and median wire bytes, mean `actions` and
// `svg_changes`, and the mean bytes per update of each key group put
// (JSON-escaped, as sent).  --json writes every update's figures;
// --messages every state and update each seat received, as received (the
// game's id and the message numbers, which follow the clock, aside), seat
// by seat: two builds' files are the same when they send the same bytes.
// It
// exits 1 when the server answered an error, a frame could not be read
// off the socket or the server did not stop cleanly (CTest
// serve_update_bytes runs it over one game).

import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve_spawn.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../browser/package.json'));
const WebSocket = require('ws');

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const seed = opt('--seed', '7');
const expansions = opt('--expansions', '') ? opt('--expansions', '').split(',') : [];
const jsonOut = opt('--json', null);
const messagesOut = opt('--messages', null);
const CASTELLAN = process.env.CASTELLAN, PLUGINS = process.env.CASTELLAN_PLUGIN_PATH;
if (!CASTELLAN || !PLUGINS || args.includes('--help')) {
  console.log('usage: CASTELLAN=BIN CASTELLAN_PLUGIN_PATH=DIR node update_bytes.mjs [--seed S] ' +
    '[--expansions a,b] [--json FILE] [--messages FILE]');
  process.exit(args.includes('--help') ? 0 : 2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-bytes-'));
const guard = setTimeout(() => { console.error('update_bytes.mjs: not finished after 600 s'); process.exit(1); }, 600000);
// The seats act as fast as their updates come: past the per-connection rate limit.
fs.writeFileSync(path.join(dir, 'serve.ini'), '[server]\nrate = 100000\nburst = 100000\n');
const { port, stop } = await startServe({ castellan: CASTELLAN, plugins: PLUGINS, dir,
  args: ['--in-process', '--config', path.join(dir, 'serve.ini')] });
const url = `ws://127.0.0.1:${port}/ws`;

// The sizes of the data frames read off ws's socket, in order: read
// before ws's own reader sees the bytes, so a message's size is queued
// before its event.
function frameSizes(socket) {
  const sizes = [];
  let pending = Buffer.alloc(0), message = 0;
  socket.prependListener('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 2) return;
      const fin = pending[0] & 0x80, opcode = pending[0] & 0x0f;
      let len = pending[1] & 0x7f, head = 2;
      if (len === 126) { if (pending.length < 4) return; len = pending.readUInt16BE(2); head = 4; }
      else if (len === 127) { if (pending.length < 10) return; len = Number(pending.readBigUInt64BE(2)); head = 10; }
      if (pending.length < head + len) return;
      pending = pending.subarray(head + len);
      if (opcode >= 8) continue; /* ping, pong, close */
      message += head + len;
      if (fin) { sizes.push(message); message = 0; }
    }
  });
  return sizes;
}

function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'castellan.v1', { perMessageDeflate: true });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const group = (key) => key.replace(/-?[0-9]+/g, '#');
const updates = [];
const received = [[], []]; /* per seat, for --messages */

function weigh(m, seat, raw, wire) {
  const u = { seat, ply: m.ply, decider: m.actor === seat && !!m.actions?.length, raw, wire,
    actions: m.actions ? JSON.stringify(m.actions).length : 0,
    svg: m.svg ? JSON.stringify(m.svg).length : 0,
    changes: m.svg_changes ? JSON.stringify(m.svg_changes).length : 0, put: {}, removed: {} };
  const c = m.svg_changes;
  if (c?.root) u.put.root = JSON.stringify(c.root).length;
  for (const [key, , text] of c?.put || []) {
    const g = group(key);
    u.put[g] = (u.put[g] || 0) + JSON.stringify(text).length;
  }
  for (const key of c?.remove || []) u.removed[group(key)] = (u.removed[group(key)] || 0) + 1;
  updates.push(u);
}

const finished = new Promise((resolve) => {
  let over = 0;
  globalThis.seatOver = () => { if (++over === 2) resolve(); };
});
const errors = [];

async function join(id, index, token) {
  const ws = await open();
  const sizes = frameSizes(ws._socket);
  let over = false, acted = -1;
  ws.on('message', (data) => {
    const raw = data.length, wire = sizes.shift();
    const m = JSON.parse(data);
    if (m.type === 'error') errors.push(m);
    if (m.type !== 'state' && m.type !== 'update') return;
    if (messagesOut) received[index].push(data.toString().replace(/"game":"[0-9]+"/g, '"game":"-"')
      .replace(/"seq":[0-9]+/g, '"seq":-'));
    if (m.type === 'update') weigh(m, index, raw, wire);
    if (m.over && !over) { over = true; globalThis.seatOver(); }
    if (m.over || m.actor !== index || !m.actions?.length || m.ply === acted) return;
    acted = m.ply;
    ws.send(JSON.stringify({ type: 'act', game: id, ply: m.ply, action: m.actions[m.ply % m.actions.length] }));
  });
  ws.send(JSON.stringify({ type: 'join', game: id, seat: index, token }));
  return ws;
}

const creator = await open();
const made = await new Promise((resolve) => {
  creator.on('message', (d) => { const m = JSON.parse(d); if (m.type === 'created' || m.type === 'error') resolve(m); });
  creator.send(JSON.stringify({ type: 'create', game: 'carcassonne', expansions, practice: true, seed,
    seats: [{ agent: 'human' }, { agent: 'human' }] }));
});
if (made.type !== 'created') { console.error('create refused:', JSON.stringify(made)); process.exit(1); }
const sockets = [];
for (const s of made.seats) sockets.push(await join(made.game, s.seat, s.token));
await finished;

const mean = (xs) => xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : 0; };
const fmt = (x) => Math.round(x).toLocaleString('en');
console.log(`update_bytes: seed ${seed}, expansions [${expansions.join(',')}], ${updates.length} updates` +
  `, ${errors.length} errors`);
for (const [name, us] of [['decider', updates.filter((u) => u.decider)], ['other', updates.filter((u) => !u.decider)]]) {
  console.log(`${name}: ${us.length} updates; raw mean ${fmt(mean(us.map((u) => u.raw)))} median ` +
    `${fmt(median(us.map((u) => u.raw)))} max ${fmt(Math.max(...us.map((u) => u.raw)))}; wire mean ` +
    `${fmt(mean(us.map((u) => u.wire)))} median ${fmt(median(us.map((u) => u.wire)))} max ` +
    `${fmt(Math.max(...us.map((u) => u.wire)))}; actions ${fmt(mean(us.map((u) => u.actions)))}; ` +
    `svg_changes ${fmt(mean(us.map((u) => u.changes)))}; whole svg ${fmt(mean(us.map((u) => u.svg)))}`);
  const groups = {};
  for (const u of us) for (const [g, b] of Object.entries(u.put)) groups[g] = (groups[g] || 0) + b;
  const removed = {};
  for (const u of us) for (const [g, n] of Object.entries(u.removed)) removed[g] = (removed[g] || 0) + n;
  const top = Object.entries(groups).sort((a, b) => b[1] - a[1]).slice(0, 14);
  console.log('  put per update: ' + top.map(([g, b]) => `${g} ${fmt(b / us.length)}`).join(', '));
  console.log('  removed per update: ' + Object.entries(removed).sort((a, b) => b[1] - a[1]).slice(0, 10)
    .map(([g, n]) => `${g} ${(n / us.length).toFixed(2)}`).join(', '));
}
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(updates));
if (messagesOut) fs.writeFileSync(messagesOut, received.map((ms, i) => ms.map((m) => `${i} ${m}\n`).join('')).join(''));
for (const ws of [creator, ...sockets]) ws.close();
const { code, signal, said } = await stop();
fs.rmSync(dir, { recursive: true, force: true });
clearTimeout(guard);
const unread = updates.filter((u) => !(u.wire > 0)).length;
if (errors.length || code !== 0 || signal || unread || !updates.length) {
  console.error(`update_bytes.mjs: ${errors.length} errors (${JSON.stringify(errors[0])}), ` +
    `${updates.length} updates, ${unread} without a frame read, server exit ${code} ${signal}:\n${said}`);
  process.exit(1);
}
