// The conformance scenarios against a scripted replica (support/scripted.js): the client's side of
// the contract, including answers only the redesigned service gives (validForMillis, 429, 413, ...).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  BadRequestError, Client, ForbiddenError, LeaseLostError, LockHeldError, NotLockOwnerError, PayloadTooLargeError,
  RequestFinishedError, ServerError, TooManyWaitersError, UnauthorizedError, UnavailableError,
} from '../../src/index.js';
import { PATIENCE_MS, awaitTrue } from '../support/common.js';
import { capturingLogger } from '../support/conformance.js';
import {
  HANG_UP, NEVER, ScriptedReplica, grant, problem,
} from '../support/scripted.js';

const KEY = 'conf:scripted';
const quiet = {};
const released = () => ({ status: 200, body: { lockKey: KEY, status: 'RELEASED', wasHeld: true } });
const renewed = (validFor) => () => ({
  status: 200,
  body: { lockKey: KEY, expiresAt: Date.now() + 30_000, ...(validFor === undefined ? {} : { validForMillis: validFor }) },
});

/** What a scripted scenario gets: a maker of scripted replicas, closed after the test. */
export class ScriptedContext {
  constructor(t) {
    this.t = t;
  }

  async replica(acquire, { renew = renewed(), release = released } = {}) {
    const byKind = { acquire, renew, release };
    const replica = await ScriptedReplica.start((request, n) => byKind[request.path.split('/').at(-1)](request, n));
    this.t.after(() => replica.close());
    return replica;
  }
}

const client = (replicas, options = {}) => new Client(replicas.map((r) => r.url), { logger: quiet, ...options });
const rejection = (promise) => promise.then(() => assert.fail('expected a rejection'), (e) => e);

