// The conformance scenarios against a real service: ZooKeeper and replicas A and B (support/cluster.js).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inspect } from 'node:util';
import {
  Client, ForbiddenError, LeaseExpiredError, LeaseLostError, LockHeldError, NotLockOwnerError, RequestFinishedError,
  StaleTokenError, UnauthorizedError, BadRequestError,
} from '../../src/index.js';
import { PgFence } from '../../src/pg.js';
import { APP_KEY, OPS_KEY, OTHER_KEY } from '../support/cluster.js';
import {
  PACKAGE_ROOT, PATIENCE_MS, awaitTrue, freePort, waitForExit,
} from '../support/common.js';
import { LossyProxy } from '../support/proxy.js';
import { capturingLogger } from '../support/conformance.js';
import { ScriptedReplica, problem } from '../support/scripted.js';

const quiet = {};
const withTimeout = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) => {
  setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms).unref();
})]);

/** What a service scenario gets: the cluster, its replicas, a key of its own, client makers. */
export class ServiceContext {
  constructor(t, cluster, postgres) {
    this.t = t;
    this.cluster = cluster;
    this.postgres = postgres;
    this.a = cluster.a;
    this.b = cluster.b;
    this.key = `conf:${t.name.split(':')[0].slice(0, 24)}-${randomUUID().slice(0, 8)}`;
  }

  client(replicas, options = {}) {
    return new Client(replicas.map((r) => (typeof r === 'string' ? r : r.url)),
      { apiKey: APP_KEY, logger: quiet, ...options });
  }

  async closedPort() {
    return `http://127.0.0.1:${await freePort()}`;
  }
}

async function forceRelease(c) {
  const { status, body } = await c.cluster.http('POST', c.key, '/force-release', { reason: 'conformance' },
    { apiKey: OPS_KEY });
  assert.deepEqual([status, body.status], [200, 'FORCE_RELEASED']);
}

const aborted = (signal) => new Promise((resolve) => {
  if (signal.aborted) resolve();
  else signal.addEventListener('abort', resolve, { once: true });
});

async function proxyTo(c, replica) {
  const proxy = await LossyProxy.start(replica.url);
  c.t.after(() => proxy.close());
  return proxy;
}

async function businessTable(c) {
  const table = `biz_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  await c.postgres.pool.query(`CREATE TABLE ${table} (k VARCHAR(255) PRIMARY KEY, v VARCHAR(255))`);
  return table;
}

async function writeThroughFence(c, fence, table, token, value) {
  await fence.inTransaction(c.postgres.pool, c.key, token, (client) => client.query(
    `INSERT INTO ${table} (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [c.key, value],
  ));
}

