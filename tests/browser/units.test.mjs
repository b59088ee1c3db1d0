// units.test.mjs — the browser client's pure functions, in node alone
// (CTest browser_units; no browser needed): names with colours, the
// hint's words, the game-over breakdown, the help entries, the lobby's list
// from its changes.

import assert from 'node:assert/strict';
import { withNames, who, hintWords, breakdown } from '../../host/server/www/panels.js';
import { parseHelp, helpFor } from '../../host/server/www/help.js';

const players = [{ seat: 0, name: 'Ada', label: 'Red' }, { seat: 1, name: 'Bob', label: 'Blue' },
  { seat: 2, name: 'Green', label: 'Green' }, { seat: 3, label: 'Yellow' }];

// Names with colours, once, on whole words only.
assert.equal(who(players, 0), 'Ada (Red)');
assert.equal(who(players, 2), 'Green', 'a name that is the label is said once');
assert.equal(who(players, 3), 'Seat 4 (Yellow)');
assert.equal(who(players, null), 'the game');
const once = withNames('Red +4 city; Blue passes; Reddish stays', players);
assert.equal(once, 'Ada (Red) +4 city; Bob (Blue) passes; Reddish stays');
assert.equal(withNames(once, players), once, 'naming twice changes nothing');

// The greedy hint's reason in plain words.
assert.equal(hintWords('it leaves you +4 against the best opponent after your move (+0 now; the best other choice, +2)'),
  'After this move you would be 4 points ahead of the best other player (now you are level with them). No other move does as well.');
assert.equal(hintWords('it leaves you -1 against the best opponent after your move (-3 now)'),
  'After this move you would be 1 point behind the best other player (now you are 3 points behind them).');
assert.match(hintWords('it leaves you +2 against the best opponent after your move (+2 now; the best other choice, +2)'), /Another move does as well\.$/);
assert.equal(hintWords('a bot of its own words'), 'a bot of its own words');

// Points by category from the log's score events, as the page names them
// or as the plugin wrote them.
// The breakdown reads the score events' data, never their text: the
// scorer is score.player (not the actor), a missing category is "points".
const table = breakdown([
  { ply: 3, player: 0, text: 'Red +4 city (2 tiles)', score: { player: 0, points: 4, category: 'city', final: false } },
  { ply: 5, player: 1, text: 'words that say nothing', score: { player: 0, points: 2, category: 'road', final: false } },
  { ply: 7, player: 1, text: 'Blue +3 city', score: { player: 1, points: 3, category: 'city', final: true } },
  { ply: 8, player: 1, text: 'Blue +9 city, but no score data' },
  { ply: 9, player: null, text: 'Red +1 city', score: { player: 0, points: 1, category: 'city', final: true } },
  { ply: 10, player: 1, text: 'Blue +2', score: { player: 1, points: 2, category: null, final: false } },
]);
assert.deepEqual([...table.keys()], ['city', 'road', 'points']);
assert.deepEqual([...table.get('city')], [[0, 5], [1, 3]]);
assert.deepEqual([...table.get('road')], [[0, 2]]);
assert.deepEqual([...table.get('points')], [[1, 2]]);

// Help entries from a notation help, and the ones a decision needs.
const help = parseHelp(`Carcassonne actions (docs/notation/carcassonne.md):
  place ID X,Y ROT     put the drawn tile ID with its anchor at X,Y,
                       turned ROT degrees clockwise
  pass                 deploy nothing this turn

castles-germany:
  castle ID X,Y ROT    instead of drawing, place a castle of your hand
  castle keep          draw as usual and keep your castles
  deploy meeple castle
                       the lord of the castle just placed
`);
assert.deepEqual(help.map((e) => e.words), ['place ID X,Y ROT', 'pass', 'castle ID X,Y ROT', 'castle keep', 'deploy meeple castle']);
assert.equal(help[0].text, 'put the drawn tile ID with its anchor at X,Y, turned ROT degrees clockwise');
assert.deepEqual(helpFor(help, ['castle keep', 'castle CG-1 0,1 90', 'pass', 'deploy meeple castle', 'place D 1,0 0']).map((e) => e.words),
  ['castle keep', 'castle ID X,Y ROT', 'pass', 'deploy meeple castle', 'place ID X,Y ROT']);
