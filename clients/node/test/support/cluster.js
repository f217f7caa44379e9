// A real zkfence-server deployment for the tests: one ZooKeeper server and two replicas, each a
// JVM of its own started from the server module's class path, so that a replica can be paused
// (SIGSTOP), resumed and stopped (SIGTERM) like a pod.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  awaitTrue, exited, freePort, javaAndClasspath, spawn, waitForExit,
} from './common.js';

export const APP_KEY = 'app-key-0123456789abcdef';
export const OTHER_KEY = 'other-key-0123456789abcdef';
export const OPS_KEY = 'ops-key-0123456789abcdef';
const JVM = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xmx256m'];
const LISTENING = /zkfence-server: listening \(HTTP\) on [^ ]*:(\d+),/g;

class Replica {
  constructor(cluster, name) {
    this.cluster = cluster;
    this.name = name;
    this.starts = 0;
    this.port = 0;
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  start() {
    this.starts += 1;
    this.log = join(this.cluster.dir, `replica-${this.name}-${this.starts}.log`);
    const c = this.cluster;
    // No warm-up: the scenarios restart replicas often, and a replica's first slow calls are no
    // behaviour of the client's (the warm-up has its own test, WarmUpTest). A lag bound of 0: the
    // suites' ZooKeeper is one standalone server, with no follower to fall behind a leader.
    this.proc = spawn([c.java, ...JVM, '-cp', c.classpath, 'io.zkfence.server.ServerCommand', '--zookeeper',
      c.zookeeper, '--port', '0', '--api-keys', c.keys, '--warm-up-cycles', '0',
      '--zookeeper-lag-bound-ms', '0'], this.log);
  }

  async awaitListening() {
    this.port = await awaitTrue(`replica ${this.name} listening`, () => {
      const log = readFileSync(this.log, 'utf8');
      if (exited(this.proc)) throw new Error(`replica ${this.name} exited: ${log}`);
      const found = [...log.matchAll(LISTENING)];
      return found.length ? Number(found.at(-1)[1]) : 0;
    }, 120_000);
  }

  alive() {
    return this.proc && !exited(this.proc);
  }

  pause() {
    process.kill(this.proc.pid, 'SIGSTOP');
  }

  resume() {
    process.kill(this.proc.pid, 'SIGCONT');
  }

  /** SIGTERM, as Kubernetes stops a pod; resolves to the exit code. */
  terminate() {
    const exit = waitForExit(this.proc);
    this.proc.kill('SIGTERM');
    return exit;
  }

  async kill() {
    if (this.alive()) {
      this.resume();
      this.proc.kill('SIGKILL');
      await waitForExit(this.proc);
    }
  }
}

export class Cluster {
  static async start() {
    const cluster = new Cluster();
    try {
      await cluster.#start();
    } catch (e) {
      await cluster.stop();
      throw e;
    }
    return cluster;
  }

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'zkfence-node-clients-'));
    Object.assign(this, javaAndClasspath());
    this.keys = join(this.dir, 'keys.json');
    writeFileSync(this.keys, JSON.stringify({
      keys: [
        { name: 'app', key: APP_KEY, namespaces: ['conf', 'inventory-service'] },
        { name: 'other', key: OTHER_KEY, namespaces: ['elsewhere'] },
        { name: 'ops', key: OPS_KEY, admin: true },
      ],
    }));
    this.a = new Replica(this, 'A');
    this.b = new Replica(this, 'B');
    this.v2 = false;
  }

  async #start() {
    const zkPort = await freePort();
    this.zookeeper = `127.0.0.1:${zkPort}`;
    this.zk = spawn([this.java, ...JVM, '-Dzookeeper.admin.enableServer=false', '-Dzookeeper.4lw.commands.whitelist=ruok',
      '-cp', this.classpath, 'org.apache.zookeeper.server.ZooKeeperServerMain', String(zkPort), join(this.dir, 'zk-data')],
    join(this.dir, 'zookeeper.log'));
    await awaitTrue(`ZooKeeper serving on ${this.zookeeper}`, () => ruok(zkPort), 120_000);
    this.a.start();
    this.b.start();
    await this.a.awaitListening();
    await this.b.awaitListening();
    const probe = `conf:probe-${process.pid}`;
    const { status, body } = await this.http('POST', probe, '/acquire', { ownerId: 'probe', ttlMillis: 1000 });
    if (status !== 200) throw new Error(`probe acquire: ${status} ${JSON.stringify(body)}`);
    this.v2 = 'validForMillis' in body;
    await this.http('POST', probe, '/release', { ownerId: 'probe', lockToken: body.lockToken });
  }

  /** Replicas a scenario paused are resumed, stopped ones started again (on a new port). */
  async ensureRunning() {
    for (const r of [this.a, this.b]) {
      if (r.alive()) {
        r.resume();
      } else {
        r.start();
        await r.awaitListening();
      }
    }
  }

  async stop() {
    await this.a.kill();
    await this.b.kill();
    if (this.zk && !exited(this.zk)) {
      this.zk.kill('SIGKILL');
      await waitForExit(this.zk);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Raw HTTP, for what the tests do beside the client (status, force-release). */
  async http(method, key, suffix = '', body = undefined, { apiKey = APP_KEY, replica = this.b } = {}) {
    const res = await fetch(`${replica.url}/v1/locks/${encodeURIComponent(key)}${suffix}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  async lockStatus(key) {
    return (await this.http('GET', key)).body;
  }

  async waiters(key) {
    return ((await this.lockStatus(key)).waiters ?? []).map((w) => w.ownerId);
  }
}

function ruok(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    let answer = '';
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false); });
    socket.on('error', () => resolve(false));
    socket.on('data', (d) => { answer += d; });
    socket.on('close', () => resolve(answer === 'imok'));
    socket.connect(port, '127.0.0.1', () => socket.end('ruok'));
  });
}
