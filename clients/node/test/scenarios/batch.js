// The batch renewal scenarios (Client.renewAll, POST /v1/leases/renew): against the real service
// (ServiceContext) and a scripted replica (ScriptedContext).
import assert from 'node:assert/strict';
import {
  Client, LeaseExpiredError, LeaseLostError, NotLockOwnerError,
} from '../../src/index.js';
import { OPS_KEY } from '../support/cluster.js';
import { awaitTrue } from '../support/common.js';
import { capturingLogger } from '../support/conformance.js';
import { LossyProxy } from '../support/proxy.js';
import { grant } from '../support/scripted.js';

/** `fn` over `items`, at most `width` at a time, results in order. */
async function pooled(items, width, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

const acquireMany = (c, client, n, options) => pooled(Array.from({ length: n }, (_, i) => `${c.key}-${i}`), 8,
  (key) => client.acquire(key, { waitMs: 0, autoRenew: false, ...options }));
const expiresAt = async (c, key) => (await c.cluster.lockStatus(key)).expiresAt;
const batchSends = (records) => records.filter((r) => r.level === 'debug' && r.message.startsWith('batch renewal')
  && r.message.includes('sending')).map((r) => r.message);

export const batchService = {
  async 'batch-renewal-renews-every-lease'(c) {
    const log = capturingLogger();
    const client = c.client([c.a, c.b], { logger: log.logger });
    const leases = await acquireMany(c, client, 3, { ttlMs: 3000 });
    const granted = await Promise.all(leases.map((l) => expiresAt(c, l.key)));
    await awaitTrue("1 s of the leases' validity passed", () => leases.every((l) => l.remainingMs() < 2000));
    log.records.length = 0;
    const outcomes = await client.renewAll(leases);
    const sends = batchSends(log.records);
    assert.equal(sends.length, 1, sends.join('\n'));
    assert.ok(sends[0].startsWith('batch renewal of 3 leases'), sends[0]);
    for (const [i, lease] of leases.entries()) {
      const o = outcomes[i];
      assert.equal(o.lease, lease);
      assert.deepEqual([o.renewed, o.error, o.lost], [true, undefined, false]);
      assert.ok(lease.valid);
      assert.ok(lease.remainingMs() > 2000, String(lease.remainingMs()));
      assert.equal(await expiresAt(c, lease.key), o.expiresAt);
      assert.ok(o.expiresAt >= granted[i] + 500, `${o.expiresAt} vs ${granted[i]}`);
      assert.equal(lease.expiresAt, o.expiresAt);
      assert.ok(o.validForMs > 2000);
    }
    for (const lease of leases) assert.equal(await lease.release(), true);
  },

  async 'batch-renewal-refused-lease-lost-others-renewed'(c) {
    const client = c.client([c.a, c.b]);
    const calls = [];
    const leases = await acquireMany(c, client, 3, { ttlMs: 5000, onLost: (l) => calls.push(l) });
    const granted = await Promise.all(leases.map((l) => expiresAt(c, l.key)));
    const { status, body } = await c.cluster.http('POST', leases[1].key, '/force-release', { reason: 'conformance' },
      { apiKey: OPS_KEY });
    assert.deepEqual([status, body.status], [200, 'FORCE_RELEASED']);
    const outcomes = await client.renewAll(leases);
    const refused = outcomes[1];
    assert.equal(refused.lease, leases[1]);
    assert.deepEqual([refused.renewed, refused.lost], [false, true]);
    assert.ok(refused.error instanceof LeaseExpiredError, String(refused.error));
    assert.equal(refused.error.code, 'LOCK_EXPIRED');
    assert.equal(leases[1].lostReason, refused.error);
    assert.ok(leases[1].signal.aborted);
    assert.throws(() => leases[1].check(), LeaseLostError);
    assert.deepEqual(calls, [leases[1]]);
    for (const i of [0, 2]) {
      assert.deepEqual([outcomes[i].renewed, outcomes[i].error, outcomes[i].lost], [true, undefined, false]);
      assert.ok(leases[i].valid);
      assert.equal(await expiresAt(c, leases[i].key), outcomes[i].expiresAt);
      assert.ok(outcomes[i].expiresAt > granted[i]);
    }
    assert.equal(await leases[1].release(), false);
    assert.equal(await leases[0].release(), true);
    assert.equal(await leases[2].release(), true);
    assert.deepEqual(calls, [leases[1]]);
  },

  async 'batch-renewal-chunks-over-1000'(c) {
    const log = capturingLogger();
    const client = c.client([c.a, c.b], { logger: log.logger });
    const leases = await acquireMany(c, client, 1001, { ttlMs: 60_000 });
    try {
      const granted = [await expiresAt(c, leases[0].key), await expiresAt(c, leases[1000].key)];
      log.records.length = 0;
      const outcomes = await client.renewAll(leases);
      const sends = batchSends(log.records);
      assert.equal(sends.length, 2, sends.join('\n'));
      assert.ok(sends[0].startsWith('batch renewal of 1000 leases:'), sends[0]);
      assert.ok(sends[1].startsWith('batch renewal of 1 lease:'), sends[1]);
      assert.equal(outcomes.length, 1001);
      assert.ok(outcomes.every((o, i) => o.lease === leases[i]), 'outcomes in the order given');
      assert.deepEqual(outcomes.flatMap((o, i) => (o.renewed ? [] : [i])), []);
      for (const [o, first] of [[outcomes[0], granted[0]], [outcomes[1000], granted[1]]]) {
        assert.equal(await expiresAt(c, o.lease.key), o.expiresAt);
        assert.ok(o.expiresAt > first);
      }
    } finally {
      const held = await pooled(leases, 8, (l) => l.release());
      assert.equal(held.filter(Boolean).length, 1001);
    }
  },

  async 'batch-renewal-answer-lost-retried'(c) {
    const proxy = await LossyProxy.start(c.a.url);
    c.t.after(() => proxy.close());
    const lost = [];
    const client = c.client([proxy.url, c.b]);
    const leases = [];
    for (const i of [0, 1]) {
      leases.push(await client.acquire(`${c.key}-${i}`, {
        ttlMs: 3000, waitMs: 0, autoRenew: false, onLost: (l) => lost.push(l),
      }));
    }
    const granted = await Promise.all(leases.map((l) => expiresAt(c, l.key)));
    await proxy.drop('renew');
    const outcomes = await client.renewAll(leases);
    await proxy.awaitLine('dropped renew');
    for (const [i, lease] of leases.entries()) {
      assert.deepEqual([outcomes[i].renewed, outcomes[i].error], [true, undefined]);
      assert.ok(lease.valid);
      assert.ok(await expiresAt(c, lease.key) > granted[i]); // B's view (the cluster's status reads from B)
    }
    assert.deepEqual(lost, []);
    for (const lease of leases) assert.equal(await lease.release(), true);
  },
};

const KEYS = ['conf:scripted-1', 'conf:scripted-2'];
const client = (replicas, options = {}) => new Client(replicas.map((r) => r.url), { logger: {}, ...options });

export const batchScripted = {
  async 'batch-renewal-deadline-from-send-time'(c) {
    const r = await c.replica((req, n) => grant({ token: `lock-token-${n}-0123456789abcdef`, validFor: 2000 }), {
      renew: () => ({
        status: 200,
        delayMs: 600,
        body: {
          results: [
            { lockKey: KEYS[0], expiresAt: Date.now() + 3000, validForMillis: 3000 },
            { lockKey: KEYS[1], error: { code: 'NOT_LOCK_OWNER', message: "not this owner's lease" } },
          ],
        },
      }),
    });
    const calls = [];
    const zk = client([r]);
    const leases = [];
    for (const key of KEYS) {
      leases.push(await zk.acquire(key, {
        ttlMs: 30_000, waitMs: 0, autoRenew: false, onLost: (l) => calls.push(l),
      }));
    }
    const outcomes = await zk.renewAll(leases);
    const sent = r.of('renew');
    assert.deepEqual(sent.map((req) => req.path), ['/v1/leases/renew']);
    assert.deepEqual(sent[0].body.leases.map((l) => [l.lockKey, l.ownerId, l.ttlMillis]),
      KEYS.map((k) => [k, zk.ownerId, 30_000]));
    assert.deepEqual(sent[0].body.leases.map((l) => l.lockToken),
      ['lock-token-0-0123456789abcdef', 'lock-token-1-0123456789abcdef']);
    assert.ok(outcomes[0].renewed);
    assert.ok(leases[0].remainingMs() <= 2400, String(leases[0].remainingMs()));
    assert.ok(leases[0].remainingMs() > 1500, String(leases[0].remainingMs()));
    assert.deepEqual([outcomes[1].renewed, outcomes[1].lost], [false, true]);
    assert.ok(outcomes[1].error instanceof NotLockOwnerError);
    assert.ok(leases[1].lostReason instanceof NotLockOwnerError);
    assert.deepEqual(calls, [leases[1]]);
    await leases[0].release();
    await leases[1].release();
  },

  async 'batch-renewal-bad-input-refused'(c) {
    const r = await c.replica((req, n) => grant({ token: `lock-token-${n}-0123456789abcdef`, validFor: 30_000 }));
    const zk = client([r]);
    const other = client([r]);
    const options = { ttlMs: 30_000, waitMs: 0, autoRenew: false };
    const [a, b, gone] = [await zk.acquire(`${KEYS[0]}-a`, options), await zk.acquire(`${KEYS[0]}-b`, options),
      await zk.acquire(`${KEYS[0]}-c`, options)];
    const foreign = await other.acquire(KEYS[1], options);
    await gone.release();
    for (const [leases, kind, message] of [
      [[], RangeError, /empty/],
      ['conf:k', TypeError, /leases must be an array/],
      [[a, 'conf:k'], TypeError, /leases\[1\] is not a Lease/],
      [[a, foreign], RangeError, /leases\[1\] .*another client/],
      [[a, gone], RangeError, /leases\[1\] .*released/],
      [[a, b, a], RangeError, /leases\[2\] is the same lease as leases\[0\]/],
    ]) {
      await assert.rejects(zk.renewAll(leases), (e) => e instanceof kind && message.test(e.message), String(message));
    }
    assert.deepEqual(r.of('renew'), []);
    for (const lease of [a, b, foreign]) await lease.release();
  },

  async 'batch-renewal-split-under-1-mib'(c) {
    const r = await c.replica((req, n) => grant({ token: `t${String(n).padStart(4, '0')}`.padEnd(256, 'x'), validFor: 30_000 }), {
      renew: (req) => ({
        status: 200,
        body: {
          results: req.body.leases.map((l) => ({ lockKey: l.lockKey, expiresAt: Date.now() + 30_000, validForMillis: 30_000 })),
        },
      }),
    });
    const zk = client([r], { ownerId: '€'.repeat(256) });
    const keys = Array.from({ length: 1000 }, (_, i) => `conf:${String(i).padStart(4, '0')}-`.padEnd(200, 'k'));
    const leases = [];
    for (const key of keys) leases.push(await zk.acquire(key, { ttlMs: 30_000, waitMs: 0, autoRenew: false }));
    const outcomes = await zk.renewAll(leases);
    const sent = r.of('renew');
    assert.ok(sent.length > 1, `${sent.length} request(s)`);
    assert.ok(sent.reduce((n, req) => n + req.size, 0) > 1024 * 1024);
    for (const req of sent) {
      assert.ok(req.size <= 1024 * 1024, `${req.size} bytes`);
      assert.ok(req.body.leases.length <= 1000);
    }
    assert.deepEqual(sent.flatMap((req) => req.body.leases.map((l) => l.lockKey)), keys);
    assert.ok(outcomes.every((o) => o.renewed));
    for (const lease of leases) await lease.release();
  },
};
