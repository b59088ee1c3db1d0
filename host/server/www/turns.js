// turns.js — correspondence games in the browser client (docs/server.md,
// "Correspondence"): the time left to move in words, and the lobby's
// order, the games where it is this viewer's turn first.  Pure functions,
// tested in node (tests/browser/units.test.mjs).

const HOUR = 3600 * 1000, DAY = 24 * HOUR;

// "2 days 4 h", "1 day", "5 h 12 min", "40 min", "less than a minute".
export function timeWords(ms) {
  const left = Math.max(0, ms);
  const days = Math.floor(left / DAY), hours = Math.floor((left % DAY) / HOUR);
  const minutes = Math.floor((left % HOUR) / 60000);
  const unit = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  if (days) return unit(days, 'day', 'days') + (hours ? ` ${hours} h` : '');
  if (hours) return `${hours} h` + (minutes ? ` ${minutes} min` : '');
  return minutes ? `${minutes} min` : 'less than a minute';
}

// What a seat's clock cell says in a correspondence game.
export function correspondenceClock(clock, clockMs, acting) {
  if (!acting || !clock.running) return `${clock.days_per_move} ${clock.days_per_move === 1 ? 'day' : 'days'} per move`;
  return `${timeWords(clockMs)} left to move`;
}

// The lobby's games, those where it is one of mySeats(game)'s turn first
// (otherwise in the server's order), each marked yourTurn.  mySeats: the
// seats this viewer holds in a game — today the seat links the browser
// remembers; a signed-in player's seats may be added there.
export function yourTurnFirst(games, mySeats) {
  const marked = games.map((g, i) => ({ g: { ...g, yourTurn: g.status !== 'over' &&
    typeof g.to_move === 'number' && mySeats(g.game).includes(g.to_move) }, i }));
  marked.sort((a, b) => (b.g.yourTurn - a.g.yourTurn) || (a.i - b.i));
  return marked.map((m) => m.g);
}
