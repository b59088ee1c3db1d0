// play.test.mjs — the real-browser test of castellan serve and its client
// (issue 31, deliverable 7): Debian's chromium, headless, driven by
// puppeteer-core.  It starts `castellan serve` on 127.0.0.1 (any free port)
// with a fresh database, creates a Carcassonne + Inns & Cathedrals game
// from the lobby page, and two pages play it to the end by clicking the
// board's marks (always the first highlighted element of each step; a
// button when nothing on the board is left to click).  Page A undoes one
// move, page B reloads mid-game and plays on, page C watches: every
// WebSocket frame it receives is checked to carry no actions, marks, seat
// or token.  At the end the three pages show the same scores, and the game
// is in the store as finished with those scores.
//
// Nothing waits for time: every wait is for the DOM or a process, with no
// clock of its own (a loaded machine is slow, not wrong); only the whole
// run is bounded, by TOTAL_MS, to stop the server and the browser before
// CTest's TIMEOUT (600 s) would leave them running.  Screenshots go
// to OUT_DIR.  Environment (set by CTest, tests/browser/CMakeLists.txt):
// CASTELLAN (the executable), CASTELLAN_PLUGIN_PATH, CASTELLAN_WWW,
// OUT_DIR, CHROMIUM (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const CASTELLAN = process.env.CASTELLAN;
const PLUGINS = process.env.CASTELLAN_PLUGIN_PATH;
const WWW = process.env.CASTELLAN_WWW;
const OUT = process.env.OUT_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-shots-'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TOTAL_MS = Number(process.env.BROWSER_TEST_MS || 580000);
const SEED = '20261203';
const RELOAD_AT = 20;      // page B reloads at its first decision from this ply on
const KEYBOARD_AT = 50;   // page B plays one decision by the keyboard
const DROP_AT = 40;       // page B's socket drops
const RESTART_AT = 60;    // the server restarts
const MAX_PLIES = 2000;    // a loop guard far above a game's length

for (const [name, value] of Object.entries({ CASTELLAN, CASTELLAN_PLUGIN_PATH: PLUGINS, CASTELLAN_WWW: WWW }))
  if (!value) { console.error(`play.test.mjs: ${name} is not set (CTest sets it; see tests/browser/CMakeLists.txt)`); process.exit(2); }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'castellan-browser-'));
const db = path.join(tmp, 'saves.db');
const env = { ...process.env, XDG_DATA_HOME: path.join(tmp, 'data'), XDG_CONFIG_HOME: path.join(tmp, 'config') };
let server = null, browser = null;
const opened = [];

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

// The whole run is bounded: past TOTAL_MS everything is stopped.
const guard = setTimeout(async () => {
  console.error(`play.test.mjs: not finished after ${TOTAL_MS / 1000} s; stopping`);
  await cleanup();
  process.exit(1);
}, TOTAL_MS);

// ----------------------------------------------------------------- server

