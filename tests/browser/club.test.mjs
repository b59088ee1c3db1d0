// club.test.mjs — the club's pages of castellan serve (docs/club.md) in
// Debian's chromium: a store with three finished games of a campaign and a
// registered player whose name is markup; every page (players, a
// leaderboard, a bot's page with its games, a player's page, a campaign) is
// checked with axe-core (no serious or critical violation), shows the
// hostile name as text (no element made of it, no script run), links the
// replays, and fits a phone's width (tables scroll inside their region).
// Nothing waits for time: every wait is for the DOM, the server or a
// process, with no clock of its own (a loaded machine is slow, not wrong);
// only the whole run is bounded, by TOTAL_MS, to stop the server and the
// browser before CTest's TIMEOUT (240 s) would leave them running.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const CASTELLAN = process.env.CASTELLAN;
const PLUGINS = process.env.CASTELLAN_PLUGIN_PATH;
const WWW = process.env.CASTELLAN_WWW;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror=alert(1)>';
const CAMPAIGN = 'Autumn <league>';
const TOTAL_MS = Number(process.env.BROWSER_TEST_MS || 220000);

for (const [name, value] of Object.entries({ CASTELLAN, CASTELLAN_PLUGIN_PATH: PLUGINS, CASTELLAN_WWW: WWW }))
  if (!value) { console.error(`club.test.mjs: ${name} is not set (CTest sets it; see tests/browser/CMakeLists.txt)`); process.exit(2); }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-club-'));
const env = { ...process.env, XDG_DATA_HOME: tmp, XDG_CONFIG_HOME: path.join(tmp, 'config') };
const db = path.join(tmp, 'castellan', 'saves.db');
let server = null, browser = null;

function log(...words) { console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...words); }

async function cleanup() {
  if (browser) await browser.close().catch(() => {});
  if (server && server.exitCode === null) server.kill('SIGTERM');
}

const guard = setTimeout(async () => {
  console.error(`club.test.mjs: not finished after ${TOTAL_MS / 1000} s; stopping`);
  await cleanup();
  process.exit(1);
}, TOTAL_MS);

// castellan serve on 127.0.0.1, any free port: its address once it says it.
function startServer() {
  const args = ['serve', '--listen', '127.0.0.1:0', '--database', db, '--www', WWW, '--plugin-path', PLUGINS,
    '--host-saved', 'all'];
  server = spawn(CASTELLAN, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  server.said = '';
  server.exited = new Promise((done) => server.once('exit', (code, signal) => done({ code, signal })));
  return new Promise((resolve, reject) => {
    server.stderr.setEncoding('utf8').on('data', (chunk) => {
      server.said += chunk;
      const m = server.said.match(/\(port (\d+)\)/);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    server.once('exit', (code) => { reject(new Error(`castellan serve exited (${code}):\n${server.said}`)); });
  });
}

const AXE = fs.readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

async function checkAxe(page, what) {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  });
  assert.deepEqual(found, [], `axe on ${what}: ${found.join('\n')}`);
}

// The page at address: served, axe-clean, the hostile name never markup,
// no wider than the window (a phone's 390 px included).
async function visit(page, address, what) {
  const answer = await page.goto(address, { waitUntil: 'load' });
  assert.equal(answer.status(), 200, `${what}: ${answer.status()}`);
  await checkAxe(page, what);
  assert.equal(await page.$$eval('main img, main script', (e) => e.length), 0, `${what}: a name became markup`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wide <= 0, `${what}: the page is ${wide} px wider than the window`);
  log(`${what}: axe clean, no markup from names, fits the window`);
}

async function main() {
  for (let seed = 1; seed <= 3; seed++)
    execFileSync(CASTELLAN, ['play', '--game', 'fixture', '--players', 'Ada:random,Bob:greedy', '--campaign', CAMPAIGN,
      '--seed', String(seed), '--plugin-path', PLUGINS], { env, stdio: 'ignore' });
  execFileSync(CASTELLAN, ['players', 'add', HOSTILE, '--database', db], { env, stdio: 'ignore' });
  const base = await startServer();
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true,
    timeout: 0, protocolTimeout: 0, // chromium's start and each DevTools call: no clock either
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const page = await browser.newPage();
  page.setDefaultTimeout(0); // no step has a clock: TOTAL_MS bounds the run
  const alerts = [], errors = [];
  page.on('dialog', async (d) => { alerts.push(d.message()); await d.dismiss(); });
  page.on('pageerror', (e) => errors.push(String(e)));
  // The first snapshot is being made: 503 with a page that reloads itself.
  for (;;) {
    const r = await fetch(base + '/club');
    if (r.status === 200) break;
    assert.equal(r.status, 503);
    await new Promise((done) => setTimeout(done, 100));
  }
  for (const phone of [false, true]) {
    await page.setViewport(phone ? { width: 390, height: 844, isMobile: true, hasTouch: true }
      : { width: 1280, height: 860 });
    const on = phone ? ' (phone)' : '';
    await visit(page, base + '/club', 'the players page' + on);
    const names = await page.$$eval('main table a', (as) => as.map((a) => a.textContent));
    assert.ok(names.includes(HOSTILE), `the hostile name is shown as text: ${names}`);
    await visit(page, base + '/club/pool/fixture', 'the fixture leaderboard' + on);
    const rows = await page.$$eval('tbody tr', (trs) => trs.length);
    assert.equal(rows, 2, 'random and greedy are rated');
    await visit(page, base + '/club/bot/greedy', "greedy's page" + on);
    const replays = await page.$$eval('a[href$="/replay.html"]', (as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(replays, ['/game/3/replay.html', '/game/2/replay.html', '/game/1/replay.html']);
    await visit(page, base + '/club/player/' + encodeURIComponent(HOSTILE), "the hostile player's page" + on);
    assert.equal(await page.$eval('h1', (h) => h.textContent), HOSTILE);
    await visit(page, base + '/club/campaign/' + encodeURIComponent(CAMPAIGN), 'the campaign' + on);
    assert.equal(await page.$eval('h1', (h) => h.textContent), CAMPAIGN);
  }
  const replay = await fetch(base + '/game/1/replay.html');
  assert.equal(replay.status, 200, 'the linked replay is served');
  assert.deepEqual(alerts, [], 'no script ran');
  assert.deepEqual(errors, [], 'no script errors');
  // Stopped as a user would: exit 0, no sanitizer report (the ASan build
  // runs this test too).
  server.kill('SIGTERM');
  const { code, signal } = await server.exited;
  assert.equal(signal, null, `castellan serve was killed by ${signal}`);
  assert.equal(code, 0, `castellan serve exits 0 on SIGTERM; it said:\n${server.said}`);
  assert.doesNotMatch(server.said, /Sanitizer|runtime error/, 'no sanitizer report from castellan serve');
  log('passed');
}

main().then(async () => { await cleanup(); clearTimeout(guard); fs.rmSync(tmp, { recursive: true, force: true }); },
  async (e) => { console.error(e); await cleanup(); process.exit(1); });
