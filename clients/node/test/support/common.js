// What the Node client tests share: paths, a poll loop (Awaitility's, not a sleep), process guards.
import { execFileSync, spawn as spawnChild } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REPO = join(PACKAGE_ROOT, '..', '..');
export const CONFORMANCE = join(REPO, 'clients', 'conformance.json');
/** How long a condition may take to come true on a loaded 2-core machine before a test fails. */
export const PATIENCE_MS = Number(process.env.ZKFENCE_TEST_PATIENCE ?? 30) * 1000;

export const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Polls `condition` (sync or async) until it returns something truthy, which it returns; fails naming `what`. */
export async function awaitTrue(what, condition, timeoutMs = PATIENCE_MS, everyMs = 50) {
  const end = performance.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (e) {
      last = e;
    }
    if (performance.now() >= end) {
      throw new Error(`not true within ${Math.round(timeoutMs / 1000)} s: ${what}${last ? `; last: ${last.message}` : ''}`);
    }
    await sleep(everyMs);
  }
}

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const { port } = server.address();
  await new Promise((resolve) => { server.close(resolve); });
  return port;
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** Starts `argv` with its output appended to `log`; the child is killed if this process dies (setpriv). */
export function spawn(argv, log, { runAs = [], cwd } = {}) {
  const fd = openSync(log, 'a');
  try {
    const guarded = SETPRIV ? [SETPRIV, ...runAs, '--pdeathsig', 'KILL', '--', ...argv] : argv;
    return spawnChild(guarded[0], guarded.slice(1), { stdio: ['ignore', fd, fd], cwd });
  } finally {
    closeSync(fd);
  }
}

export function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

export function waitForExit(child, timeoutMs = 60_000) {
  if (exited(child)) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pid ${child.pid} did not exit in ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
}

/** The java binary and the server module's class path (clients/testing/server-classpath). */
export function javaAndClasspath() {
  const out = execFileSync(join(REPO, 'clients', 'testing', 'server-classpath'), { encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'] }).split('\n');
  return { java: out[0], classpath: out[1] };
}