async function startServer(port = 0) {
  const args = ['serve', '--listen', `127.0.0.1:${port}`, '--database', db, '--www', WWW, '--plugin-path', PLUGINS];
  log('starting', CASTELLAN, args.join(' '));
  const proc = spawn(CASTELLAN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server = proc;
  proc.said = '';
  proc.exited = new Promise((done) => proc.once('exit', (code, signal) => done({ code, signal })));
  return new Promise((resolve, reject) => {
    let found = false;
    const hear = (chunk) => {
      proc.said += chunk;
      const said = proc.said;
      process.stdout.write('serve: ' + chunk);
      // "listening on http://127.0.0.1:0 (port 41234)": the port it got.
      const m = said.match(/\(port (\d+)\)/) || said.match(/http:\/\/127\.0\.0\.1:([1-9]\d*)/);
      if (m && !found) { found = true; resolve(`http://127.0.0.1:${m[1]}`); }
    };
    proc.stdout.setEncoding('utf8').on('data', hear);
    proc.stderr.setEncoding('utf8').on('data', hear);
    proc.once('exit', (code) => { if (!found) reject(new Error(`castellan serve exited (${code}):\n${proc.said}`)); });
  });
}

// Stops a server as a user would (SIGTERM) and checks it shut down
// cleanly: exit status 0 and no sanitizer report (the ASan build runs
// this test too).
async function stopServer(proc) {
  proc.kill('SIGTERM');
  const { code, signal } = await proc.exited;
  assert.equal(signal, null, `castellan serve was killed by ${signal}`);
  assert.equal(code, 0, `castellan serve exits 0 on SIGTERM; it said:\n${proc.said}`);
  assert.doesNotMatch(proc.said, /Sanitizer|runtime error/, 'no sanitizer report from castellan serve');
}

// ------------------------------------------------------------------ pages

async function openPage(name) {
  const ctx = await browser.createBrowserContext();   // own storage: one seat a page
  const page = await ctx.newPage();
  await page.setViewport({ width: 1280, height: 860 });
  page.setDefaultTimeout(0); // no step has a clock: TOTAL_MS bounds the run
  page.name = name;
  opened.push(page);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  return page;
}

// Every WebSocket frame the page receives (or sends: event
// 'Network.webSocketFrameSent'), as parsed JSON.
//
// The frames come on a DevTools session of their own, which need not keep
// pace with the page: what the page shows may be drawn from a frame not
// recorded yet.  frames.until(test, what) waits until a recorded frame
// passes the test, and logs `what` it waits for (named if TOTAL_MS ends
// the run meanwhile).
async function recordFrames(page, event = 'Network.webSocketFrameReceived') {
  const frames = [];
  const waiting = new Set();
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on(event, ({ response }) => {
    try { frames.push(JSON.parse(response.payloadData)); } catch { frames.push({ unparsed: response.payloadData }); }
    for (const w of waiting) if (w.test(frames.at(-1))) w.done();
  });
  frames.until = (test, what) => {
    if (frames.some(test)) return Promise.resolve();
    log(`waiting for a frame: ${what}`);
    return new Promise((resolve) => {
      const w = { test, done: () => { waiting.delete(w); resolve(); } };
      waiting.add(w);
    });
  };
  return frames;
}

const body = (page, attr) => page.$eval('body', (b, a) => b.dataset[a] ?? '', attr);

async function shot(page, file) {
  await page.screenshot({ path: path.join(OUT, file) });
  log('screenshot', path.join(OUT, file));
}

// Waits until the page shows a state newer than ply `after` (or another
// actor), or the game's end; returns the page's ply.
async function waitState(page, after, actor) {
  await page.waitForFunction((p, a) => {
    const b = document.body.dataset;
    return b.busy !== 'true' && b.ply !== undefined && (Number(b.ply) !== p || b.actor !== a || b.over === 'true');
  }, { timeout: 0 }, after, actor);
  return Number(await body(page, 'ply'));
}

async function isDeciding(page) {
  return page.$eval('#decide', (d) => !d.hidden && document.body.dataset.busy !== 'true');
}

// The first live choice of the active step: on the board (its marks'
// layer), else in the tray beside it (the choices the picture draws off
// the board: rotations, figures).
async function activeMark(page) {
  return await page.$('#board >>> g.marks .cas-active') || await page.$('#tray >>> button.cas-active');
}

// One decision by clicking: the first live element of the active step
// (a real mouse click; the keyboard when something is drawn over it),
// until one action is left and the page sends it; when the board offers
// nothing more, the first matching or other action's button.
async function decide(page) {
  const ply = Number(await body(page, 'ply'));
  const actor = await body(page, 'actor');
  for (let clicks = 0; clicks < 12; clicks++) {
    if (await body(page, 'busy') === 'true' || Number(await body(page, 'ply')) !== ply) break;
    const before = await body(page, 'picked');
    if (await body(page, 'confirm') === 'true') {
      // A ghost or a one-click choice waits for Confirm.
      await page.click('#place-confirm');
      confirms++;
      continue;
    }
    const mark = await activeMark(page);
    if (mark) {
      try {
        await mark.click();
      } catch (e) {
        // An update patched the picture (another seat connected or left)
        // between finding the mark and clicking it: find it again.
        if (!/detached/i.test(String(e))) throw e;
        await mark.dispose();
        continue;
      }
      if (await body(page, 'picked') === before && await body(page, 'busy') !== 'true' &&
          Number(await body(page, 'ply')) === ply) {
        // Something is drawn over the element's middle: the keyboard.
        keyboardPicks++;
        await mark.evaluate((e) => e.focus());
        await page.keyboard.press('Enter');
      }
      markClicks++;
      await mark.dispose();
    } else {
      const button = await page.$('#candidates button.action, #others button.action, #action-list button.action');
      assert.ok(button, `${page.name}: its turn at ply ${ply} but nothing to click`);
      await button.evaluate((b) => b.scrollIntoView({ block: 'center' }));
      await button.click();
      await button.dispose();
      buttonClicks++;
    }
    assert.deepEqual(page.errors, [], `${page.name}: errors in the page`);
  }
  const alert = await page.$eval('#alert', (a) => a.hidden ? '' : a.textContent);
  assert.equal(alert, '', `${page.name}: the server refused a click at ply ${ply}: ${alert}`);
  return waitState(page, ply, actor);
}

// One decision by the keyboard alone: the first choice focused once, then
// Enter at each step; after each the focus must be on the next step's
// first choice already.
async function decideByKeyboard(page) {
  const ply = Number(await body(page, 'ply'));
  const actor = await body(page, 'actor');
  const first = await page.$('#board >>> g.marks .cas-active');
  if (!first) return null;
  await first.evaluate((e) => e.focus());
  await first.dispose();
  for (let keys = 0; keys < 12; keys++) {
    const before = await body(page, 'picked');
    await page.keyboard.press('Enter');
    enterPresses++;
    await page.waitForFunction((b, p) => document.body.dataset.picked !== b || document.body.dataset.busy === 'true' ||
      Number(document.body.dataset.ply) !== p, { timeout: 0 }, before, ply);
    if (await body(page, 'busy') === 'true' || Number(await body(page, 'ply')) !== ply) break;
    const [focused, active] = await page.evaluate(() => {
      const root = document.getElementById('board').shadowRoot;
      const f = root.activeElement;
      // A ghost waiting for Enter, or the next step's first choice.
      return [!!f && (f.classList.contains('cas-active') || f.classList.contains('cas-ghost')),
        root.querySelectorAll('.cas-active, .cas-ghost').length];
    });
    if (!active) return decide(page);   // the rest is a button
    assert.ok(focused, `${page.name}: after Enter the focus is on the next step's first choice (ply ${ply})`);
  }
  return waitState(page, ply, actor);
}

// One step into a placement with several rotations: the picture with its
// choices lit (the screenshot), then Escape and a right-click on the board
// each start the selection over.
async function selectionShot(page) {
  const mark = await page.evaluateHandle(() => {
    const marks = [...document.getElementById('board').shadowRoot.querySelectorAll('g.marks .cas-active')];
    return marks.find((m) => m.getAttribute('data-cas-choices').split(' ').length >= 3) || null;
  });
  if (!(mark.asElement())) return false;
  const all = await body(page, 'candidates');
  await mark.click();
  await page.waitForFunction(() => document.body.dataset.picked !== '');
  assert.ok(Number(await body(page, 'candidates')) < Number(all), 'a click narrows the candidates');
  await shot(page, 'table-midgame.png');
  const other = (await page.evaluateHandle(() => [...document.getElementById('board').shadowRoot
    .querySelectorAll('.cas-dim[data-cas-step="1"]')]
    .find((m) => m.getAttribute('data-cas-choices').split(' ').length >= 2) || null)).asElement();
  if (other) {
    // A faded space: the move starts over from it.
    const want = (await other.evaluate((o) => o.getAttribute('data-cas-choices'))).split(' ').length;
    await other.click();
    await page.waitForFunction((n) => document.body.dataset.candidates === String(n), { timeout: 0 }, want);
    await other.dispose();
    log(`${page.name}: a click on a faded space starts the move over from it (${want} actions)`);
  }
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => document.body.dataset.picked === '');
  assert.equal(await body(page, 'candidates'), all, 'Escape starts the move over');
  await mark.click();
  await page.waitForFunction(() => document.body.dataset.picked !== '');
  await mark.click({ button: 'right' });
  await page.waitForFunction(() => document.body.dataset.picked === '');
  assert.equal(await body(page, 'candidates'), all, 'a right-click starts the move over');
  await mark.dispose();
  return true;
}

