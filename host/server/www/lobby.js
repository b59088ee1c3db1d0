// lobby.js — the lobby's list as the server's numbered changes build it
// (protocol 3, docs/server.md "lobby"): a whole list, then changes that
// put, move on or remove entries.  Pure: node's unit test runs it too.

// The list after msg, given the list held (null: none yet).  Returns
// { list, resume }: resume is the number to resume after when msg does
// not follow the list held (a change missed), list then the one held.
// A message without "delta" (a whole list, or an older server's list)
// replaces what is held.
export function applyLobby(held, msg) {
  if (!msg.delta) return { list: { ...msg, games: [...(msg.games || [])] }, resume: null };
  if (!held || typeof held.seq !== 'number') return { list: held, resume: -1 };
  if (msg.seq <= held.seq) return { list: held, resume: null }; // had it already
  if (msg.seq !== held.seq + 1) return { list: held, resume: held.seq };
  const gone = new Set(msg.remove || []);
  const put = new Map((msg.put || []).map((g) => [g.game, g]));
  const moved = new Map((msg.moved || []).map((g) => [g.game, g]));
  const known = new Set(held.games.map((g) => g.game));
  // new games first, newest first, as the server lists them
  const games = (msg.put || []).filter((g) => !known.has(g.game)).reverse();
  for (const g of held.games) {
    if (gone.has(g.game)) continue;
    if (put.has(g.game)) games.push(put.get(g.game));
    else if (moved.has(g.game)) games.push({ ...g, ...moved.get(g.game) });
    else games.push(g);
  }
  const list = { ...held, seq: msg.seq, games };
  if (msg.finished) list.finished = msg.finished;
  return { list, resume: null };
}
