import { spawn } from 'node:child_process';
import fs from 'node:fs';
import puppeteer from 'puppeteer-core';
const W = process.env.W || 1280, H = process.env.H || 860;
const dir = fs.mkdtempSync('/tmp/tscr-');
const srv = spawn('/work/wt/t/build/host/castellan', ['serve', '--listen', '127.0.0.1:0', '--database', dir + '/s.db', '--www', '/work/wt/t/host/server/www', '--plugin-path', '/work/wt/t/build/plugins'], { env: { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
let said = '';
const base = await new Promise((ok) => { const h = (c) => { said += c; const m = said.match(/\(port (\d+)\)/); if (m) ok('http://127.0.0.1:' + m[1]); }; srv.stdout.on('data', h); srv.stderr.on('data', h); });
const browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
  page.on('console', (m) => console.log('console', m.text()));
  await page.setViewport({ width: +W, height: +H, isMobile: W < 500, hasTouch: W < 500 });
  await page.goto(base + '/');
  await page.waitForSelector('#game option[value="carcassonne"]');
  await page.$eval('#custom', (d) => { d.open = true; });
  await page.select('#game', 'carcassonne'); await (await page.waitForSelector('#expansions input[value="inns-cathedrals"]', { visible: true })).click();
  await page.$$eval('#seats li', (ls) => { ls[0].querySelector('input').value = 'Ada'; ls[0].querySelector('select').value = 'human'; ls[1].querySelector('input').value = 'Bea'; ls[1].querySelector('select').value = 'greedy'; });
  await page.type('#seed', '7');
  await page.$eval('#custom-form button[type="submit"]', (b) => b.click());
  await page.waitForSelector('#invites li[data-seat="0"] button');
  await page.$eval('#invites li[data-seat="0"] button:last-of-type', (b) => b.click());
  await page.waitForSelector('body[data-ply]');
  const plies = +(process.env.PLIES || 0);
  for (let i = 0; i < plies; i++) {
    await page.waitForFunction(() => !document.getElementById('decide').hidden && document.body.dataset.busy !== 'true', { timeout: 30000 });
    const ply = await page.$eval('body', (b) => b.dataset.ply);
    for (let k = 0; k < 8; k++) {
      if (await page.$eval('body', (b, p) => b.dataset.busy === 'true' || b.dataset.ply !== p, ply)) break;
      if (await page.$eval('body', (b) => b.dataset.confirm === 'true')) { await page.click('#place-confirm'); continue; }
      const ok = await page.evaluate(() => {
        const m = document.getElementById('board').shadowRoot.querySelector('g.marks .cas-active') || document.getElementById('tray').shadowRoot?.querySelector('button.cas-active');
        if (m) { m.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true })); return true; }
        const b = document.querySelector('#candidates button.action, #others button.action');
        if (b) { b.click(); return true; } return false;
      });
      if (!ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await page.waitForFunction((p) => document.body.dataset.ply !== p || document.body.dataset.over === 'true', { timeout: 30000 }, ply);
  }
  await page.waitForFunction(() => !document.getElementById('decide').hidden, { timeout: 30000 });
  await page.screenshot({ path: '/tmp/tshots/a.png' });
  const m = await page.evaluate(() => { const m = document.getElementById('board').shadowRoot.querySelector('g.marks .cas-active'); const r = m.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, r.width]; });
  console.log('mark at', m);
  await page.mouse.click(m[0], m[1]);
  await new Promise((r) => setTimeout(r, 300));
  await page.screenshot({ path: '/tmp/tshots/b.png' });
  console.log(await page.evaluate(() => JSON.stringify(document.body.dataset)));
  console.log(await page.evaluate(() => { const r = document.getElementById('board').shadowRoot; const svg = r.querySelector('svg'); return JSON.stringify({ vb: svg.getAttribute('viewBox'), zoom: document.getElementById('board').dataset.zoom, ov: svg.querySelector('.cas-overlay')?.outerHTML.slice(0, 600), box: svg.querySelector('[data-cas-box]')?.outerHTML.slice(0,300), bb: JSON.stringify(svg.querySelector('g.board').getBBox()) }); }));
} finally { await browser.close(); srv.kill(); }
