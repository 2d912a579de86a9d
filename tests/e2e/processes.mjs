// The processes the SSR tests start: the example's server, and a redis-server of their own.
// Each listens on a free loopback port and stops by itself (or when the tests end).
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';

const SERVER = process.env.SSR_SERVER;
const SITE = process.env.SSR_SITE;
const OUTPUT_NAME = process.env.SSR_OUTPUT_NAME;

const children = [];

/** Stops every process started here. */
export function stopAll() {
  for (const c of children) c.kill();
}

/**
 * A fresh SSR example server on a free loopback port, with `args` after its defaults (its API
 * allows 2 answers every 3 s, the first window spent); resolves to its URL, what it has
 * written to standard error so far (`log()`) and `kill(signal)`. It stops by itself in 2
 * minutes.
 */
export async function serve(args = []) {
  const child = spawn(SERVER, ['--stop-after', '120', '--quota', '2', '--window-s', '3', ...args], {
    env: { ...process.env, LEPTOS_OUTPUT_NAME: OUTPUT_NAME, LEPTOS_SITE_ROOT: SITE, LEPTOS_SITE_ADDR: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
    process.stderr.write(d);
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}) before it listened:\n${out}${err}`)));
  });
  return { url, log: () => err, kill: (signal) => child.kill(signal) };
}

/** A free loopback port. */
async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on `port`. */
async function listening(port) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const c = connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Debian's redis-server on `port` (a free one by default), saving nothing; resolves once it
 * listens, to its URL, its port, `stop()`, which resolves once it has exited, and
 * `signal(name)`.
 */
export async function startRedis(port) {
  port ??= await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  children.push(child);
  await listening(port);
  const exited = new Promise((r) => child.on('exit', r));
  return {
    url: `redis://127.0.0.1:${port}/`,
    port,
    stop: async () => { child.kill(); await exited; },
    // `SIGSTOP` pauses it (it keeps its connections and answers nothing), `SIGCONT` resumes it.
    signal: (signal) => child.kill(signal),
  };
}