assert.deepEqual(helpFor(help, ['wagon home']), [], 'nothing made up for an action the help does not name');

console.log('browser_units: names, hint words, breakdown and help entries as expected');

// Correspondence: the time left in words, the lobby's "your turn" first.
{
  const { timeWords, correspondenceClock, yourTurnFirst } = await import('../../host/server/www/turns.js');
  const h = 3600 * 1000, d = 24 * h;
  assert.equal(timeWords(2 * d + 4 * h + 59 * 60000), '2 days 4 h');
  assert.equal(timeWords(d), '1 day');
  assert.equal(timeWords(5 * h + 12 * 60000), '5 h 12 min');
  assert.equal(timeWords(40 * 60000 + 999), '40 min');
  assert.equal(timeWords(-5), 'less than a minute');
  const clock = { days_per_move: 3, running: true };
  assert.equal(correspondenceClock(clock, 2 * d + 4 * h, true), '2 days 4 h left to move');
  assert.equal(correspondenceClock(clock, 3 * d, false), '3 days per move');
  assert.equal(correspondenceClock({ days_per_move: 1, running: false }, d, true), '1 day per move');
  const games = [{ game: '1', status: 'running', to_move: 0 }, { game: '2', status: 'running', to_move: 1 },
    { game: '3', status: 'over', to_move: null }, { game: '4', status: 'running', to_move: 0 }];
  const mine = { 2: [1], 3: [0], 4: [0, 1] };
  const order = yourTurnFirst(games, (g) => mine[g] || []);
  assert.deepEqual(order.map((g) => g.game), ['2', '4', '1', '3']);
  assert.deepEqual(order.map((g) => g.yourTurn), [true, true, false, false]);
}

// The lobby's list from its whole list and numbered changes (protocol 3).
{
  const { applyLobby } = await import('../../host/server/www/lobby.js');
  const whole = { type: 'lobby', seq: 10, presets: ['default'], finished: [],
    games: [{ game: '2', ply: 0, status: 'open' }, { game: '1', ply: 4, status: 'running' }] };
  let { list, resume } = applyLobby(null, whole);
  assert.equal(resume, null);
  assert.deepEqual(list.games.map((g) => g.game), ['2', '1']);
  ({ list, resume } = applyLobby(list, { type: 'lobby', seq: 11, delta: true,
    put: [{ game: '3', ply: 0, status: 'open' }, { game: '4', ply: 0, status: 'open' },
      { game: '2', ply: 0, status: 'running' }],
    moved: [{ game: '1', ply: 5, to_move: 0 }], remove: [], finished: [{ game: '0' }] }));
  assert.equal(resume, null);
  assert.equal(list.seq, 11);
  assert.deepEqual(list.games.map((g) => g.game), ['4', '3', '2', '1'], 'new games first, newest first');
  assert.equal(list.games[2].status, 'running');
  assert.deepEqual(list.games[3], { game: '1', ply: 5, status: 'running', to_move: 0 });
  assert.deepEqual(list.presets, ['default'], 'what only whole lists carry is kept');
  assert.deepEqual(list.finished, [{ game: '0' }]);
  const at11 = list;
  ({ list, resume } = applyLobby(at11, { type: 'lobby', seq: 12, delta: true, put: [], moved: [],
    remove: ['3'] }));
  assert.deepEqual(list.games.map((g) => g.game), ['4', '2', '1']);
  assert.deepEqual(list.finished, [{ game: '0' }], 'a change without finished keeps them');
  // A change missed: resume after the last held, the list unchanged.
  ({ list, resume } = applyLobby(at11, { type: 'lobby', seq: 13, delta: true, put: [], moved: [], remove: [] }));
  assert.equal(resume, 11);
  assert.equal(list, at11);
  // One held already (a resume's overlap) changes nothing; no list held: a whole list.
  assert.deepEqual(applyLobby(at11, { type: 'lobby', seq: 11, delta: true, put: [], moved: [], remove: ['1'] }),
    { list: at11, resume: null });
  assert.equal(applyLobby(null, { type: 'lobby', seq: 5, delta: true }).resume, -1);
  // An older server's list (no seq, no changes) is whole every time.
  ({ list, resume } = applyLobby(at11, { type: 'lobby', games: [{ game: '9' }] }));
  assert.deepEqual(list.games, [{ game: '9' }]);
}
