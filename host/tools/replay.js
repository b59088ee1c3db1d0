// replay.js — the replay page's viewer (host/tools/replay_html.c): steps
// through a saved game whose plies the page carries as data.  The build
// puts it after the table's picture module (host/server/www/picture.js,
// its exports made plain functions) in one script: the same sanitizer and
// the same patching of keyed pictures as the live table.
//
// A ply carries its picture as the changes from the ply before ("changes",
// docs/server.md "Picture changes"; the first from no picture), or whole
// ("svg") when the plugin keys nothing.  The page holds a picture in
// memory as its root tag and its keyed elements' texts in order (strings
// shared between plies, never copied), and keeps one such checkpoint
// every CHECKPOINT plies, built once at load.  Any ply is then a
// checkpoint plus fewer than CHECKPOINT changes applied to strings; the
// board itself is patched by the difference between what it shows and
// that ply (a step forward by the ply's own changes), and rebuilt whole
// only where a picture is not keyed.

var CHECKPOINT = 16;

var plies = JSON.parse(document.getElementById('plies').textContent);
var names = JSON.parse(document.getElementById('players').textContent);

// ---------------------------------------------------------- pictures

function emptyPicture() { return { root: '', keys: [], texts: [] }; }

function copyPicture(p) {
  return p.whole !== undefined ? { whole: p.whole }
    : { root: p.root, keys: p.keys.slice(), texts: p.texts.slice() };
}

function cutOut(p, i) { p.keys.splice(i, 1); p.texts.splice(i, 1); }

// Ply f's picture from p's (p is changed; the result may be another
// object), or null when the changes do not fit p.
function advance(p, f) {
  if (f.changes === undefined) return { whole: f.svg };
  var ch = f.changes;
  if (p.whole !== undefined) p = emptyPicture(); // a whole picture is followed from nothing
  if (ch.root) p.root = ch.root;
  for (var r = 0; r < ch.remove.length; r++) {
    var gone = p.keys.indexOf(ch.remove[r]);
    if (gone < 0) return null;
    cutOut(p, gone);
  }
  for (var u = 0; u < ch.put.length; u++) {
    var key = ch.put[u][0], after = ch.put[u][1], held = p.keys.indexOf(key);
    if (held >= 0) cutOut(p, held);
    var at = after === null ? 0 : p.keys.indexOf(after) + 1;
    if (at === 0 && after !== null) return null;
    p.keys.splice(at, 0, key);
    p.texts.splice(at, 0, ch.put[u][2]);
  }
  return p;
}

function pictureText(p) {
  return p.whole !== undefined ? p.whole : p.root + p.texts.join('') + '</svg>';
}

// The changes that turn picture a into b (both keyed), as the host
// computes them (host/tools/picture_changes.c): elements kept in place
// and unchanged are not sent, every other is put after its predecessor.
function changesBetween(a, b) {
  var where = new Map(), kept = new Set(), last = -1, ch = { put: [], remove: [] };
  a.keys.forEach(function (k, i) { where.set(k, i); });
  if (a.root !== b.root) ch.root = b.root;
  b.keys.forEach(function (k, i) {
    var o = where.get(k);
    if (o !== undefined) {
      kept.add(k);
      if (o > last && a.texts[o] === b.texts[i]) { last = o; return; }
    }
    ch.put.push([k, i ? b.keys[i - 1] : null, b.texts[i]]);
  });
  a.keys.forEach(function (k) { if (!kept.has(k)) ch.remove.push(k); });
  return ch;
}

var checkpoints = [];
(function () {
  var p = emptyPicture();
  for (var i = 0; i < plies.length; i++) {
    p = advance(p, plies[i]) || { whole: '' };
    if (i % CHECKPOINT === 0) checkpoints.push(copyPicture(p));
  }
})();

function pictureAt(i) {
  var from = i - i % CHECKPOINT, p = copyPicture(checkpoints[from / CHECKPOINT]);
  for (var j = from + 1; j <= i && p; j++) p = advance(p, plies[j]);
  return p || { whole: '' };
}

// ---------------------------------------------------------- the page

var known = { red: '#d7261e', blue: '#1f5fbf', green: '#2e9a3e', yellow: '#e0b000',
  black: '#2b2b2b', pink: '#e46fb0', purple: '#7b3fa0', orange: '#e07a1f' };
var spare = ['#d7261e', '#1f5fbf', '#2e9a3e', '#e0b000', '#7b3fa0', '#e07a1f'];
function colour(i) {
  var m = /\(([A-Za-z]+)\)$/.exec(names[i]);
  var k = m && known[m[1].toLowerCase()];
  return k || spare[i % spare.length];
}
var $ = function (id) { return document.getElementById(id); };
var board = $('board'), slider = $('slider'), cur = -1, shown = null, last = plies.length - 1;
slider.max = String(last);
var W = 300, H = 120, P = 6;

