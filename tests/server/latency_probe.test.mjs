// latency_probe.test.mjs — CTest serve_independent_client: the independent
// client (latency_probe.mjs: node and ws, no code shared with the load
// client) plays whole Carcassonne games against `castellan serve` on
// 127.0.0.1, so its latency figures beside the load client's (castellan
// bench --only serve, CASTELLAN_SERVE_PROBE) come from correct games:
// every game ends, no error is answered, plies only go forward, the
// server stops cleanly.  Correctness only: nothing here is timed but the
// bound that ends a hung run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probe } from './latency_probe.mjs';

const CASTELLAN = process.env.CASTELLAN;
const PLUGINS = process.env.CASTELLAN_PLUGIN_PATH;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-probe-'));
const guard = setTimeout(() => { console.error('latency_probe.test.mjs: not finished after 600 s'); process.exit(1); }, 600000);

const server = spawn(CASTELLAN, ['serve', '--listen', '127.0.0.1:0', '--database', path.join(dir, 's.db'),
  '--plugin-path', PLUGINS], { stdio: ['ignore', 'pipe', 'pipe'] });
let said = '';
const exited = new Promise((done) => server.once('exit', (code, signal) => done({ code, signal })));
const port = await new Promise((resolve, reject) => {
  const hear = (chunk) => {
    said += chunk;
    const m = said.match(/\(port (\d+)\)/) || said.match(/http:\/\/127\.0\.0\.1:([1-9]\d*)/);
    if (m) resolve(Number(m[1]));
  };
  server.stdout.setEncoding('utf8').on('data', hear);
  server.stderr.setEncoding('utf8').on('data', hear);
  server.once('exit', (code) => reject(new Error(`castellan serve exited (${code}):\n${said}`)));
});

try {
  const seen = await probe({ port, game: 'carcassonne', games: 2, think: 0, seconds: 0 });
  assert.deepEqual(seen.errors, [], 'the server answered no act with an error');
  assert.equal(seen.seatsOver, 4, 'both seats of both games saw their game end');
  assert.equal(seen.plyBackwards, 0, 'no seat saw a ply older than one it had seen');
  assert.ok(seen.acts > 20, `whole games were played (${seen.acts} acts)`);
  assert.equal(seen.latencies.length, seen.acts, 'every act was answered by an update');
  assert.equal(seen.lastOver.over, true);
  console.log(`serve_independent_client: 2 games played to the end, ${seen.acts} acts answered`);
} finally {
  server.kill('SIGTERM');
  const { code, signal } = await exited;
  fs.rmSync(dir, { recursive: true, force: true });
  clearTimeout(guard);
  assert.equal(signal, null, `castellan serve was killed by ${signal}`);
  assert.equal(code, 0, `castellan serve exits 0 on SIGTERM; it said:\n${said}`);
}
