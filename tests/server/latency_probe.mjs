// latency_probe.mjs — an independent client of castellan serve, to check
// the load client's latency figures (castellan bench --only serve): node
// and the `ws` package (the version pinned by tests/browser's
// package-lock.json, where `npm ci` installs it), permessage-deflate on as
// a browser has it.  It creates GAMES games of GAME on 127.0.0.1:PORT, two
// seats each, plays the first legal action of each update in which a seat
// decides after THINK ms, for SECONDS, and prints one line:
//   probe p50_ms p99_ms answered
// the time from an act's send to the arrival of the next update of a later
// ply, as the load client measures it.
//
//   node latency_probe.mjs PORT GAME EXPANSIONS_JSON GAMES THINK_MS SECONDS

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../browser/package.json'));
const WebSocket = require('ws');

const [port, game, expansions, games, think, seconds] = process.argv.slice(2);
const url = `ws://127.0.0.1:${port}/ws`;
const latencies = [];
let stop = false;

function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'castellan.v1', { perMessageDeflate: true });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function once(ws, type) {
  return new Promise((resolve) => {
    const hear = (data) => {
      const m = JSON.parse(data);
      if (m.type === type || m.type === 'error') { ws.off('message', hear); resolve(m); }
    };
    ws.on('message', hear);
  });
}

async function seat(id, index, token) {
  const ws = await open();
  let sentAt = 0, actedPly = 0;
  ws.on('message', (data) => {
    const m = JSON.parse(data);
    if (m.type !== 'state' && m.type !== 'update') return;
    if (sentAt && m.ply >= actedPly) { latencies.push(performance.now() - sentAt); sentAt = 0; }
    if (stop || m.over || m.actor !== index || actedPly === m.ply + 1 || !m.actions?.length) return;
    actedPly = m.ply + 1;
    const act = JSON.stringify({ type: 'act', game: id, ply: m.ply, action: m.actions[0] });
    setTimeout(() => { if (!stop) { sentAt = performance.now(); ws.send(act); } }, Number(think));
  });
  ws.send(JSON.stringify({ type: 'join', game: id, seat: index, token }));
  return ws;
}

const creator = await open();
const sockets = [creator];
for (let g = 0; g < Number(games); g++) {
  const reply = once(creator, 'created');
  creator.send(JSON.stringify({ type: 'create', game, expansions: JSON.parse(expansions), practice: true,
    seed: String(1000 + g), seats: [{ agent: 'human' }, { agent: 'human' }] }));
  const made = await reply;
  if (made.type !== 'created') { console.error('probe:', made.message); process.exit(1); }
  for (const s of made.seats) sockets.push(await seat(made.game, s.seat, s.token));
}
setTimeout(() => {
  stop = true;
  latencies.sort((a, b) => a - b);
  const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] : NaN);
  console.log(`probe ${at(0.5).toFixed(2)} ${at(0.99).toFixed(2)} ${latencies.length}`);
  for (const ws of sockets) ws.terminate();
  process.exit(0);
}, Number(seconds) * 1000);