export const scripted = {
  async 'bad-arguments-refused'(c) {
    const r = await c.replica(() => grant());
    const usage = (e) => e instanceof TypeError || e instanceof RangeError;
    for (const [make, named] of [[() => new Client([]), 'replicas'], [() => new Client('http://a:8080'), 'replicas'],
      [() => new Client(['ftp://a:21']), 'ftp://a:21'], [() => new Client([r.url], { timeoutMs: 0 }), 'timeoutMs']]) {
      assert.throws(make, (e) => usage(e) && e.message.includes(named), named);
    }
    const zk = client([r]);
    for (const [key, options, named] of [[KEY, { ttlMs: 0 }, 'ttlMs'], [KEY, { waitMs: -1 }, 'waitMs'],
      ['  ', {}, 'key'], [`conf:${'é'.repeat(130)}`, {}, 'key'], [KEY, { requestId: '' }, 'requestId']]) {
      await assert.rejects(zk.acquire(key, options), (e) => usage(e) && e.message.includes(named), named);
    }
    assert.deepEqual(r.requests, []);
  },

  async 'deadline-counts-from-send-time'(c) {
    const r = await c.replica(() => grant({ validFor: 1000, delayMs: 600 }));
    const lease = await client([r]).acquire(KEY, { ttlMs: 30_000, waitMs: 0, autoRenew: false });
    assert.ok(lease.remainingMs() <= 400, String(lease.remainingMs()));
    await lease.release();
  },

  async 'deadline-fallback-ttl-from-send-time'(c) {
    const r = await c.replica(() => grant({ delayMs: 600 }));
    const lease = await client([r]).acquire(KEY, { ttlMs: 1000, waitMs: 0, autoRenew: false });
    assert.ok(lease.remainingMs() <= 400, String(lease.remainingMs()));
    await lease.release();
  },

  async 'renews-at-third-of-validity'(c) {
    const r = await c.replica(() => grant({ validFor: 3000 }), { renew: renewed(3000) });
    const lease = await client([r]).acquire(KEY, { ttlMs: 60_000, waitMs: 0 });
    await awaitTrue('three renewals', () => r.of('renew').length >= 3, 15_000);
    assert.equal(lease.signal.aborted, false);
    assert.ok(lease.valid);
    assert.deepEqual([...new Set(r.of('renew').map((q) => q.body.ttlMillis))], [60_000]);
    await lease.release();
  },

  async 'error-codes-are-typed'(c) {
    const cases = [
      [problem(400, 'BAD_REQUEST', 'ttlMillis must be a whole number'), BadRequestError, {}],
      [problem(401, 'UNAUTHORIZED', 'no API key'), UnauthorizedError, {}],
      [problem(403, 'NAMESPACE_FORBIDDEN', 'not yours'), ForbiddenError, {}],
      [problem(403, 'ADMIN_REQUIRED', 'admins only'), ForbiddenError, {}],
      [problem(409, 'LOCK_ALREADY_HELD', "held by 'x'", { currentOwner: 'x', retryAfterMillis: 1500 }), LockHeldError,
        { owner: 'x', retryAfterMs: 1500 }],
      [{ status: 409, body: { error: 'LOCK_ALREADY_HELD', detail: 'held', status: 409 }, headers: { 'Retry-After': '3' } },
        LockHeldError, { retryAfterMs: 3000 }],
      [problem(409, 'REQUEST_FINISHED', 'finished', { outcome: 'RELEASED' }), RequestFinishedError, { outcome: 'RELEASED' }],
      [problem(413, 'PAYLOAD_TOO_LARGE', 'body over 64 KiB'), PayloadTooLargeError, {}],
      [problem(429, 'TOO_MANY_WAITERS', 'queue full', { retryAfterMillis: 700 }), TooManyWaitersError,
        { retryAfterMs: 700 }],
      [problem(500, 'INTERNAL', 'boom'), ServerError, {}],
      [problem(418, 'TEAPOT', 'unknown code'), ServerError, {}],
      [{ status: 200, body: Buffer.from('<html>not json</html>') }, ServerError, {}],
    ];
    const r = await c.replica((req, n) => cases[n][0]);
    const zk = client([r], { timeoutMs: 2000 });
    for (const [i, [reply, Kind, fields]] of cases.entries()) {
      const e = await rejection(zk.acquire(KEY, { ttlMs: 5000, waitMs: 0, requestId: `rid-${i}` }));
      assert.equal(e.constructor, Kind, `answer ${i}: ${e}`);
      if (!Buffer.isBuffer(reply.body)) {
        assert.deepEqual([e.status, e.code], [reply.status, reply.body.error]);
        assert.ok(e.message.includes(reply.body.detail), e.message);
      }
      for (const [name, value] of Object.entries(fields)) assert.equal(e[name], value, `answer ${i}: ${name}`);
    }
    assert.equal(r.of('acquire').length, cases.length, 'none of them retried');
  },

  async 'too-many-waiters-retried-with-same-request-id'(c) {
    const r = await c.replica((req, n) => (n === 0
      ? problem(429, 'TOO_MANY_WAITERS', 'full', { retryAfterMillis: 200 }) : grant()));
    const lease = await client([r]).acquire(KEY, { ttlMs: 5000, waitMs: 5000 });
    const [first, second] = r.of('acquire');
    assert.equal(first.body.requestId, second.body.requestId);
    assert.equal(lease.requestId, first.body.requestId);
    assert.ok(second.at - r.answered[0] >= 200 - 10);
    await lease.release();
  },

  async 'request-finished-after-retry-starts-new-request'(c) {
    const script = [HANG_UP, problem(409, 'REQUEST_FINISHED', 'gave up', { outcome: 'GAVE_UP' }), grant()];
    const r = await c.replica((req, n) => script[n]);
    const lease = await client([r]).acquire(KEY, { ttlMs: 5000, waitMs: 5000 });
    const rids = r.of('acquire').map((q) => q.body.requestId);
    assert.equal(rids.length, 3);
    assert.equal(rids[0], rids[1]);
    assert.notEqual(rids[1], rids[2]);
    assert.equal(lease.requestId, rids[2]);
    await lease.release();
  },

  async 'retry-after-honoured'(c) {
    const r = await c.replica((req, n) => (n === 0
      ? { ...problem(503, 'UNAVAILABLE', 'busy'), headers: { 'Retry-After': '1' } } : grant()));
    const lease = await client([r]).acquire(KEY, { ttlMs: 5000, waitMs: 5000 });
    assert.ok(r.of('acquire')[1].at - r.answered[0] >= 1000 - 10);
    await lease.release();
  },

  async 'all-replicas-failing-ends-within-bound'(c) {
    const down = [await c.replica(() => problem(503, 'UNAVAILABLE', 'ZooKeeper unreachable')),
      await c.replica(() => problem(503, 'UNAVAILABLE', 'ZooKeeper unreachable'))];
    const start = performance.now();
    const e = await rejection(client(down, { timeoutMs: 1000 }).acquire(KEY, { ttlMs: 5000, waitMs: 500 }));
    assert.ok(e instanceof UnavailableError, String(e));
    assert.ok(performance.now() - start < 1500 + 5000);
    assert.ok(e.cause instanceof UnavailableError, String(e.cause));
    assert.deepEqual([e.cause.status, e.cause.code], [503, 'UNAVAILABLE']);
    const attempts = down.flatMap((d) => d.of('acquire'));
    assert.ok(down.every((d) => d.of('acquire').length), 'both replicas were tried');
    assert.ok(attempts.length > 2);
    assert.equal(new Set(attempts.map((q) => q.body.requestId)).size, 1);
  },

  async 'timeout-follows-wait'(c) {
    const r = await c.replica(() => NEVER);
    const start = performance.now();
    const e = await rejection(client([r], { timeoutMs: 1000 }).acquire(KEY, { ttlMs: 5000, waitMs: 1000 }));
    const elapsed = performance.now() - start;
    assert.ok(e instanceof UnavailableError, String(e));
    assert.ok(elapsed >= 2000 - 50 && elapsed < 2000 + 5000, String(elapsed));
    assert.ok(r.of('acquire')[0].body.waitMillis <= 1000);
  },

  async 'server-detail-with-lock-token-redacted'(c) {
    const token = `lock-token-SECRET-${randomUUID()}`;
    const r = await c.replica(() => grant({ token, validFor: 30_000 }),
      { renew: () => problem(400, 'BAD_REQUEST', `lockToken '${token}' is malformed`) });
    const { records, logger } = capturingLogger();
    const lease = await client([r], { logger }).acquire(KEY, { ttlMs: 30_000, waitMs: 0, autoRenew: false });
    const e = await rejection(lease.renew());
    assert.ok(e instanceof BadRequestError, String(e));
    assert.match(e.message, /is malformed/);
    assert.ok(!e.message.includes(token) && !e.detail.includes(token), e.message);
    for (const record of records) assert.ok(!record.message.includes(token), record.message);
    await lease.release();
  },

  async 'renewal-refused-loses-lease-at-once'(c) {
    const r = await c.replica(() => grant({ validFor: 3000 }),
      { renew: () => problem(403, 'NOT_LOCK_OWNER', 'not yours') });
    const calls = [];
    const lease = await client([r]).acquire(KEY, { ttlMs: 30_000, waitMs: 0, onLost: (l) => calls.push(l) });
    const deadline = performance.now() + lease.remainingMs();
    await awaitTrue('the lease is lost', () => lease.signal.aborted, PATIENCE_MS);
    assert.ok(performance.now() < deadline);
    assert.ok(lease.lostReason instanceof NotLockOwnerError, String(lease.lostReason));
    await awaitTrue('the lost callback ran once', () => calls.length === 1 && calls[0] === lease);
    assert.throws(() => lease.check(), (e) => e instanceof LeaseLostError && e.reason instanceof NotLockOwnerError);
    assert.equal(await lease.release(), false);
    assert.deepEqual(r.of('release'), []);
  },
};