var top = 1;
plies.forEach(function (p) { p.scores.forEach(function (s) { if (s > top) top = s; }); });
function xy(i, s) { return [P + (W - 2 * P) * (last ? i / last : 0), H - P - (H - 2 * P) * Math.max(s, 0) / top]; }
var chart = $('chart');
names.forEach(function (n, p) {
  var pts = plies.map(function (f, i) {
    return xy(i, f.scores[p] || 0).map(function (v) { return v.toFixed(1); }).join(',');
  });
  var l = document.createElementNS(SVG_NS, 'polyline');
  l.setAttribute('points', pts.join(' '));
  l.setAttribute('fill', 'none');
  l.setAttribute('stroke', colour(p));
  l.setAttribute('stroke-width', '2');
  chart.appendChild(l);
});
var axis = document.createElementNS(SVG_NS, 'text');
axis.setAttribute('x', P + 2);
axis.setAttribute('y', P + 10);
axis.setAttribute('font-size', '10');
axis.setAttribute('fill', '#7a6a52');
axis.textContent = String(top) + ' points';
chart.appendChild(axis);
var cursor = document.createElementNS(SVG_NS, 'line');
cursor.setAttribute('y1', 0);
cursor.setAttribute('y2', H);
cursor.setAttribute('stroke', '#2a2118');
cursor.setAttribute('stroke-dasharray', '3 3');
chart.appendChild(cursor);
var rows = $('scores');
names.forEach(function (n, p) {
  var tr = rows.insertRow(), a = tr.insertCell(), b = tr.insertCell();
  var sw = document.createElement('span');
  sw.className = 'swatch';
  sw.style.background = colour(p);
  a.appendChild(sw);
  a.appendChild(document.createTextNode(n));
  b.className = 'pts';
});

// Puts picture p on the board: patched from what it shows when both are
// keyed (by the ply's own changes on a step forward), else whole.
function showPicture(p, stepped) {
  var patched = false;
  if (shown && shown.whole === undefined && p.whole === undefined && board.firstElementChild) {
    var ch = stepped && stepped.changes ? stepped.changes : changesBetween(shown, p);
    patched = patchPicture(board, ch);
  }
  if (!patched) installPicture(board, pictureText(p));
  shown = p;
}

function show(i) {
  i = Math.max(0, Math.min(last, i | 0));
  if (i === cur) return;
  var f = plies[i], p = null;
  if (i === cur + 1 && shown) p = advance(copyPicture(shown), f);
  if (!p) p = pictureAt(i);
  showPicture(p, i === cur + 1 ? f : null);
  cur = i;
  slider.value = String(i);
  $('plylabel').textContent = i === 0 ? 'start' : 'ply ' + i + ' of ' + last;
  $('action').textContent = i === 0 ? 'The game begins' : (f.who + (f.text ? ': ' + f.text : ''));
  var ev = $('events');
  ev.textContent = '';
  f.events.forEach(function (t) {
    var li = document.createElement('li');
    li.textContent = t;
    ev.appendChild(li);
  });
  f.scores.forEach(function (s, p) { rows.rows[p].cells[1].textContent = String(s); });
  var x = xy(i, 0)[0].toFixed(1);
  cursor.setAttribute('x1', x);
  cursor.setAttribute('x2', x);
  $('first').disabled = $('prev').disabled = i === 0;
  $('next').disabled = $('last').disabled = i === last;
  document.body.setAttribute('data-ply', String(i));
  if (history.replaceState) history.replaceState(null, '', '#ply=' + i);
}

$('first').onclick = function () { show(0); };
$('prev').onclick = function () { show(cur - 1); };
$('next').onclick = function () { show(cur + 1); };
$('last').onclick = function () { show(last); };
slider.oninput = function () { show(+slider.value); };
document.addEventListener('keydown', function (e) {
  var k = e.key, to = null;
  if (k === 'ArrowRight' || k === 'ArrowDown') to = cur + 1;
  else if (k === 'ArrowLeft' || k === 'ArrowUp') to = cur - 1;
  else if (k === 'Home') to = 0;
  else if (k === 'End') to = last;
  else if (k === 'PageDown') to = cur + 10;
  else if (k === 'PageUp') to = cur - 10;
  if (to !== null) { e.preventDefault(); show(to); }
});
var asked = /^#ply=(\d+)$/.exec(location.hash);
show(asked ? +asked[1] : 0);
