// replay.test.mjs — the served replay page on a phone (CTest
// browser_replay_phone): a seeded Carcassonne game with all five
// expansions and five greedy players is played at the terminal, then
// `castellan serve` (127.0.0.1, any free port) shows its replay.  Three
// requests at once while nothing is built yet all get the page (built once,
// off the event loop; docs/server.md "Replay pages"), gzip-compressed and
// under the size bound.  Debian's chromium, headless, with a phone's
// viewport and touch, opens it, steps forward and back by taps and keys,
// jumps with the slider and to the end and the start, and at every stop the
// board shows the very picture `castellan render` makes of that ply (each
// keyed element, byte for byte as the browser serializes it).  The page must
// raise no error.
//
// Nothing waits for time: every wait is for the DOM or a process, with no
// clock of its own (a loaded machine is slow, not wrong); only the whole
// run is bounded, by TOTAL_MS, to stop the server and the browser before
// CTest's TIMEOUT would leave them running.  Environment as
// play.test.mjs's.

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const CASTELLAN = process.env.CASTELLAN;
const PLUGINS = process.env.CASTELLAN_PLUGIN_PATH;
const WWW = process.env.CASTELLAN_WWW;
const OUT = process.env.OUT_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-shots-'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TOTAL_MS = Number(process.env.BROWSER_TEST_MS || 380000);
const EXPANSIONS = 'inns-cathedrals,traders-builders,abbey-mayor,king-robber,castles-germany';
const PAGE_BOUND = 1.5 * 1024 * 1024; // bytes of HTML, before compression

for (const [name, value] of Object.entries({ CASTELLAN, CASTELLAN_PLUGIN_PATH: PLUGINS, CASTELLAN_WWW: WWW }))
  if (!value) { console.error(`replay.test.mjs: ${name} is not set (CTest sets it; see tests/browser/CMakeLists.txt)`); process.exit(2); }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-replay-'));
const env = { ...process.env, XDG_DATA_HOME: path.join(tmp, 'data'), XDG_CONFIG_HOME: path.join(tmp, 'config') };
let server = null, browser = null;

function log(...words) { console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...words); }

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  browser = null;
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((done) => { server.once('exit', done); setTimeout(() => { server.kill('SIGKILL'); done(); }, 10000).unref(); });
  }
  server = null;
}

const guard = setTimeout(async () => {
  console.error(`replay.test.mjs: not finished after ${TOTAL_MS / 1000} s; stopping`);
  await cleanup();
  process.exit(1);
}, TOTAL_MS);

function castellan(...args) {
  return execFileSync(CASTELLAN, [...args, '--plugin-path', PLUGINS], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
}

function startServer() {
  const args = ['serve', '--listen', '127.0.0.1:0', '--host-saved', 'all', '--www', WWW, '--plugin-path', PLUGINS];
  log('starting', CASTELLAN, args.join(' '));
  const proc = spawn(CASTELLAN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server = proc;
  proc.said = '';
  return new Promise((resolve, reject) => {
    const hear = (chunk) => {
      proc.said += chunk;
      const m = proc.said.match(/\(port (\d+)\)/);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    };
    proc.stdout.setEncoding('utf8').on('data', hear);
    proc.stderr.setEncoding('utf8').on('data', hear);
    proc.once('exit', (code) => { reject(new Error(`castellan serve exited (${code}):\n${proc.said}`)); });
  });
}

// GET url asking for gzip: the status, the headers and the bytes as sent.
function getRaw(url) {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, bytes: Buffer.concat(parts) }));
    }).on('error', reject);
  });
}

// In the page: the board's keyed elements as [key, serialized] and its
// viewBox, or those of `text` (a whole render) parsed and imported the
// same way.
function boardPicture(text) {
  const list = (svg) => ({
    viewBox: svg.getAttribute('viewBox'),
    parts: [...svg.children].map((e) => [e.getAttribute('data-cas-key'), e.outerHTML]),
  });
  if (text === undefined) return list(document.querySelector('#board > svg'));
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  return list(document.importNode(doc.documentElement, true));
}

async function expectPly(page, ply, how) {
  await page.waitForFunction((p) => document.body.dataset.ply === String(p), { timeout: 0 }, ply);
  const shown = await page.evaluate(boardPicture);
  const full = await page.evaluate(boardPicture, castellan('render', '1', '--ply', String(ply), '--viewer', 'public'));
  assert.equal(shown.viewBox, full.viewBox, `ply ${ply} (${how}): the board's viewBox is the render's`);
  assert.equal(shown.parts.length, full.parts.length, `ply ${ply} (${how}): as many elements as the render`);
  shown.parts.forEach(([key, html], i) => {
    assert.equal(key, full.parts[i][0], `ply ${ply} (${how}): element ${i} is the render's`);
    assert.equal(html, full.parts[i][1], `ply ${ply} (${how}): element ${key} is the render's`);
  });
  log(`ply ${ply} (${how}): the same ${shown.parts.length} elements as the render`);
}

