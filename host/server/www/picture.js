// picture.js — the game's picture on the page: the plugin's SVG parsed as
// an SVG document, stripped of anything that runs code or fetches, and
// either installed whole or patched in place by an update's changes
// (docs/server.md, "Picture changes"): keyed top-level elements added,
// replaced or removed, the root's attributes renewed.  Patching keeps the
// <svg> element itself, so whatever the page attached to it (a zoom and
// pan viewport, listeners) stays.
//
// The rest of the client reaches the picture through two functions only:
//   installPicture(host, text)  -> the new <svg> element, or null
//   patchPicture(host, changes) -> true, or false when the changes do not
//                                  fit (ask the server for the full state)
// where host is the element or shadow root the picture lives in.

const SVG_NS = 'http://www.w3.org/2000/svg';
const DROP = new Set(['script', 'foreignobject', 'iframe', 'object', 'embed', 'audio', 'video',
  'handler', 'listener', 'set', 'animate', 'animatetransform', 'animatemotion', 'discard']);
const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp);/i;
const ROOT_TAG = /<svg\b(?:[^>"']|"[^"]*"|'[^']*')*>/;

// Removes from node and everything under it what could run or fetch.
function clean(top) {
  const walk = [top];
  while (walk.length) {
    const node = walk.pop();
    for (const attr of [...node.attributes]) {
      const name = attr.name.toLowerCase();
      const value = attr.value.trim();
      if (name.startsWith('on')) node.removeAttributeNode(attr);
      else if ((name === 'href' || name === 'xlink:href' || attr.localName === 'href')
               && !value.startsWith('#') && !(node.localName === 'image' && SAFE_IMAGE.test(value)))
        node.removeAttributeNode(attr);
      else if (name === 'style' && /url\s*\(\s*['"]?(?!#)|expression|@import/i.test(value))
        node.removeAttributeNode(attr);
      else if (/url\s*\(\s*['"]?(?!#)/i.test(value)) node.removeAttributeNode(attr);
    }
    if (node.localName === 'style')
      node.textContent = node.textContent.replace(/@import[^;]*;?/gi, '')
        .replace(/url\s*\(\s*['"]?(?!#)[^)]*\)/gi, 'none');
    for (const kid of [...node.children]) {
      if (DROP.has(kid.localName.toLowerCase()) || kid.namespaceURI !== SVG_NS) kid.remove();
      else walk.push(kid);
    }
  }
}

function parseSvg(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (!root || root.localName !== 'svg' || root.namespaceURI !== SVG_NS ||
      doc.getElementsByTagName('parsererror').length) return null;
  return root;
}

// The root's attributes made to scale to the window: the viewBox says the
// shape, CSS the size.
function fitRoot(root) {
  if (!root.getAttribute('viewBox')) {
    const w = parseFloat(root.getAttribute('width')), h = parseFloat(root.getAttribute('height'));
    if (w > 0 && h > 0) root.setAttribute('viewBox', `0 0 ${w} ${h}`);
  }
  root.removeAttribute('width');
  root.removeAttribute('height');
  root.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  root.setAttribute('role', 'img');
}

// A whole picture, sanitized, as an element of this document, or null.
export function sanitizeSvg(text) {
  const root = parseSvg(text);
  if (!root) return null;
  clean(root);
  fitRoot(root);
  return document.importNode(root, true);
}

// Installs the picture `text` into host in place of what it held; returns
// the <svg> element, or null (and host emptied) when there is none.
export function installPicture(host, text) {
  const svg = text ? sanitizeSvg(text) : null;
  if (!svg) { host.replaceChildren(); return null; }
  const tag = text.match(ROOT_TAG);
  svg.casRoot = tag ? tag[0] : '<svg xmlns="http://www.w3.org/2000/svg">';
  host.replaceChildren(svg);
  return svg;
}

// One element of the picture, parsed in the namespaces of its root.
function parseElement(rootTag, text) {
  const wrapper = parseSvg(rootTag + text + '</svg>');
  const el = wrapper && wrapper.firstElementChild;
  if (!el || DROP.has(el.localName.toLowerCase()) || el.namespaceURI !== SVG_NS) return null;
  clean(el);
  return document.importNode(el, true);
}

// Applies an update's picture changes to the picture in host.
export function patchPicture(host, changes) {
  const svg = [...host.children].find((e) => e.localName === 'svg');
  if (!svg || !changes) return false;
  const byKey = new Map();
  for (const e of svg.children) {
    const k = e.getAttribute('data-cas-key');
    if (k !== null) byKey.set(k, e);
  }
  if (changes.root) {
    const fresh = parseSvg(changes.root + '</svg>');
    if (!fresh) return false;
    clean(fresh);
    fitRoot(fresh);
    const keep = new Set(['aria-label', ...[...fresh.attributes].map((a) => a.name)]);
    for (const a of [...svg.attributes]) if (!keep.has(a.name)) svg.removeAttribute(a.name);
    for (const a of fresh.attributes) svg.setAttribute(a.name, a.value);
    svg.casRoot = changes.root;
  }
  for (const k of changes.remove || []) {
    const e = byKey.get(k);
    if (!e) return false;
    e.remove();
    byKey.delete(k);
  }
  for (const [key, after, text] of changes.put || []) {
    const el = parseElement(svg.casRoot, text);
    if (!el) return false;
    const prev = after === null ? null : byKey.get(after);
    if (after !== null && !prev) return false;
    byKey.get(key)?.remove();
    if (prev) prev.after(el); else svg.prepend(el);
    byKey.set(key, el);
  }
  return true;
}
