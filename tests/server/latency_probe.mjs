// latency_probe.mjs — an independent client of castellan serve, to check
// the load client's latency figures (castellan bench --only serve): node
// and the `ws` package (the version pinned by tests/browser's
// package-lock.json, where `npm ci` installs it), permessage-deflate on as
// a browser has it, sharing no code with the load client (host/clients/
// loadgen.c, on libwebsockets).  It creates GAMES games of GAME on
// 127.0.0.1:PORT, two seats each, plays the first legal action of each
// update in which a seat decides after THINK ms, for SECONDS (0: until
// every game is over), and prints one line:
//   probe p50_ms p99_ms answered games_over errors
// the time from an act's send to the arrival of the next update of a later
// ply, as the load client measures it.
//
//   node latency_probe.mjs PORT GAME EXPANSIONS_JSON GAMES THINK_MS SECONDS
//
// latency_probe.test.mjs plays it to the end against a server (CTest
// serve_independent_client): correctness only, no timing.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../browser/package.json'));
const WebSocket = require('ws');

function open(url) {
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

// Play the games; resolves with what was seen once SECONDS are over, or
// (seconds 0) once every seat saw its game end.
export async function probe({ port, game, expansions = [], games = 10, think = 200, seconds = 0 }) {
  const url = `ws://127.0.0.1:${port}/ws`;
  const seen = { latencies: [], acts: 0, errors: [], seatsOver: 0, seats: 2 * games, plyBackwards: 0, lastOver: null };
  const sockets = [];
  let stop = false, finish;
  const finished = new Promise((resolve) => { finish = resolve; });

  async function seat(id, index, token) {
    const ws = await open(url);
    let sentAt = 0, actedPly = 0, lastPly = -1, over = false;
    ws.on('message', (data) => {
      const m = JSON.parse(data);
      if (m.type === 'error') seen.errors.push(m);
      if (m.type !== 'state' && m.type !== 'update') return;
      if (m.ply < lastPly) seen.plyBackwards++;
      lastPly = m.ply;
      if (sentAt && m.ply >= actedPly) { seen.latencies.push(performance.now() - sentAt); sentAt = 0; }
      if (m.over && !over) {
        over = true;
        seen.lastOver = m;
        if (++seen.seatsOver === seen.seats && !seconds) finish();
      }
      if (stop || m.over || m.actor !== index || actedPly === m.ply + 1 || !m.actions?.length) return;
      actedPly = m.ply + 1;
      const act = JSON.stringify({ type: 'act', game: id, ply: m.ply, action: m.actions[0] });
      setTimeout(() => { if (!stop) { sentAt = performance.now(); seen.acts++; ws.send(act); } }, think);
    });
    ws.send(JSON.stringify({ type: 'join', game: id, seat: index, token }));
    sockets.push(ws);
  }

  const creator = await open(url);
  sockets.push(creator);
  for (let g = 0; g < games; g++) {
    const reply = once(creator, 'created');
    creator.send(JSON.stringify({ type: 'create', game, expansions, practice: true,
      seed: String(1000 + g), seats: [{ agent: 'human' }, { agent: 'human' }] }));
    const made = await reply;
    if (made.type !== 'created') throw new Error(`probe: ${made.message}`);
    for (const s of made.seats) await seat(made.game, s.seat, s.token);
  }
  if (seconds) setTimeout(finish, seconds * 1000);
  await finished;
  stop = true;
  for (const ws of sockets) ws.terminate();
  return seen;
}

export function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] : NaN;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [port, game, expansions, games, think, seconds] = process.argv.slice(2);
  const seen = await probe({ port, game, expansions: JSON.parse(expansions), games: Number(games),
    think: Number(think), seconds: Number(seconds) });
  const l = seen.latencies.sort((a, b) => a - b);
  console.log(`probe ${quantile(l, 0.5).toFixed(2)} ${quantile(l, 0.99).toFixed(2)} ${l.length} ` +
    `${seen.seatsOver / 2} ${seen.errors.length}`);
  process.exit(0);
}