async function main() {
  castellan('play', '--game', 'carcassonne', '--expansions', EXPANSIONS, '--players',
    'greedy,greedy,greedy,greedy,greedy', '--seed', '5');
  const base = await startServer();
  const url = `${base}/game/1/replay.html`;

  // three at once, nothing built yet: one build, three answers
  const answers = await Promise.all([getRaw(url), getRaw(url), getRaw(url)]);
  for (const a of answers) {
    assert.equal(a.status, 200, 'the replay page is served');
    assert.equal(a.headers['content-encoding'], 'gzip', 'the replay page is sent gzip-compressed');
    assert.deepEqual(a.bytes, answers[0].bytes, 'every waiting request gets the same page');
  }
  log(`replay page: ${answers[0].bytes.length} bytes sent (gzip)`);

  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true,
    timeout: 0, protocolTimeout: 0, // chromium's start and each DevTools call: no clock either
    userDataDir: fs.mkdtempSync(path.join(tmp, 'profile-')),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(0); // no step has a clock: TOTAL_MS bounds the run
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // a phone: 390 x 844 CSS pixels, touch, three device pixels each
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  const got = await page.goto(url);
  assert.equal(got.status(), 200);
  const html = await got.text();
  assert.ok(html.length <= PAGE_BOUND, `the page is ${html.length} bytes, at most ${PAGE_BOUND}`);
  log(`replay page: ${html.length} bytes of HTML`);
  await expectPly(page, 0, 'opened');

  // the board takes the phone's width, the controls come under it
  const layout = await page.evaluate(() => {
    const b = document.querySelector('#board > svg').getBoundingClientRect();
    const n = document.getElementById('next').getBoundingClientRect();
    return { width: b.width, height: b.height, below: n.top >= b.bottom, right: n.right, page: document.documentElement.scrollWidth };
  });
  assert.ok(layout.width >= 300 && layout.height >= 100, `the board is drawn at the phone's width (${JSON.stringify(layout)})`);
  assert.ok(layout.below && layout.right <= 390 && layout.page <= 390, `the controls fit under the board (${JSON.stringify(layout)})`);
  await page.screenshot({ path: path.join(OUT, 'phone-replay.png') });

  const last = Number(await page.$eval('#slider', (s) => s.max));
  assert.ok(last > 400, `a long game (${last} plies)`);
  for (let i = 1; i <= 3; i++) await page.tap('#next');
  await expectPly(page, 3, 'three taps forward');
  await page.tap('#prev');
  await expectPly(page, 2, 'a tap back');
  const jump = async (to) => page.$eval('#slider', (s, v) => { s.value = String(v); s.dispatchEvent(new Event('input')); }, to);
  await jump(217);
  await expectPly(page, 217, 'slider jump');
  await page.keyboard.press('ArrowRight');
  await expectPly(page, 218, 'a step forward after a jump');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expectPly(page, 216, 'two steps back');
  await page.tap('#last');
  await expectPly(page, last, 'to the end');
  await page.tap('#prev');
  await expectPly(page, last - 1, 'back from the end');
  await jump(33);
  await expectPly(page, 33, 'a jump back');
  await page.tap('#first');
  await expectPly(page, 0, 'to the start');
  await page.goto(`${url}#ply=100`);
  await page.reload();
  await expectPly(page, 100, 'opened at #ply=100');
  await page.screenshot({ path: path.join(OUT, 'phone-replay-ply100.png') });

  assert.deepEqual(errors, [], 'the replay page raised no error');

  // the server stops cleanly: exit 0, no sanitizer report (the ASan build
  // runs this test too), the builder thread and the kept pages freed
  const exited = new Promise((done) => server.once('exit', (code, signal) => done({ code, signal })));
  server.kill('SIGTERM');
  const { code, signal } = await exited;
  assert.equal(signal, null, `castellan serve was killed by ${signal}`);
  assert.equal(code, 0, `castellan serve exits 0 on SIGTERM; it said:\n${server.said}`);
  assert.doesNotMatch(server.said, /Sanitizer|runtime error/, 'no sanitizer report from castellan serve');
}

main().then(async () => {
  await cleanup();
  clearTimeout(guard);
  fs.rmSync(tmp, { recursive: true, force: true });
  log('replay.test.mjs: passed');
}, async (e) => {
  console.error(e);
  await cleanup();
  clearTimeout(guard);
  process.exit(1);
});