// The page's SVG sanitizer against a hostile picture: nothing that runs
// or fetches survives, the drawing does.
async function checkSanitizer(page) {
  const out = await page.evaluate(async () => {
    const { sanitizeSvg } = await import('/static/app.js');
    const svg = sanitizeSvg(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
      width="10" height="10" onload="alert(1)"><style>@import url(https://x.invalid/a.css); .a{fill:url(https://x.invalid/p)}</style>
      <script>alert(2)</script><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
      <a href="javascript:alert(3)"><rect class="a" width="5" height="5" onclick="alert(4)"/></a>
      <image href="https://x.invalid/i.png"/><use xlink:href="#k1"/><set attributeName="href" to="javascript:alert(5)"/>
      <rect id="k1" data-cas-choices="0 1" data-cas-step="1" width="2" height="2"/></svg>`);
    return { markup: svg.outerHTML, viewBox: svg.getAttribute('viewBox') };
  });
  for (const bad of ['onload', 'onclick', '<script', 'foreignObject', 'javascript:', 'x.invalid', '@import', '<set'])
    assert.ok(!out.markup.includes(bad), `the sanitizer removes ${bad}: ${out.markup}`);
  for (const good of ['data-cas-choices="0 1"', 'href="#k1"', '<rect'])
    assert.ok(out.markup.includes(good), `the sanitizer keeps ${good}: ${out.markup}`);
  assert.equal(out.viewBox, '0 0 10 10', 'a picture without a viewBox gets one, to scale');
}

// The board's viewport (board.js): the buttons, the wheel and a drag move
// the camera (the root svg's viewBox) and a drag clicks nothing; Fit
// brings the fitted view back; Last tile centres on the tile the picture
// marks as the last.
async function checkViewport(page) {
  const view = () => page.evaluate(() => {
    const svg = document.getElementById('board').shadowRoot.querySelector('svg');
    const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
    return { x, y, w, h, zoom: Number(document.getElementById('board').dataset.zoom), picked: document.body.dataset.picked };
  });
  const fitted = await view();
  await page.click('#zoom-in');
  const zoomed = await view();
  assert.ok(zoomed.zoom > fitted.zoom * 1.2 && zoomed.w < fitted.w, `+ zooms in (${fitted.zoom} -> ${zoomed.zoom})`);
  const r = await page.$eval('#board', (b) => { const q = b.getBoundingClientRect(); return { x: q.x + q.width / 2, y: q.y + q.height / 2 }; });
  // Zoomed in, the board is larger than the view: a drag moves it with
  // the pointer, exactly.
  await page.mouse.move(r.x, r.y);
  await page.mouse.down();
  await page.mouse.move(r.x + 30, r.y + 20, { steps: 6 });
  await page.mouse.move(r.x + 60, r.y + 40, { steps: 6 });
  await page.mouse.up();
  const panned = await view();
  assert.ok(Math.abs((zoomed.x - panned.x) * zoomed.zoom - 60) < 2 && Math.abs((zoomed.y - panned.y) * zoomed.zoom - 40) < 2,
    `a drag pans the board with the pointer (${zoomed.x},${zoomed.y} -> ${panned.x},${panned.y})`);
  assert.equal(panned.picked, fitted.picked, 'a drag clicks nothing');
  await page.mouse.wheel({ deltaY: 300 });
  await page.waitForFunction((z) => Number(document.getElementById('board').dataset.zoom) < z, { timeout: 0 }, zoomed.zoom);
  const wheeled = await view();
  await page.click('#zoom-fit');
  const again = await view();
  assert.ok(Math.abs(again.zoom - fitted.zoom) < 1e-3 && Math.abs(again.x - fitted.x) < 1, 'Fit brings the fitted view back');
  await page.click('#zoom-in');
  await page.click('#zoom-last');
  const centred = await page.evaluate(() => {
    const root = document.getElementById('board').shadowRoot;
    const last = root.querySelector('.last');
    const b = last.getBoundingClientRect(), host = document.getElementById('board').getBoundingClientRect();
    return { dx: b.x + b.width / 2 - (host.x + host.width / 2), dy: b.y + b.height / 2 - (host.y + host.height / 2) };
  });
  assert.ok(Math.abs(centred.dx) < 3 && Math.abs(centred.dy) < 3, `Last tile centres on it (${JSON.stringify(centred)})`);
  await page.click('#zoom-fit');
  log(`${page.name}: zoom ${fitted.zoom} -> ${zoomed.zoom} (button) -> ${wheeled.zoom} (wheel), a drag of 60,40 px panned as much, Fit and Last tile work`);
}

// A placement as in JCloisterZone: a click on a space with several legal
// rotations shows a ghost of the tile there; clicking the ghost and R
// turn it through the legal rotations only (the same ones the action list
// names for that space); Confirm plays the one shown.
async function checkGhost(page) {
  const space = (await page.evaluateHandle(() => [...document.getElementById('board').shadowRoot
    .querySelectorAll('g.marks .cas-active[data-cas-box]')]
    .find((m) => m.getAttribute('data-cas-choices').split(' ').length >= 2) || null)).asElement();
  if (!space) return false;
  const ply = Number(await body(page, 'ply'));
  const actor = await body(page, 'actor');
  await space.click();
  await page.waitForFunction(() => document.body.dataset.ghost === '0');
  const legal = await page.$$eval('#candidates button.action', (bs) => bs.map((b) => b.textContent));
  assert.ok(legal.length >= 2, `the space has several legal placements: ${legal}`);
  const seen = [];
  const words = () => page.$eval('#place-what', (w) => w.textContent);
  const ghostArt = () => page.evaluate(() => document.getElementById('board').shadowRoot
    .querySelector('.cas-overlay .cas-ghost use')?.getAttribute('transform'));
  for (let k = 0; k < legal.length; k++) {
    seen.push(await words());
    assert.ok(await ghostArt(), 'the ghost is drawn on the board');
    if (k % 2 === 0) {
      // A click on the tile, off its figure spots (a spot takes its click).
      // The spots come with the server's answer to the ghost's preview:
      // wait for it, or they may be drawn under the point between finding
      // it and clicking it (seen under ASan).
      await page.waitForFunction(() => document.body.dataset.spots !== '', { timeout: 0 });
      const at = await page.evaluate(() => {
        const root = document.getElementById('board').shadowRoot;
        const r = root.querySelector('.cas-ghost .cas-ghost-frame').getBoundingClientRect();
        for (let i = 1; i < 8; i++)
          for (let j = 1; j < 8; j++) {
            const x = r.left + r.width * i / 8, y = r.top + r.height * j / 8;
            if (root.elementFromPoint(x, y)?.closest('.cas-ghost')) return { x, y };
          }
        return null;
      });
      assert.ok(at, 'some of the ghost is not under a figure spot');
      await page.mouse.click(at.x, at.y);
    } else {
      await page.keyboard.press('r');
    }
    await page.waitForFunction((n) => document.body.dataset.ghost === String(n), { timeout: 0 }, (k + 1) % legal.length);
  }
  assert.deepEqual([...seen].sort(), [...legal].sort(), 'the ghost turns through the legal rotations only, each once');
  assert.equal(await words(), seen[0], 'and back to the first');
  await page.keyboard.press('r');
  const chosen = await words();
  await page.click('#place-confirm');
  const next = await waitState(page, ply, actor);
  log(`${page.name}: ghost turned through ${seen.join(' | ')}; confirmed "${chosen}" (ply ${ply} -> ${next})`);
  assert.ok(next > ply, 'Confirm plays the placement');
  confirms++;
  return true;
}

// Figure spots on the ghost, as in JCloisterZone: a space clicked, the
// ghost turned until its rotation lets a figure go on the tile; the spots
// appear on the ghost (asked of the server by a "preview": nothing is
// played meanwhile), the table passes axe with them; a spot clicked (and
// the figure, when several kinds may go) and Confirm play the placement
// and the deploy in a row: the board shows one more figure, the log both.
async function checkSpots(page) {
  const space = await page.$('#board >>> g.marks .cas-active[data-cas-box]');
  if (!space) return false;
  const ply = Number(await body(page, 'ply'));
  const actor = await body(page, 'actor');
  const figures = () => page.evaluate(() => document.getElementById('board').shadowRoot
    .querySelectorAll('svg > use.figure').length);
  const before = await figures();
  await space.click();
  await space.dispose();
  await page.waitForFunction(() => document.body.dataset.ghost === '0', { timeout: 0 });
  const turns = Number(await page.$eval('#place-rotate', (r) => r.hidden ? 1 : r.textContent.match(/of (\d+)/)[1]));
  let spots = 0;
  for (let k = 0; k < turns && !spots; k++) {
    await page.waitForFunction(() => document.body.dataset.spots !== '', { timeout: 0 });
    spots = Number(await body(page, 'spots'));
    if (!spots && k + 1 < turns) {
      await page.keyboard.press('r');
      await page.waitForFunction((n) => document.body.dataset.ghost === String(n), { timeout: 0 }, k + 1);
    }
  }
  assert.equal(Number(await body(page, 'ply')), ply, 'a preview plays nothing');
  if (!spots) { await page.keyboard.press('Escape'); return false; }
  const drawn = await page.$$eval('#board >>> .cas-ghost-spots .cas-spot', (ss) => ss.map((e) => e.getAttribute('aria-label')));
  assert.equal(drawn.length, spots, 'each spot is drawn on the ghost');
  await checkAxe(page, 'the table, a ghost with its figure spots');
  const spot = await page.$('#board >>> .cas-ghost-spots .cas-spot');
  await spot.click();
  await spot.dispose();
  await page.waitForFunction(() => document.body.dataset.deploy !== '' ||
    document.querySelector('#place-figures button'), { timeout: 0 });
  if (!await body(page, 'deploy')) {
    await page.click('#place-figures button');
    await page.waitForFunction(() => document.body.dataset.deploy !== '', { timeout: 0 });
  }
  const deploy = await body(page, 'deploy');
  const words = await page.$eval('#place-what', (w) => w.textContent);
  assert.ok(words.endsWith(`, then ${deploy}`), `the bar names both moves: ${words}`);
  await shot(page, 'ghost-spots.png');
  await page.click('#place-confirm');
  confirms++;
  // The placement, then the deploy the page plays when its decision comes.
  await page.waitForFunction((p) => Number(document.body.dataset.ply) >= p + 2 && document.body.dataset.busy !== 'true',
    { timeout: 0 }, ply);
  const alert = await page.$eval('#alert', (a) => a.hidden ? '' : a.textContent);
  assert.equal(alert, '', `no refusal: ${alert}`);
  await page.waitForFunction((n) => document.getElementById('board').shadowRoot
    .querySelectorAll('svg > use.figure').length > n, { timeout: 0 }, before);
  log(`${page.name}: ${spots} figure spots on the ghost (${drawn.join(' | ')}); "${words}" played at ply ${ply} (actor ${actor}): ${before} -> ${await figures()} figures on the board`);
  return true;
}

// Every page's log reads forward: its plies never go back (a log shown
// again after an undo without replacing the old one would).
async function checkLogOnce(page) {
  const plies = await page.$$eval('#log li', (ls) => ls.map((l) => Number(l.dataset.ply)));
  for (let i = 1; i < plies.length; i++)
    assert.ok(plies[i] >= plies[i - 1], `${page.name}: the event log goes back from ply ${plies[i - 1]} to ${plies[i]} (shown twice?)`);
  return plies.length;
}

// axe-core (npm, test only) on the page as it is: no serious or critical
// violation.  Run through the DevTools protocol, which the page's
// Content-Security-Policy does not govern.
const AXE = fs.readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

async function checkAxe(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  });
  assert.deepEqual(found, [], `axe on ${what}: ${found.join('\n')}`);
  log(`axe: ${what}: no serious or critical violation`);
}

// The table on a phone (390x844, touch): the board takes the screen's
// width and most of its height, the panels fold below it, and a live
// choice on the board is at least 40 CSS px at the fitted zoom.
async function checkPhone(link) {
  const p = await openPage('page P (phone)');
  await p.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await p.goto(link);
  await p.waitForSelector('body[data-ply]');
  const board = await p.$eval('#board', (b) => { const r = b.getBoundingClientRect(); return { w: r.width, h: r.height, top: r.top }; });
  assert.ok(board.w >= 370, `the board takes the phone's width (${board.w} px)`);
  assert.ok(board.h >= 0.7 * 844, `the board takes most of the phone's height (${board.h} px)`);
  const side = await p.$eval('.side', (s) => s.getBoundingClientRect().top);
  assert.ok(side >= board.top + board.h, 'the panels fold below the board');
  await shot(p, 'phone-table.png');
  // Two fingers spreading apart zoom in; Fit brings the fitted view back.
  const zoom = () => p.$eval('#board', (b) => Number(b.dataset.zoom));
  const before = await zoom();
  const cdp = await p.createCDPSession();
  const cx = board.w / 2, cy = board.top + board.h / 2;
  const fingers = (d) => [{ x: cx - d, y: cy, id: 1 }, { x: cx + d, y: cy, id: 2 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(30) });
  for (const d of [45, 60, 75, 90])
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(d) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  const pinched = await zoom();
  assert.ok(pinched > before * 2, `a pinch zooms in (${before} -> ${pinched})`);
  await p.click('#zoom-fit');
  assert.ok(Math.abs(await zoom() - before) < 1e-3, 'Fit after the pinch');
  await cdp.detach();
  log(`phone: a pinch zoomed ${before} -> ${pinched}`);
  return p;
}

async function checkPhoneTargets(p) {
  await p.waitForFunction(() => !document.getElementById('decide').hidden &&
    document.getElementById('board').shadowRoot.querySelector('g.marks .cas-live'), { timeout: 0 });
  const least = await p.evaluate(() => Math.min(...[...document.getElementById('board').shadowRoot
    .querySelectorAll('g.marks .cas-live')].map((m) => { const r = m.getBoundingClientRect(); return Math.min(r.width, r.height); })));
  assert.ok(least >= 40, `every live target on the phone is >= 40 CSS px (smallest ${least.toFixed(1)})`);
  await shot(p, 'phone-decision.png');
  log(`phone: the smallest live target is ${least.toFixed(1)} CSS px`);
}

// Opens the lobby's custom-game form on `game`, once the lobby is on screen
// and the form laid out: a click that lands while the page is still
// showing itself finds no box to click.
async function openCustomForm(page, game) {
  await page.waitForSelector('#lobby', { visible: true });
  await page.$eval('#custom', (d) => { d.open = true; });
  await page.waitForSelector('#game', { visible: true });
  await page.select('#game', game);
}

// A game with a clock and an open seat, made by page A.  A wrong link
// (page B, a made-up token) keeps a notice on screen and offers the open
// seat; page C takes the seat from the lobby's list.  No clock runs while
// page A has not opened its own seat: page C's clock stays full; it runs
// once A is there.
async function claimOpenSeat(a, b, c) {
  await a.goto(BASE + '/');
  await a.waitForSelector('#game option[value="carcassonne"]');
  await openCustomForm(a, 'carcassonne');
  await a.$$eval('#seats li select', (ss) => { ss[0].value = 'human'; ss[1].value = 'open'; });
  await a.$eval('#clock-on', (x) => { x.checked = true; });
  await a.click('#custom-form button[type="submit"]');
  await a.waitForSelector('#invites li[data-seat="0"]');
  const watch = await a.$eval('#watch-link', (x) => x.href);
  const game = decodeURIComponent(new URL(watch).pathname.split('/')[2]);

  await b.goto(`${BASE}/game/${game}#seat=0&token=${'0'.repeat(32)}`);
  await b.waitForSelector('#notice:not([hidden])');
  await b.waitForSelector('body[data-you=""]');
  const notice = await b.$eval('#notice-text', (n) => n.textContent);
  assert.match(notice, /refused/, `a wrong link says so: ${notice}`);
  assert.match(await b.$eval('#seat-box', (x) => x.textContent), /Take the open seat 2/, 'and offers the open seat');
  log(`a wrong link: "${notice}"`);

  // Cleo is a registered player (docs/players.md): her sign-in link keeps
  // her key in an HttpOnly cookie, and she takes the seat as herself.
  const added = execFileSync(CASTELLAN, ['players', 'add', 'Cleo', '--database', db, '--url', BASE],
    { env, encoding: 'utf8' });
  const link = added.match(/(http:\S+#signin=(\S+))/);
  assert.ok(link, `players add prints a sign-in link: ${added}`);
  await c.goto(link[1]);
  await c.waitForSelector('body[data-player="Cleo"]'); // the socket that carries the cookie
  await c.waitForSelector('#me:not([hidden])');
  assert.equal(await c.$eval('#me', (m) => m.textContent), 'Signed in as Cleo');
  assert.equal(new URL(c.url()).hash, '', 'the key leaves the address bar');
  assert.ok(!(await c.evaluate(() => document.cookie)).includes(link[2]), 'no script reads the key');
  const cookie = (await c.cookies()).find((k) => k.name === 'castellan_player');
  assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict', 'an HttpOnly, SameSite=Strict cookie');
  log(`page C signed in as Cleo`);
  // Signing in opens the socket again, and its lobby may redraw the list
  // under the pointer: find the button again then.
  for (;;) {
    const take = await c.waitForSelector(`#games tbody tr[data-game="${game}"] button`);
    try {
      assert.match(await take.evaluate((t) => t.textContent), /Take seat 2/);
      await take.click();
      break;
    } catch (e) {
      if (!/detached|not clickable/i.test(String(e))) throw e;
    }
  }
  await c.waitForSelector('body[data-you="1"]');
  assert.equal(new URL(c.url()).pathname, `/game/${game}`);
  const row = await c.$eval('#players tbody tr[data-seat="1"]', (r) => r.textContent);
  assert.match(row, /Cleo/, 'the claimed seat carries the signed-in player\'s name');
  log(`page C took the open seat of game ${game}: ${row}`);
  const players = execFileSync(CASTELLAN, ['players', 'list', '--database', db], { env, encoding: 'utf8' });
  assert.match(players, /^Cleo +\S+ +\S+ +1$/m, `the store knows Cleo took a seat:\n${players}`);

  // Seat 1 of 2 has joined: no clock runs, whatever the wait.
  await c.waitForSelector('#clock-note:not([hidden])');
  const clocks = () => c.$$eval('#players td.clock', (tds) => tds.map((t) => t.textContent));
  const before = await clocks();
  assert.deepEqual(before, ['10:00', '10:00'], `the clocks are full before every seat joined: ${before}`);
  await c.evaluate(() => new Promise((done) => setTimeout(done, 1500)));
  assert.deepEqual(await clocks(), before, 'and no clock counts down meanwhile');
  assert.equal(await b.$eval('#notice', (n) => n.hidden), false, 'the wrong link\'s notice stays through new states');
  await a.click('#invites li[data-seat="0"] button:last-of-type');
  await a.waitForSelector('body[data-you="0"]');
  await c.waitForSelector('#clock-note', { hidden: true });
  log('the clocks waited for both seats, and run now that both are here');
}

// The lobby follows the server's numbered changes (protocol 3): page D
// sits on the lobby while page A makes a game of two bots, which play it
// to its end.  D's list shows the game, its moves and its end without a
// reload, from one whole list and then changes that carry only what
// changed; at the end it is the list the server gives a new subscriber.
async function lobbyFollows(a) {
  const d = await openPage('page D (lobby)');
  const frames = await recordFrames(d);
  await d.goto(BASE + '/');
  await d.waitForSelector('body[data-lobby-seq]:not([data-lobby-seq=""])');
  await a.goto(BASE + '/');
  await a.waitForSelector('#game option[value="carcassonne"]');
  await openCustomForm(a, 'carcassonne');
  await a.$$eval('#seats li select', (ss) => { ss[0].value = 'random'; ss[1].value = 'random'; });
  await a.click('#custom-form button[type="submit"]');
  await a.waitForSelector('#created:not([hidden])');
  const watch = await a.$eval('#watch-link', (x) => x.href);
  const game = decodeURIComponent(new URL(watch).pathname.split('/')[2]);
  const cell = (g, n) => document.querySelector(`#games tbody tr[data-game="${g}"] td:nth-child(${n})`)?.textContent;
  await d.waitForFunction(`(${cell})(${JSON.stringify(game)}, 2) === 'over'`);
  await caughtUp(d, frames);
  const lobby = frames.filter((m) => m.type === 'lobby');
  const whole = lobby.filter((m) => !m.delta), changes = lobby.filter((m) => m.delta);
  assert.equal(whole.length, 1, `one whole list, then changes (${lobby.length} lobby messages)`);
  assert.ok(changes.some((m) => m.put.some((g) => g.game === game)), 'a change put the new game');
  const others = whole[0].games.length;
  for (const m of changes) {
    assert.ok(m.put.length + m.moved.length <= others, `a change carries what changed, not every game: ${JSON.stringify(m).slice(0, 300)}`);
    assert.equal(m.seq, changes[0].seq + changes.indexOf(m), 'changes numbered one after another');
  }
  // What a new subscriber gets now is what page D shows (its list may
  // trail the server by the once-a-second pace: wait for it).
  const fresh = await d.evaluate(() => new Promise((done, fail) => {
    const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws', 'castellan.v1');
    ws.onopen = () => ws.send(JSON.stringify({ type: 'lobby' }));
    ws.onmessage = (e) => { ws.close(); done(JSON.parse(e.data).games.map((g) => [g.game, g.status, String(g.ply)])); };
    ws.onerror = fail;
  }));
  await d.waitForFunction((want) => {
    const rows = [...document.querySelectorAll('#games tbody tr')].map((r) =>
      [r.dataset.game, r.cells[1].textContent, r.cells[2].textContent]);
    const key = (x) => x.map((r) => r.join(' ')).sort().join('|');
    return key(rows) === key(want);
  }, {}, fresh);
  log(`the lobby followed game ${game} to its end: 1 whole list, ${changes.length} changes`);
  await leavesTheLobbyAtATable(a, d, frames, game);
  await d.close();
}

// Waits until the frames recorded hold the lobby's change the page shows.
async function caughtUp(page, frames) {
  const shown = Number(await body(page, 'lobbySeq'));
  await frames.until((m) => m.type === 'lobby' && m.seq === shown, `the lobby's change ${shown}, which the page shows`);
}

// At a table page D leaves the lobby (protocol 4, leave_lobby): from the
// table's state on, nothing of the lobby comes while page A makes another
// game; back in the lobby, D resumes after the last change it held, and
// gets each change it missed once (a page still subscribed would get the
// new game's change twice: live at the table, then in the resume).
async function leavesTheLobbyAtATable(a, d, frames, game) {
  const sent = await recordFrames(d, 'Network.webSocketFrameSent');
  const held = Number(await body(d, 'lobbySeq'));
  await d.click(`#games tbody tr[data-game="${game}"] a[data-nav="game"]`);
  await d.waitForSelector('body[data-over="true"]');
  await frames.until((m) => m.type === 'state' && String(m.game) === game, 'the table\'s state');
  const at = frames.findLastIndex((m) => m.type === 'state' && String(m.game) === game);
  await sent.until((m) => m.type === 'leave_lobby', 'the page left the lobby at the table');
  await openCustomForm(a, 'carcassonne');
  await a.$$eval('#seats li select', (ss) => { ss[0].value = 'random'; ss[1].value = 'random'; });
  // Page A made a game before: its last watch link stays until this one's
  // answer replaces it.
  const earlier = await a.$eval('#watch-link', (x) => x.href).catch(() => '');
  await a.click('#custom-form button[type="submit"]');
  await a.waitForFunction((was) => {
    const link = document.querySelector('#created:not([hidden]) #watch-link');
    return link && link.href !== was;
  }, {}, earlier);
  const watch = await a.$eval('#watch-link', (x) => x.href);
  const other = decodeURIComponent(new URL(watch).pathname.split('/')[2]);
  await a.waitForSelector(`#games tbody tr[data-game="${other}"]`);
  await d.goBack();
  await d.waitForSelector(`#games tbody tr[data-game="${other}"]`);
  await caughtUp(d, frames);
  await sent.until((m) => m.type === 'lobby', 'a subscription on coming back');
  const again = sent.filter((m) => m.type === 'lobby');
  assert.equal(again.length, 1, 'one subscription on coming back');
  assert.equal(again[0].since, held, 'it resumes after the last change it held');
  const lobby = frames.slice(at).filter((m) => m.type === 'lobby');
  assert.ok(lobby.length > 0, 'the changes it missed came');
  lobby.forEach((m, i) => {
    assert.ok(m.delta, 'a resume: changes, not the whole list');
    assert.equal(m.seq, held + 1 + i, `each change once, in order (${lobby.map((x) => x.seq)})`);
  });
  assert.ok(lobby.some((m) => m.put.some((g) => g.game === other)), 'a change put the new game');
  log(`at the table no lobby message; back in the lobby ${lobby.length} changes resumed`);
}

// A correspondence game (2 days per move) made by page A, which holds both
// seats' links: the lobby lists it first, marked "Your turn", on page A
// and unmarked on page C, which holds none; at the table the player to
// move reads the time left in words, the other the days per move.
async function correspondence(a, b, c) {
  await a.goto(BASE + '/');
  await a.waitForSelector('#game option[value="carcassonne"]');
  await openCustomForm(a, 'carcassonne');
  await a.$$eval('#seats li select', (ss) => { ss[0].value = 'human'; ss[1].value = 'human'; });
  await a.select('#clock-days', '2');
  await a.click('#custom-form button[type="submit"]');
  await a.waitForSelector('#invites li[data-seat="1"] input');
  const links = await a.$$eval('#invites li input.link', (xs) => xs.map((x) => x.value));
  const game = decodeURIComponent(new URL(links[0]).pathname.split('/')[2]);
  await a.goto(BASE + '/');
  const first = await a.waitForSelector('#games tbody tr:first-child');
  assert.equal(await first.evaluate((r) => r.dataset.game), game, 'the game to play comes first');
  assert.match(await first.evaluate((r) => r.textContent), /^Your turn: .*2 days per move/);
  await c.goto(BASE + '/');
  const row = await c.waitForSelector(`#games tbody tr[data-game="${game}"]`);
  assert.doesNotMatch(await row.evaluate((r) => r.textContent), /Your turn/, 'not for a page that holds no seat');
  await a.goto(links[0]);
  await b.goto(links[1]);
  await a.waitForSelector('body[data-you="0"]');
  await b.waitForSelector('body[data-you="1"]');
  await a.waitForSelector('#clock-note', { hidden: true });
  // A state built in the very millisecond the clock started says "2 days
  // left" until the page's own tick (every 250 ms) counts it down: wait
  // for the tick rather than for the server to be slow.
  await a.waitForFunction(() => !/^2 days left/.test(
    document.querySelector('#players td.clock')?.textContent ?? '2 days left'));
  const clocks = await a.$$eval('#players td.clock', (tds) => tds.map((t) => t.textContent));
  // Two days to the millisecond when the state was built in the same
  // millisecond as the deadline was set: either is right.
  assert.match(clocks[0], /^(1 day 23 h|2 days) left to move$/, `the time left in words: ${clocks}`);
  assert.equal(clocks[1], '2 days per move');
  log(`a correspondence game: first in the lobby with "Your turn", clocks ${JSON.stringify(clocks)}`);
}

// ------------------------------------------------------------------- test

async function createGame(a) {
  await a.goto(BASE + '/');
  await a.waitForSelector('#game option[value="carcassonne"]');
  await a.type('#my-name', 'Ada');
  // Presets, games and expansions by their names for people.
  const presets = await a.$$eval('#preset option', (os) => os.map((o) => o.textContent));
  assert.ok(presets.includes('Carcassonne for four bots (default)'), `presets by title: ${presets}`);
  assert.match(await a.$eval('#game option[value="carcassonne"]', (o) => o.textContent), /^Carcassonne .*\(carcassonne\)$/);
  await openCustomForm(a, 'carcassonne');
  assert.match(await a.$eval('#expansions', (x) => x.textContent), /Inns & Cathedrals/);
  await (await a.waitForSelector('#expansions input[value="inns-cathedrals"]', { visible: true })).click();
  const seats = await a.$$('#seats li');
  assert.ok(seats.length >= 2, 'the form offers two seats for Carcassonne');
  await seats[0].$eval('input', (i) => { i.value = 'Ada'; });
  await seats[0].$eval('select', (s) => { s.value = 'human'; });
  await seats[1].$eval('input', (i) => { i.value = 'Bob'; });
  await seats[1].$eval('select', (s) => { s.value = 'human'; });
  await a.type('#seed', SEED);
  await a.click('#custom-form button[type="submit"]');
  await a.waitForSelector('#invites li[data-seat="1"] input');
  const links = await a.$$eval('#invites li input.link', (xs) => xs.map((x) => x.value));
  const watch = await a.$eval('#watch-link', (x) => x.href);
  await shot(a, 'lobby-created.png');
  assert.equal(links.length, 2, 'one invite link a human seat');
  for (const l of links) assert.match(l, /\/game\/[^/#]+#seat=\d+&token=[^&]{16,}/, 'an invite link carries its token in the fragment');
  return { links, watch, game: decodeURIComponent(new URL(watch).pathname.split('/')[2]) };
}

let BASE;
let markClicks = 0, keyboardPicks = 0, buttonClicks = 0, enterPresses = 0, confirms = 0;

async function main() {
  BASE = await startServer();
  log('server at', BASE);
  browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true,
    timeout: 0, protocolTimeout: 0, // chromium's start and each DevTools call: no clock either
    userDataDir: fs.mkdtempSync(path.join(tmp, 'profile-')),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });

  const a = await openPage('page A (Ada)');
  const framesA = await recordFrames(a);
  const { links, watch, game } = await createGame(a);
  await checkSanitizer(a);
  log('game', game, 'created');

  const c = await openPage('page C (watcher)');
  const watched = await recordFrames(c);
  await c.goto(watch);
  await c.waitForSelector('body[data-ply]');

  // A takes seat 1 by the creator's button, B by the invite link.
  await a.click('#invites li[data-seat="0"] button:last-of-type');
  const b = await openPage('page B (Bob)');
  const framesB = await recordFrames(b);
  await b.goto(links[1]);
  for (const p of [a, b]) await p.waitForSelector('body[data-ply]');
  assert.equal(await body(a, 'you'), '0');
  assert.equal(await body(b, 'you'), '1');
  assert.doesNotMatch(b.url(), /token=/, 'the invite token leaves the address bar');
  // Names with the plugin's colours, everywhere the players are named.
  for (const p of [a, b, c]) {
    const rows = await p.$$eval('#players tbody th', (ths) => ths.map((t) => t.textContent));
    assert.ok(rows.some((r) => r.includes('Ada (Red)')) && rows.some((r) => r.includes('Bob (Blue)')),
      `${p.name}: the players are named with their colours: ${rows}`);
  }
  assert.match(await a.$eval('#turn', (t) => t.textContent), /You play Ada \(Red\)/);

  const pages = [a, b];
  let keyboarded = false, hinted = false, undone = false, reloaded = false, shotMid = false, dropped = false, restarted = false, plies = 0;
  let viewed = false, ghosted = false, phoned = false, axed = false, helped = false, spotted = false;
  for (;;) {
    const over = await body(a, 'over') === 'true' && await body(b, 'over') === 'true';
    if (over) break;
    assert.ok(++plies < MAX_PLIES, 'the game ends');
    let mover = null;
    for (const p of pages) if (await isDeciding(p)) mover = p;
    if (!mover) {
      // Neither decides yet (a draw, or a state on its way): wait for one.
      await Promise.race(pages.map((p) => p.waitForFunction(() =>
        (!document.getElementById('decide').hidden && document.body.dataset.busy !== 'true') ||
        document.body.dataset.over === 'true', { timeout: 0 })));
      continue;
    }
    const ply = Number(await body(mover, 'ply'));

    if (mover === b && !reloaded && ply >= RELOAD_AT) {
      log(`page B reloads at ply ${ply}`);
      await b.reload();
      await b.waitForFunction((p) => document.body.dataset.ply === String(p) &&
        !document.getElementById('decide').hidden, { timeout: 0 }, ply);
      assert.equal(await body(b, 'you'), '1', 'after a reload page B still plays its seat');
      reloaded = true;
    }

    if (!shotMid && ply >= 30 && await selectionShot(mover)) shotMid = true;

    if (!viewed && mover === a && ply >= 6) { await checkViewport(a); viewed = true; }
    if (!helped && mover === a) {
      // Help at the table: the game's notation as a rules panel, and the
      // decision's kinds of action explained in words.
      await a.waitForSelector('#rules-panel:not([hidden])');
      assert.match(await a.$eval('#rules-text', (r) => r.textContent), /place ID X,Y ROT/);
      await a.waitForSelector('#decision-help li');
      const about = await a.$$eval('#decision-help li', (ls) => ls.map((l) => l.textContent));
      assert.ok(about.some((t) => /^(place|deploy|pass)\b.*: \S/.test(t)), `the decision is explained: ${about}`);
      log(`help at the table: ${about.join(' | ').slice(0, 160)}`);
      helped = true;
    }
    if (!axed && mover === a && ply >= 6) { await checkAxe(a, 'the table, deciding'); axed = true; }
    if (!ghosted && mover === a && ply >= 8 && await checkGhost(a)) { ghosted = true; continue; }
    if (ghosted && !spotted && mover === a && await checkSpots(a)) { spotted = true; continue; }
    if (!phoned && mover === b && ply >= 14) {
      // A phone opens Bob's seat too (a second tab of the seat).
      const phone = await checkPhone(links[1]);
      await checkPhoneTargets(phone);
      await phone.browserContext().close();
      opened.splice(opened.indexOf(phone), 1);
      phoned = true;
    }

    if (!dropped && ply >= DROP_AT) {
      // B's socket drops: it reconnects by itself and rejoins its seat.
      log(`page B's connection drops at ply ${ply}`);
      const before = Number(await body(b, 'connects'));
      await b.evaluate(async () => (await import('/static/app.js')).dropConnection());
      await b.waitForFunction((n) => Number(document.body.dataset.connects) > n, { timeout: 0 }, before);
      await b.waitForFunction((p) => document.body.dataset.ply === String(p), { timeout: 0 }, ply);
      assert.equal(await body(b, 'you'), '1', 'after a reconnection page B still plays its seat');
      dropped = true;
      continue;
    }

    if (!restarted && ply >= RESTART_AT) {
      // The server stops and starts again on its port: the game comes back
      // from the journal and every page reconnects by itself.
      log(`the server restarts at ply ${ply}`);
      const before = await Promise.all([a, b, c].map((p) => body(p, 'connects')));
      await stopServer(server);
      await startServer(new URL(BASE).port);
      for (const [i, p] of [a, b, c].entries())
        await p.waitForFunction((n, q) => Number(document.body.dataset.connects) > n &&
          document.body.dataset.ply === String(q), { timeout: 0 }, Number(before[i]), ply);
      assert.equal(await body(a, 'you'), '0');
      assert.equal(await body(b, 'you'), '1');
      restarted = true;
      continue;
    }

    if (!hinted && mover === a && ply >= 10) {
      await a.click('#hint');
      await a.waitForSelector('#hint-out:not([hidden])');
      const hint = await a.$eval('#hint-out', (h) => h.textContent);
      assert.ok(await a.$('#hint-out button'), `the hint names a legal action: ${hint}`);
      log(`page A asked for a hint at ply ${ply}: ${hint}`);
      hinted = true;
    }

    const actor = await body(mover, 'actor');
    assert.ok(await mover.$eval('#hint', (h) => !h.disabled), `${mover.name}: Hint is offered at ply ${ply}`);
    let next;
    if (!keyboarded && mover === b && ply >= KEYBOARD_AT && await mover.$('#board >>> g.marks .cas-active')) {
      next = await decideByKeyboard(mover);
      log(`page B played ply ${ply} by the keyboard (${enterPresses} times Enter)`);
      keyboarded = true;
    } else {
      next = await decide(mover);
    }

    if (mover === a && !undone && await a.$eval('#undo', (u) => !u.disabled) && await isDeciding(a)) {
      log(`page A undoes at ply ${next}`);
      await a.click('#undo');
      const back = await waitState(a, next, actor);
      assert.ok(back < next, `undo goes back (ply ${next} -> ${back})`);
      assert.equal(await body(a, 'actor'), '0', 'after the undo page A decides again');
      const shown = await checkLogOnce(a);
      log(`page A's log after the undo: ${shown} events, in order, none twice`);
      undone = true;
    }
  }
  assert.ok(undone, 'page A undid a move');
  assert.ok(hinted, 'page A got a hint');
  assert.ok(keyboarded, 'page B played a decision by the keyboard');
  assert.ok(reloaded, 'page B reloaded mid-game');
  assert.ok(dropped, "page B's connection dropped and came back");
  assert.ok(restarted, 'the server restarted mid-game');
  assert.ok(viewed && ghosted && phoned && axed && helped && spotted,
    'zoom and pan, the ghost, its figure spots, the phone, axe and help were checked');

  await c.waitForSelector('body[data-over="true"]');
  for (const p of [a, b, c]) await p.waitForSelector('#result:not([hidden])');
  await shot(a, 'final-a.png');
  await shot(c, 'final-watcher.png');
  for (const p of [a, b, c]) await checkLogOnce(p);
  const logText = await a.$eval('#log', (l) => l.textContent);
  assert.match(logText, /(Ada \(Red\)|Bob \(Blue\))/, 'the log names players with their colours');
  const cats = await a.$$eval('#breakdown tbody tr', (rs) => rs.map((r) => r.dataset.category));
  assert.ok(cats.length >= 2, `game over shows the points by category: ${cats}`);
  await checkAxe(a, 'the table, game over');

  // Same final scores everywhere.
  const scores = [];
  for (const p of [a, b, c])
    scores.push(await p.$$eval('#players tbody td.score', (tds) => tds.map((t) => Number(t.textContent))));
  const results = [];
  for (const p of [a, b, c]) results.push(await p.$eval('#result-text', (r) => r.textContent));
  log('final scores', JSON.stringify(scores[0]), results[0]);
  assert.deepEqual(scores[1], scores[0], 'page B sees the scores page A sees');
  assert.deepEqual(scores[2], scores[0], 'the watcher sees the same scores');
  // The breakdown sums the score events' points: each column adds up to
  // the player's final score.
  const columns = await a.$$eval('#breakdown tbody tr', (rs) => rs.reduce((sum, r) => {
    [...r.querySelectorAll('td')].forEach((td, i) => { sum[i] = (sum[i] || 0) + Number(td.textContent); });
    return sum;
  }, []));
  assert.deepEqual(columns, scores[0], 'the points by category add up to the final scores');
  assert.equal(results[1], results[0]);
  assert.equal(results[2], results[0]);
  const replay = await c.$eval('#replay-link', (r) => r.href);
  assert.match(replay, /\/game\/[^/]+\/replay\.html$/);
  const got = await fetch(replay);
  assert.equal(got.status, 200, 'the replay viewer of the finished game is served');
  await c.goto(replay);
  await checkAxe(c, 'the replay page');
  // After a restart the finished game has left the server's memory; the
  // lobby still lists it among the recent games, with its result and its
  // replay, read from the store.
  await stopServer(server);
  await startServer(new URL(BASE).port);
  await c.goto(BASE + '/');
  const recent = `#recent-games li[data-game="${game}"]`;
  await c.waitForSelector(recent);
  const recentText = await c.$eval(recent, (li) => li.textContent);
  for (const s of scores[0]) assert.ok(recentText.includes(` ${s}`), `the recent game shows the score ${s}: ${recentText}`);
  assert.match(await c.$eval(`${recent} a`, (l) => l.getAttribute('href')), new RegExp(`^/game/${game}/replay\\.html$`));
  log('recent games after a restart:', recentText);
  await shot(c, 'lobby-recent.png');
  await checkAxe(c, 'the lobby');

  // The watcher saw nothing private.
  const tokens = links.map((l) => new URLSearchParams(new URL(l).hash.slice(1)).get('token'));
  const isState = (m) => m.type === 'state' || m.type === 'update';
  const states = watched.filter(isState);
  assert.ok(states.length > 10, `the watcher followed the game (${states.length} states and updates)`);
  // The pages follow the game by its updates, patching the picture in
  // place: a full state only on joining, after the server's restart, or
  // after a reload (a patch that failed would ask for one each time).
  for (const [name, frames] of [['A', framesA], ['C', watched]]) {
    const full = frames.filter((m) => m.type === 'state').length;
    assert.ok(full <= 6, `page ${name} got ${full} full states; it should follow by updates`);
  }
  const updates = watched.filter((m) => m.type === 'update');
  assert.ok(updates.length > 10 && updates.every((m) => m.svg_changes && m.svg === undefined),
    `the watcher's updates carry the picture's changes, not the picture (${updates.length} updates)`);
  for (const m of watched) {
    const text = JSON.stringify(m);
    for (const t of tokens) assert.ok(!text.includes(t), 'no seat token reaches the watcher');
    assert.ok(!['created', 'claimed', 'hint'].includes(m.type), `the watcher got a ${m.type} message`);
    if (!isState(m)) continue;
    assert.equal(m.you, null, 'the watcher acts for no seat');
    assert.ok(m.actions === undefined || (Array.isArray(m.actions) && m.actions.length === 0),
      `the watcher gets no legal actions (ply ${m.ply})`);
    assert.ok(!m.marked, `the watcher's picture is not the decision view (ply ${m.ply})`);
    assert.ok(!m.svg || !m.svg.includes('data-cas-choices'), `no marks in the watcher's picture (ply ${m.ply})`);
    for (const [, , part] of m.svg_changes?.put || [])
      assert.ok(!part.includes('data-cas-choices'), `no marks in the watcher's picture changes (ply ${m.ply})`);
    for (const e of m.events || []) assert.equal(typeof e.text, 'string');
  }
  log(`watcher: ${watched.length} frames, ${states.length} states, nothing private`);
  // Its events are public: each one reached both players too.
  const seen = (frames) => new Set(frames.filter(isState)
    .flatMap((m) => (m.events || []).map((e) => `${e.ply}|${e.text}`)));
  const [evA, evB, evC] = [seen(framesA), seen(framesB), seen(watched)];
  assert.ok(evC.size > 0, 'the watcher got the event log');
  for (const e of evC) assert.ok(evA.has(e) && evB.has(e), `the watcher's event "${e}" reached both seats`);
  log(`events: ${evC.size} seen by the watcher, each seen by both seats too (${evA.size}, ${evB.size})`);

  // The game is in the store, finished, with those scores.
  const list = execFileSync(CASTELLAN, ['saves', 'list', '--database', db], { env, encoding: 'utf8' });
  log('saves list:\n' + list);
  const row = list.split('\n').find((l) => new RegExp(`^\\s*${game}\\s`).test(l));
  assert.ok(row, `game ${game} is in castellan saves list`);
  assert.match(row, /finished/);
  assert.match(row, /carcassonne.*inns-cathedrals/);
  const shown = JSON.parse(execFileSync(CASTELLAN,
    ['saves', 'show', game, '--json', '--database', db, '--plugin-path', PLUGINS], { env, encoding: 'utf8' }));
  assert.equal(shown.status, 'finished');
  assert.deepEqual(shown.scores, scores[0], 'the store has the scores the pages show');
  await claimOpenSeat(a, b, c);
  await correspondence(a, b, c);
  await lobbyFollows(a);
  await browser.close();
  browser = null;
  await stopServer(server);
  server = null;
  for (const p of [a, b, c]) assert.deepEqual(p.errors, [], `${p.name}: no script errors`);
  log(`clicks: ${markClicks} on the board (${keyboardPicks} of them by the keyboard), ${buttonClicks} on action buttons, ${confirms} on Confirm`);
  assert.ok(markClicks > 100, 'the game was played by clicking the board');
  log('passed');
}

let failed = false;
try {
  await main();
} catch (e) {
  failed = true;
  console.error('FAILED:', e.stack || e);
  for (const [i, p] of opened.entries()) {
    const alert = await p.$eval('#alert', (a) => a.hidden ? '' : a.textContent).catch(() => '');
    if (alert) console.error(`${p.name} shows: ${alert}`);
    await p.screenshot({ path: path.join(OUT, `failure-${i}.png`), fullPage: true }).catch(() => {});
  }
} finally {
  clearTimeout(guard);
  await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