export const service = {
  async 'lock-and-release'(c) {
    const client = c.client([c.a, c.b]);
    const lease = await client.acquire(c.key, { ttlMs: 10_000, waitMs: 5000 });
    assert.ok(lease.valid);
    assert.ok(lease.fencingToken > 0n);
    const status = await client.status(c.key);
    assert.deepEqual([status.locked, status.ownerId, status.fencingToken], [true, client.ownerId, lease.fencingToken]);
    assert.equal(await lease.release(), true);
    assert.equal((await client.status(c.key)).locked, false);
  },

  async 'held-lock-refused-with-owner'(c) {
    const c1 = c.client([c.a]);
    const c2 = c.client([c.b]);
    await c1.withLock(c.key, { ttlMs: 10_000, waitMs: 0 }, async () => {
      const refused = await c2.acquire(c.key, { ttlMs: 10_000, waitMs: 0 }).then(() => undefined, (e) => e);
      assert.ok(refused instanceof LockHeldError, String(refused));
      assert.equal(refused.owner, c1.ownerId);
      assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 10_000, String(refused.retryAfterMs));
      assert.deepEqual([refused.status, refused.code], [409, 'LOCK_ALREADY_HELD']);
    });
  },

  async 'waiter-granted-on-release-with-higher-token'(c) {
    const c1 = c.client([c.a]);
    const c2 = c.client([c.b]);
    const first = await c1.acquire(c.key, { ttlMs: 10_000, waitMs: 0 });
    const waiting = c2.acquire(c.key, { ttlMs: 10_000, waitMs: 20_000 });
    await awaitTrue('owner 2 waits', async () => (await c.cluster.waiters(c.key)).includes(c2.ownerId));
    await first.release();
    const second = await withTimeout(waiting, PATIENCE_MS, 'the waiter');
    assert.ok(second.fencingToken > first.fencingToken);
    await second.release();
  },

  async 'wait-runs-out-as-lock-held'(c) {
    const c1 = c.client([c.a]);
    const c2 = c.client([c.b]);
    await c1.withLock(c.key, { ttlMs: 30_000, waitMs: 0 }, async () => {
      const start = performance.now();
      await assert.rejects(c2.acquire(c.key, { ttlMs: 10_000, waitMs: 1000 }), LockHeldError);
      assert.ok(performance.now() - start >= 1000);
      assert.deepEqual(await c.cluster.waiters(c.key), []);
    });
  },

  async 'same-request-id-same-grant'(c) {
    const ownerId = `owner-${randomUUID().slice(0, 6)}`;
    const requestId = randomUUID();
    const first = await c.client([c.a], { ownerId }).acquire(c.key, { ttlMs: 10_000, waitMs: 0, requestId });
    const again = await c.client([c.b], { ownerId }).acquire(c.key, { ttlMs: 10_000, waitMs: 0, requestId });
    assert.equal(again.fencingToken, first.fencingToken);
    const status = await c.cluster.lockStatus(c.key);
    assert.deepEqual([status.ownerId, status.waiters], [ownerId, []]);
    await first.release();
    await again.release();
  },

  async 'renewal-keeps-lease-past-ttl'(c) {
    const lost = [];
    const lease = await c.client([c.a, c.b]).acquire(c.key, { ttlMs: 1500, waitMs: 0, onLost: (l) => lost.push(l) });
    const first = (await c.cluster.lockStatus(c.key)).expiresAt;
    await awaitTrue('renewals push expiresAt 3 s on',
      async () => ((await c.cluster.lockStatus(c.key)).expiresAt ?? 0) >= first + 3000);
    assert.ok(lease.valid);
    await assert.rejects(c.client([c.b]).acquire(c.key, { ttlMs: 5000, waitMs: 0 }), LockHeldError);
    assert.equal(await lease.release(), true);
    assert.deepEqual(lost, []);
  },

  async 'paused-replica-lease-invalid-at-local-deadline'(c) {
    const calls = [];
    const lease = await c.client([c.a]).acquire(c.key, { ttlMs: 3000, waitMs: 0, onLost: (l) => calls.push(l) });
    c.a.pause();
    try {
      assert.ok(lease.valid);
      const deadline = performance.now() + lease.remainingMs(); // fixed now: no renewal can get through
      const lostAt = await withTimeout(new Promise((resolve) => {
        lease.signal.addEventListener('abort', () => resolve(performance.now()), { once: true });
      }), lease.remainingMs() + PATIENCE_MS, 'the lost signal');
      assert.ok(lostAt >= deadline - 10, `lost ${deadline - lostAt} ms before the deadline`);
      assert.equal(lease.valid, false);
      assert.throws(() => lease.check(), LeaseLostError);
      await awaitTrue('the lost callback ran once', () => calls.length === 1 && calls[0] === lease);
      const reason = lease.lostReason;
      assert.ok(!(reason instanceof LeaseExpiredError || reason instanceof NotLockOwnerError
        || reason instanceof RequestFinishedError), String(reason));
    } finally {
      c.a.resume();
    }
    await lease.release();
  },

  async 'paused-replica-renewal-fails-over'(c) {
    const lease = await c.client([c.a, c.b]).acquire(c.key, { ttlMs: 2000, waitMs: 0 });
    const first = (await c.cluster.lockStatus(c.key)).expiresAt;
    c.a.pause();
    try {
      await awaitTrue('renewals through B push expiresAt 4 s on',
        async () => ((await c.cluster.lockStatus(c.key)).expiresAt ?? 0) >= first + 4000);
      assert.ok(lease.valid);
      assert.equal(lease.signal.aborted, false);
    } finally {
      c.a.resume();
    }
    assert.equal(await lease.release(), true);
  },

  async 'shutdown-503-fails-over-same-request-id'(c) {
    const holder = c.client([c.b]);
    const { records, logger } = capturingLogger();
    const waiter = c.client([c.a, c.b], { logger });
    const held = await holder.acquire(c.key, { ttlMs: 30_000, waitMs: 0 });
    const aUrl = c.a.url;
    const waiting = waiter.acquire(c.key, { ttlMs: 10_000, waitMs: 30_000 });
    await awaitTrue('owner 2 waits (on A)', async () => (await c.cluster.waiters(c.key)).includes(waiter.ownerId));
    await c.a.terminate();
    await awaitTrue('owner 2 waits again (on B)', async () => (await c.cluster.waiters(c.key)).includes(waiter.ownerId));
    await held.release();
    const granted = await withTimeout(waiting, PATIENCE_MS, 'the waiter');
    assert.ok(granted.fencingToken > held.fencingToken);
    const refused = records.filter((r) => r.fields.replica === aUrl && r.message.includes('SHUTTING_DOWN'));
    assert.ok(refused.length, `A's 503 SHUTTING_DOWN is in the client's log: ${JSON.stringify(records)}`);
    assert.equal(refused[0].fields.requestId, granted.requestId);
    await granted.release();
  },

  async 'unavailable-503-fails-over-same-request-id'(c) {
    const down = await ScriptedReplica.start(() => problem(503, 'UNAVAILABLE', 'ZooKeeper did not answer'));
    c.t.after(() => down.close());
    const client = c.client([down.url, c.b]);
    const lease = await client.acquire(c.key, { ttlMs: 10_000, waitMs: 0 });
    assert.equal((await c.cluster.lockStatus(c.key)).ownerId, client.ownerId);
    const acquires = down.of('acquire');
    assert.ok(acquires.length);
    assert.equal(acquires[0].body.requestId, lease.requestId);
    await lease.release();
  },

  async 'unreachable-replica-fails-over'(c) {
    const lease = await c.client([await c.closedPort(), c.a]).acquire(c.key, { ttlMs: 10_000, waitMs: 0 });
    await lease.renew();
    assert.equal(await lease.release(), true);
  },

  async 'stale-writer-rejected-by-fence'(c) {
    const fence = new PgFence();
    await fence.createIfMissing(c.postgres.pool);
    const table = `biz_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    await c.postgres.pool.query(`CREATE TABLE ${table} (k VARCHAR(255) PRIMARY KEY, v VARCHAR(255))`);
    const p = c.client([c.a]);
    const q = c.client([c.b]);
    const held = await p.acquire(c.key, { ttlMs: 2000, waitMs: 0 });
    await writeThroughFence(c, fence, table, held.fencingToken, 'P-1');
    c.a.pause();
    let newer;
    try {
      newer = await q.acquire(c.key, { ttlMs: 10_000, waitMs: 20_000 });
      assert.ok(newer.fencingToken > held.fencingToken);
      await writeThroughFence(c, fence, table, newer.fencingToken, 'Q-1');
      // Q was granted after P's lease ended on the service, which is no earlier than P's local deadline.
      assert.equal(held.valid, false);
      const stale = await writeThroughFence(c, fence, table, held.fencingToken, 'P-2').then(() => undefined, (e) => e);
      assert.ok(stale instanceof StaleTokenError, String(stale));
      assert.deepEqual([stale.resource, stale.presentedToken, stale.storedToken],
        [c.key, held.fencingToken, newer.fencingToken]);
      const { rows } = await c.postgres.pool.query(`SELECT v FROM ${table} WHERE k = $1`, [c.key]);
      assert.equal(rows[0].v, 'Q-1');
    } finally {
      c.a.resume();
    }
    await newer.release();
  },

  async 'force-released-lease-lost-on-renewal'(c) {
    const calls = [];
    const lease = await c.client([c.a, c.b]).acquire(c.key, { ttlMs: 3000, waitMs: 0, onLost: (l) => calls.push(l) });
    const { status, body } = await c.cluster.http('POST', c.key, '/force-release', { reason: 'conformance' },
      { apiKey: OPS_KEY });
    assert.deepEqual([status, body.status], [200, 'FORCE_RELEASED']);
    await awaitTrue('the lease is lost', () => lease.signal.aborted);
    assert.ok(lease.lostReason instanceof LeaseExpiredError, String(lease.lostReason));
    await awaitTrue('the lost callback ran once', () => calls.length === 1 && calls[0] === lease);
    assert.equal(await lease.release(), false);
  },

  async 'unauthorized-not-retried'(c) {
    const { records, logger } = capturingLogger();
    const refused = await c.client([c.a, c.b], { apiKey: 'not-a-key-0123456789', logger })
      .acquire(c.key, { ttlMs: 5000, waitMs: 0 }).then(() => undefined, (e) => e);
    assert.ok(refused instanceof UnauthorizedError, String(refused));
    assert.equal(refused.status, 401);
    assert.deepEqual(records.filter((r) => r.level !== 'debug'), [], 'no retry was logged');
    assert.equal(records.filter((r) => r.message.includes('sending')).length, 1, 'one request');
  },

  async 'namespace-forbidden'(c) {
    const refused = await c.client([c.a], { apiKey: OTHER_KEY }).acquire(c.key, { ttlMs: 5000, waitMs: 0 })
      .then(() => undefined, (e) => e);
    assert.ok(refused instanceof ForbiddenError, String(refused));
    assert.deepEqual([refused.status, refused.code], [403, 'NAMESPACE_FORBIDDEN']);
  },

  async 'bad-request-names-field'(c) {
    const refused = await c.client([c.a]).acquire(c.key, { ttlMs: 7_200_000, waitMs: 0 }).then(() => undefined, (e) => e);
    assert.ok(refused instanceof BadRequestError, String(refused));
    assert.match(refused.message, /ttlMillis/);
  },

  async 'lock-token-never-shown'(c) {
    const { records, logger } = capturingLogger();
    const sent = [];
    // The client shows the token nowhere; the test reads it off the wire, from the renew request.
    const recording = (url, init) => {
      sent.push({ url, body: init.body });
      return fetch(url, init);
    };
    const client = c.client([await c.closedPort(), c.a], { logger, fetch: recording });
    const lease = await client.acquire(c.key, { ttlMs: 5000, waitMs: 0 });
    await lease.renew();
    await lease.release();
    const lost = (() => {
      try {
        lease.check();
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    assert.ok(lost instanceof LeaseLostError);
    const token = JSON.parse(sent.find((r) => r.url.endsWith('/renew')).body).lockToken;
    assert.ok(token && records.length);
    const shown = [inspect(lease), String(lease), JSON.stringify(lease), inspect(client), String(client),
      JSON.stringify(client), lost.message, inspect(lost), inspect(lease.signal.reason),
      ...records.map((r) => r.message + JSON.stringify(r.fields))];
    for (const text of shown) {
      assert.ok(!text.includes(token), text);
      assert.ok(!text.includes(APP_KEY), text);
    }
  },

  async 'request-finished-never-a-grant'(c) {
    const client = c.client([c.a, c.b]);
    const requestId = randomUUID();
    await (await client.acquire(c.key, { ttlMs: 10_000, waitMs: 0, requestId })).release();
    const finished = await client.acquire(c.key, { ttlMs: 10_000, waitMs: 0, requestId }).then(() => undefined, (e) => e);
    assert.ok(finished instanceof RequestFinishedError, String(finished));
    assert.equal(finished.outcome, 'RELEASED');
    assert.equal((await client.status(c.key)).locked, false);
  },

  async 'forged-token-not-lock-owner'(c) {
    // The test hook: a fetch that swaps the lease's lockToken for one the service never issued.
    let forge = false;
    const forging = (url, init) => {
      if (!forge || !url.endsWith('/renew')) return fetch(url, init);
      const body = { ...JSON.parse(init.body), lockToken: `forged-${randomUUID()}` };
      return fetch(url, { ...init, body: JSON.stringify(body) });
    };
    const lease = await c.client([c.a, c.b], { fetch: forging }).acquire(c.key, { ttlMs: 10_000, waitMs: 0 });
    forge = true;
    const lost = await lease.renew().then(() => undefined, (e) => e);
    assert.ok(lost instanceof LeaseLostError && lost.reason instanceof NotLockOwnerError, String(lost));
    forge = false;
    await lease.release();
  },

  async 'queue-grant-renewed-within-shorter-validity'(c) {
    const c1 = c.client([c.a]);
    const c2 = c.client([c.b]);
    const first = await c1.acquire(c.key, { ttlMs: 10_000, waitMs: 0 });
    // A TTL between what an unconfirmed grant may be answered valid for (2/3 of the 15 s session) and
    // twice that: granted without a write and answered valid for less than its TTL.
    const waiting = c2.acquire(c.key, { ttlMs: 15_000, waitMs: 20_000 });
    await awaitTrue('owner 2 waits', async () => (await c.cluster.waiters(c.key)).includes(c2.ownerId));
    await first.release();
    const lease = await withTimeout(waiting, PATIENCE_MS, 'the waiter');
    const firstValidityEnds = performance.now() + lease.remainingMs();
    assert.ok(lease.remainingMs() < 14_000);
    await awaitTrue('past the first validity', () => performance.now() > firstValidityEnds + 500, 90_000);
    assert.ok(lease.valid);
    await lease.release();
  },

  async 'cancel-waiting-acquire'(c) {
    const c1 = c.client([c.a]);
    const c2 = c.client([c.b]);
    await c1.withLock(c.key, { ttlMs: 30_000, waitMs: 0 }, async () => {
      const controller = new AbortController();
      const waiting = c2.acquire(c.key, { ttlMs: 10_000, waitMs: 30_000, signal: controller.signal });
      await awaitTrue('owner 2 waits', async () => (await c.cluster.waiters(c.key)).includes(c2.ownerId));
      const reason = new Error('the caller gave up');
      controller.abort(reason);
      await assert.rejects(waiting, (e) => e === reason);
      await awaitTrue('the queue entry is gone', async () => (await c.cluster.waiters(c.key)).length === 0);
      assert.equal((await c.cluster.lockStatus(c.key)).ownerId, c1.ownerId);
    });
  },

  async 'paused-client-check-fails-and-write-rejected'(c) {
    const fence = new PgFence();
    await fence.createIfMissing(c.postgres.pool);
    const table = await businessTable(c);
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'test', 'support', 'paused-client.mjs'), c.key, table,
      String(c.postgres.port), c.a.url, c.b.url], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ZKFENCE_API_KEY: APP_KEY } });
    c.t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
    const lines = [];
    createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l)));
    const held = BigInt((await awaitTrue('the client process holds the lock', () => lines[0])).held);
    process.kill(child.pid, 'SIGSTOP');
    let newer;
    try {
      newer = await c.client([c.b]).acquire(c.key, { ttlMs: 10_000, waitMs: 20_000 });
      assert.ok(newer.fencingToken > held);
      await writeThroughFence(c, fence, table, newer.fencingToken, 'Q-1');
    } finally {
      process.kill(child.pid, 'SIGCONT');
    }
    child.stdin.end('go\n');
    const result = await awaitTrue('the client process reports', () => lines[1]);
    assert.equal(await waitForExit(child), 0);
    assert.match(result.check, /^LeaseLostError/, JSON.stringify(result));
    assert.deepEqual([result.write, result.stored], ['StaleTokenError', String(newer.fencingToken)]);
    const { rows } = await c.postgres.pool.query(`SELECT v FROM ${table} WHERE k = $1`, [c.key]);
    assert.equal(rows[0].v, 'Q-1');
    await newer.release();
  },

  async 'replica-killed-mid-wait'(c) {
    const holder = c.client([c.b]);
    const { records, logger } = capturingLogger();
    const waiter = c.client([c.a, c.b], { logger });
    const held = await holder.acquire(c.key, { ttlMs: 30_000, waitMs: 0 });
    const aUrl = c.a.url;
    const waiting = waiter.acquire(c.key, { ttlMs: 10_000, waitMs: 40_000 });
    await awaitTrue('owner 2 waits (on A)', async () => (await c.cluster.waiters(c.key)).includes(waiter.ownerId));
    await c.a.kill();
    await awaitTrue("owner 2's attempt on A failed", () => records.some((r) => r.fields.replica === aUrl
      && r.message.includes('failed')));
    await held.release();
    const granted = await withTimeout(waiting, PATIENCE_MS * 2, 'the waiter');
    assert.ok(granted.fencingToken > held.fencingToken);
    const failed = records.filter((r) => r.fields.replica === aUrl && r.message.includes('failed'));
    assert.equal(failed[0].fields.requestId, granted.requestId);
    await granted.release();
  },

  async 'replica-killed-mid-renew'(c) {
    const proxy = await proxyTo(c, c.a);
    const lost = [];
    const lease = await c.client([proxy.url, c.b]).acquire(c.key, { ttlMs: 3000, waitMs: 0, onLost: (l) => lost.push(l) });
    const first = (await c.cluster.lockStatus(c.key)).expiresAt;
    await proxy.awaitLine('forwarded renew');
    await c.a.kill();
    await awaitTrue('renewals through B push expiresAt 4 s on',
      async () => ((await c.cluster.lockStatus(c.key)).expiresAt ?? 0) >= first + 4000);
    assert.ok(lease.valid);
    assert.deepEqual(lost, []);
    assert.equal(await lease.release(), true);
  },

  async 'grant-answer-lost-mid-wait'(c) {
    const proxy = await proxyTo(c, c.a);
    const holder = c.client([c.b]);
    const waiter = c.client([proxy.url, c.b]);
    const held = await holder.acquire(c.key, { ttlMs: 30_000, waitMs: 0 });
    await proxy.drop('acquire');
    const waiting = waiter.acquire(c.key, { ttlMs: 10_000, waitMs: 20_000 });
    await awaitTrue('owner 2 waits (on A, through the proxy)',
      async () => (await c.cluster.waiters(c.key)).includes(waiter.ownerId));
    await held.release();
    const granted = await withTimeout(waiting, PATIENCE_MS, 'the waiter');
    await proxy.awaitLine('dropped acquire');
    assert.ok(granted.fencingToken > held.fencingToken);
    const status = await c.cluster.lockStatus(c.key);
    assert.deepEqual([status.ownerId, BigInt(status.fencingToken), status.waiters],
      [waiter.ownerId, granted.fencingToken, []]);
    assert.equal(await granted.release(), true);
  },

  async 'renewal-answer-lost'(c) {
    const proxy = await proxyTo(c, c.a);
    const lost = [];
    const lease = await c.client([proxy.url, c.b]).acquire(c.key, { ttlMs: 3000, waitMs: 0, onLost: (l) => lost.push(l) });
    const first = (await c.cluster.lockStatus(c.key)).expiresAt;
    await proxy.drop('renew');
    await proxy.awaitLine('dropped renew');
    await awaitTrue('renewals push expiresAt 4 s on',
      async () => ((await c.cluster.lockStatus(c.key)).expiresAt ?? 0) >= first + 4000);
    assert.ok(lease.valid);
    assert.deepEqual(lost, []);
    assert.equal(await lease.release(), true);
  },

  async 'block-end-after-loss-raises'(c) {
    const client = c.client([c.a, c.b]);
    let first;
    const e = await client.withLock(c.key, { ttlMs: 3000, waitMs: 0 }, async (lease) => {
      first = lease;
      await forceRelease(c);
      await withTimeout(aborted(lease.signal), PATIENCE_MS, 'the lost signal');
      return 'done';
    }).then(() => undefined, (error) => error);
    assert.ok(e instanceof LeaseLostError, String(e));
    assert.ok(e.reason instanceof LeaseExpiredError, String(e.reason));
    assert.equal(first.state, 'released');
    let second;
    const result = await client.withLock(c.key, { ttlMs: 3000, waitMs: 0, throwIfLost: false }, async (lease) => {
      second = lease;
      await forceRelease(c);
      await withTimeout(aborted(lease.signal), PATIENCE_MS, 'the lost signal');
      return 'done';
    });
    assert.equal(result, 'done');
    assert.equal(second.state, 'released');
  },

  async 'event-loop-blocked-past-deadline'(c) {
    const lease = await c.client([c.a, c.b]).acquire(c.key, { ttlMs: 2000, waitMs: 0 });
    assert.ok(lease.valid);
    const end = performance.now() + 3000;
    while (performance.now() < end) { /* the event loop is blocked: no timer, no renewal can run */ }
    assert.equal(lease.valid, false);
    assert.throws(() => lease.check(), LeaseLostError);
    assert.equal(lease.signal.aborted, false, 'no lost signal could be delivered while the loop was blocked');
    await lease.release();
    const other = await c.client([c.b]).acquire(c.key, { ttlMs: 5000, waitMs: 10_000 });
    await other.release();
  },
};
