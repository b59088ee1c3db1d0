// latency_probe.test.mjs — CTest serve_independent_client: the independent
// client (latency_probe.mjs: node and ws, no code shared with the load
// client) plays whole Carcassonne games against `castellan serve` on
// 127.0.0.1, so its latency figures beside the load client's (castellan
// bench --only serve, CASTELLAN_SERVE_PROBE) come from correct games:
// every game ends, no error is answered, plies only go forward, the
// server stops cleanly.  Correctness only: nothing here is timed but the
// bound that ends a hung run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probe } from './latency_probe.mjs';
import { startServe } from './serve_spawn.mjs';

const CASTELLAN = process.env.CASTELLAN;
const PLUGINS = process.env.CASTELLAN_PLUGIN_PATH;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-probe-'));
const guard = setTimeout(() => { console.error('latency_probe.test.mjs: not finished after 600 s'); process.exit(1); }, 600000);

// The probe's seats act the moment their update comes (think 0): on a fast
// server that is past the per-connection rate limit (20 a second, bursts of
// 40), whose dropped act would stall the game.  The limit is not what this
// checks, so it is lifted, and the test does not depend on the server's speed.
fs.writeFileSync(path.join(dir, 'serve.ini'), '[server]\nrate = 100000\nburst = 100000\n');
const { port, stop } = await startServe({ castellan: CASTELLAN, plugins: PLUGINS, dir,
  args: ['--config', path.join(dir, 'serve.ini')] });

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
  const { code, signal, said } = await stop();
  fs.rmSync(dir, { recursive: true, force: true });
  clearTimeout(guard);
  assert.equal(signal, null, `castellan serve was killed by ${signal}`);
  assert.equal(code, 0, `castellan serve exits 0 on SIGTERM; it said:\n${said}`);
}
