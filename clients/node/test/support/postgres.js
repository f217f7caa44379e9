// A real PostgreSQL server for the fence tests: initdb + postgres from the machine's PostgreSQL
// packages in a temporary folder, on a random port (as the unprivileged 'postgres' user when the
// tests run as root, which PostgreSQL refuses).
import { execFileSync } from 'node:child_process';
import {
  chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  awaitTrue, exited, freePort, spawn, waitForExit,
} from './common.js';

function binDir() {
  if (process.env.ZKFENCE_TEST_PG_BINDIR) return process.env.ZKFENCE_TEST_PG_BINDIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  if (!versions.length) {
    throw new Error("no PostgreSQL server found (install Debian's 'postgresql' package, as .ci/run does, or set "
      + 'ZKFENCE_TEST_PG_BINDIR)');
  }
  return join(root, versions.sort((a, b) => Number(a) - Number(b)).at(-1), 'bin');
}

function postgresUser() {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error("the tests run as root and there is no 'postgres' user to run PostgreSQL as");
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export class Postgres {
  static async start() {
    const server = new Postgres();
    await server.#start();
    return server;
  }

  constructor() {
    this.bin = binDir();
    this.dir = mkdtempSync(join(tmpdir(), 'zkfence-node-pg-'));
    this.runAs = [];
    if (userInfo().uid === 0) {
      const { uid, gid } = postgresUser();
      chownSync(this.dir, uid, gid);
      this.runAs = ['--reuid=postgres', '--regid=postgres', '--init-groups'];
    }
  }

  async #start() {
    const data = join(this.dir, 'data');
    const initdb = [join(this.bin, 'initdb'), '-D', data, '-U', 'zkfence', '--auth=trust', '-E', 'UTF8', '--no-sync',
      '--no-instructions'];
    execFileSync(this.runAs.length ? 'setpriv' : initdb[0],
      this.runAs.length ? [...this.runAs, '--', ...initdb] : initdb.slice(1), { cwd: this.dir, stdio: 'ignore' });
    this.port = await freePort();
    this.proc = spawn([join(this.bin, 'postgres'), '-D', data, '-p', String(this.port), '-k', this.dir,
      '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=40'], join(this.dir, 'postgres.log'),
    { runAs: this.runAs, cwd: this.dir });
    await awaitTrue(`PostgreSQL accepting connections on port ${this.port}`, async () => {
      if (exited(this.proc)) throw new Error(readFileSync(join(this.dir, 'postgres.log'), 'utf8'));
      const client = this.client();
      try {
        await client.connect();
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => {});
      }
    }, 60_000);
    this.pool = new pg.Pool({ host: '127.0.0.1', port: this.port, user: 'zkfence', database: 'postgres', max: 8 });
  }

  client() {
    return new pg.Client({ host: '127.0.0.1', port: this.port, user: 'zkfence', database: 'postgres' });
  }

  async stop() {
    await this.pool?.end();
    if (this.proc && !exited(this.proc)) {
      this.proc.kill('SIGTERM');
      await waitForExit(this.proc, 30_000).catch(() => this.proc.kill('SIGKILL'));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
