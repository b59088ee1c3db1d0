// reference.mjs — the reference side of CTest ratings_reference: reads one
// game a line, {"r": [[mu, sigma], ...], "place": [0, 1, ...]}, and writes
// openskill's updated ratings for it, one line "mu sigma mu sigma ..." each,
// every number printed exactly (JavaScript prints the shortest text that
// reads back as the same double).
import { rate, rating } from 'openskill';
import { createInterface } from 'node:readline';

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const game = JSON.parse(line);
  const teams = game.r.map(([mu, sigma]) => [rating({ mu, sigma })]);
  const out = rate(teams, { rank: game.place });
  process.stdout.write(out.map(([p]) => `${p.mu} ${p.sigma}`).join(' ') + '\n');
}
