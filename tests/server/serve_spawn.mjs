// serve_spawn.mjs — `castellan serve` started by a node test or measuring
// client on 127.0.0.1, port 0 (any free one), with its own store in dir:
// resolves once the server says where it listens.  The caller stops it
// with stop(), which resolves with its exit {code, signal} and everything
// it printed; if the caller's process exits first, the server is stopped.
import { spawn } from 'node:child_process';
import path from 'node:path';

export async function startServe({ castellan, plugins, dir, args = [] }) {
  const server = spawn(castellan, ['serve', '--listen', '127.0.0.1:0', '--database', path.join(dir, 's.db'),
    '--plugin-path', plugins, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  // a caller that exits early (a guard, a refusal) leaves no server behind
  const orphan = () => server.kill('SIGTERM');
  process.once('exit', orphan);
  let said = '';
  const exited = new Promise((done) => server.once('exit', (code, signal) => done({ code, signal })));
  const port = await new Promise((resolve, reject) => {
    const hear = (chunk) => {
      said += chunk;
      const m = said.match(/\(port (\d+)\)/) || said.match(/http:\/\/127\.0\.0\.1:([1-9]\d*)/);
      if (m) resolve(Number(m[1]));
    };
    server.stdout.setEncoding('utf8').on('data', hear);
    server.stderr.setEncoding('utf8').on('data', hear);
    server.once('exit', (code) => reject(new Error(`castellan serve exited (${code}):\n${said}`)));
  });
  const stop = async () => {
    process.off('exit', orphan);
    server.kill('SIGTERM');
    return { ...(await exited), said };
  };
  return { port, stop };
}
