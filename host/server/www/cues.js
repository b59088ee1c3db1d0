// cues.js — the "your turn" cue (docs/web-client.md, "Table settings"):
// the tab's title, a short sound, a Notification while the tab is hidden.
// Each is off until the player turns it on; the choices are kept in this
// browser.

const KEYS = { title: 'castellan.cue.title', sound: 'castellan.cue.sound', notify: 'castellan.cue.notify' };

function get(which) {
  try { return localStorage.getItem(KEYS[which]) === 'on'; } catch { return false; }
}

function set(which, on) {
  try { localStorage.setItem(KEYS[which], on ? 'on' : 'off'); } catch { /* private mode */ }
}

// Wires the three checkboxes {title, sound, notify}.
export function wireCues(boxes) {
  for (const [which, box] of Object.entries(boxes)) {
    box.checked = get(which);
    box.addEventListener('change', async () => {
      if (which === 'notify' && box.checked && 'Notification' in window && Notification.permission === 'default') {
        box.checked = (await Notification.requestPermission()) === 'granted';
      }
      set(which, box.checked);
    });
  }
}

let wasMine = false;

// Called with every state: cues once when the turn becomes the player's.
export function turnCue(mine, baseTitle, what) {
  document.title = mine && get('title') ? `▶ Your turn — ${baseTitle}` : baseTitle;
  if (mine && !wasMine) {
    if (get('sound')) beep();
    if (get('notify') && document.hidden && 'Notification' in window && Notification.permission === 'granted')
      try { new Notification('castellan: your turn', { body: what, tag: 'castellan-turn' }); } catch { /* not allowed here */ }
  }
  wasMine = mine;
}

function beep() {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.3);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.3);
    osc.onended = () => ctx.close();
  } catch { /* no audio */ }
}
