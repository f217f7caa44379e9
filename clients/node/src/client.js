// The client: acquires leases from the lock service's replicas.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import {
  LeaseLostError, LockHeldError, RequestFinishedError, ServerError, TooManyWaitersError, fromProblem,
} from './errors.js';
import { renewAll } from './batch.js';
import { now, usable } from './clock.js';
import { Lease, validityMs } from './lease.js';
import { Replicas } from './replicas.js';
import { Secret } from './secret.js';
import { VERSION } from './version.js';

export { VERSION };
/** The service's limit on lock keys, in UTF-8 bytes. */
const MAX_KEY_BYTES = 256;

const defaultLogger = {
  warn: (message) => process.emitWarning(message, 'ZkfenceWarning'),
  error: (message) => process.emitWarning(message, 'ZkfenceWarning'),
};

function millis(name, value, { positive }) {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError(`${name} must be a finite number of milliseconds, got ${value}`);
  }
  if (positive ? value <= 0 : value < 0) {
    throw new RangeError(`${name} must be ${positive ? 'above 0' : '0 or more'}, got ${value}`);
  }
  return value;
}

function lockKey(key) {
  if (typeof key !== 'string') {
    throw new TypeError(`key must be a string like 'inventory-service:sku:123', got ${typeof key}`);
  }
  if (!key.trim()) throw new RangeError('key must not be blank');
  if (!key.isWellFormed()) throw new RangeError(`key '${key}' is not well-formed Unicode (an unpaired surrogate)`);
  const size = Buffer.byteLength(key, 'utf8');
  if (size > MAX_KEY_BYTES) throw new RangeError(`key is ${size} UTF-8 bytes long; the service's limit is ${MAX_KEY_BYTES}`);
  return key;
}

/**
 * A client of zkfence-server: `new Client(['http://a:8080', 'http://b:8080'], { apiKey })`.
 *
 * Calls go to the replica that answered last (at first the first one); a connection error, a
 * timeout or a 503 UNAVAILABLE / SHUTTING_DOWN sends the same request (same requestId) to the
 * next replica, with jittered exponential back-off once every replica has failed, until the call's
 * time bound: an acquire's waitMs plus timeoutMs, timeoutMs for the other calls, a renewal's local
 * deadline. One client is one owner (ownerId).
 */
export class Client {
  #replicas;
  #timeoutMs;
  #logger;
  #ownerId;

  constructor(replicas, {
    apiKey, ownerId, timeoutMs = 10_000, logger = defaultLogger, fetch: fetchImpl = globalThis.fetch,
  } = {}) {
    if (apiKey !== undefined && (typeof apiKey !== 'string' || !apiKey)) {
      throw new TypeError('apiKey must be a non-empty string or undefined');
    }
    if (ownerId === undefined) {
      ownerId = `${hostname()}-${process.pid}-${randomUUID().slice(0, 6)}`;
    } else if (typeof ownerId !== 'string' || !ownerId.trim()) {
      throw new TypeError(`ownerId must be a non-blank string, got ${ownerId}`);
    }
    this.#timeoutMs = millis('timeoutMs', timeoutMs, { positive: true });
    this.#ownerId = ownerId;
    this.#logger = logger ?? {};
    const headers = { Accept: 'application/json', 'User-Agent': `zkfence-node/${VERSION}` };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    this.#replicas = new Replicas(replicas, { headers, fetchImpl, logger: this.#logger });
  }

  get ownerId() {
    return this.#ownerId;
  }

  get replicas() {
    return this.#replicas.urls;
  }

  toJSON() {
    return { ownerId: this.#ownerId, replicas: this.replicas };
  }

  [inspect.custom]() {
    return `Client { ownerId: '${this.#ownerId}', replicas: ${JSON.stringify(this.replicas)} }`;
  }

  /**
   * Acquires `key`, runs `fn(lease)` and releases the lease when `fn` settles; resolves to what
   * `fn` resolved to. If the lease was lost while `fn` ran (and `fn` did not throw), rejects with
   * LeaseLostError after the release, unless `throwIfLost` is false. A release failure after `fn`
   * threw is logged, and `fn`'s error thrown.
   */
  async withLock(key, options, fn) {
    if (typeof options === 'function') [options, fn] = [{}, options];
    if (typeof fn !== 'function') throw new TypeError('withLock needs a function to run under the lock');
    const { throwIfLost = true, ...acquireOptions } = options ?? {};
    if (typeof throwIfLost !== 'boolean') throw new TypeError(`throwIfLost must be a boolean, got ${throwIfLost}`);
    const lease = await this.acquire(key, acquireOptions);
    let result;
    try {
      result = await fn(lease);
    } catch (e) {
      try {
        await lease.release();
      } catch (releaseError) {
        this.#logger.warn?.(`release of '${key}' after a failure under the lock failed too: ${releaseError.message}`,
          { key });
      }
      throw e;
    }
    let lost;
    if (throwIfLost && lease.state === 'lost') {
      try {
        lease.check();
      } catch (e) {
        lost = e;
      }
    }
    await lease.release();
    if (lost) {
      throw new LeaseLostError(`lease on lock '${key}' (fencing token ${lease.fencingToken}) was lost before the end of `
        + `its block: ${lost.reason ? lost.reason.message : 'its local deadline passed without a renewal'}; the `
        + 'writes fenced with its token after that were refused', { key, fencingToken: lease.fencingToken, reason: lost.reason });
    }
    return result;
  }

  /**
   * Takes the lock `key` for `ttlMs`, waiting in FIFO order up to `waitMs` (0: do not queue). The
   * lease renews itself (every third of its current validity) unless `autoRenew` is false.
   * `requestId` names the request for idempotency (default: a new one, reused by every retry of
   * this call). `signal` cancels: the connection closes and the service drops the queue entry.
   * Rejects with LockHeldError if the lock stayed held, UnavailableError if no replica answered in
   * time, or the error the service answered.
   */
  async acquire(key, {
    ttlMs = 30_000, waitMs = 10_000, requestId, autoRenew = true, onLost, signal,
  } = {}) {
    key = lockKey(key);
    millis('ttlMs', ttlMs, { positive: true });
    millis('waitMs', waitMs, { positive: false });
    if (requestId !== undefined && (typeof requestId !== 'string' || !requestId)) {
      throw new TypeError('requestId must be a non-empty string or undefined');
    }
    if (onLost !== undefined && typeof onLost !== 'function') throw new TypeError('onLost must be a function');
    const explicit = requestId !== undefined;
    let rid = requestId ?? randomUUID();
    const path = `/v1/locks/${encodeURIComponent(key)}`;
    const waitEnd = now() + waitMs;
    const until = waitEnd + this.#timeoutMs;
    const what = `acquire of '${key}'`;
    const ttlMillis = Math.max(1, Math.round(ttlMs));
    for (;;) {
      const request = rid;
      const body = (at) => ({
        ownerId: this.#ownerId,
        ttlMillis,
        requestId: request,
        ...(waitMs > 0 ? { wait: true, waitMillis: Math.max(0, Math.floor(waitEnd - at)) } : {}),
      });
      const outcome = await this.#replicas.call('POST', `${path}/acquire`, body,
        { until, what, key, requestId: request, signal });
      const { answer } = outcome;
      if (answer.status === 200) {
        const lease = await this.#granted(key, request, outcome, { ttlMs, until, autoRenew, onLost, signal });
        if (lease) return lease;
      } else {
        const error = fromProblem(answer.status, answer.body, { what, key, retryAfterHeader: answer.retryAfter });
        if (error instanceof TooManyWaitersError) {
          const pause = error.retryAfterMs ?? 100;
          if (now() + pause >= waitEnd) throw error;
          this.#logger.info?.(`${what} (requestId ${request}): the queue is full; trying again in ${pause} ms`,
            { key, requestId: request });
          try {
            await sleep(pause, undefined, { signal });
          } catch (e) {
            throw signal?.aborted ? signal.reason : e;
          }
          continue;
        }
        if (!(error instanceof RequestFinishedError && !explicit && outcome.attempts > 1)) throw error;
        this.#logger.warn?.(`${what} (requestId ${request}): the request finished (${error.outcome}) while its answer `
          + 'was lost; acquiring again with a new requestId', { key, requestId: request });
      }
      if (now() >= until) {
        throw new LockHeldError(`${what}: the lock could not be taken within the call's time bound`,
          { code: 'LOCK_ALREADY_HELD', key });
      }
      rid = randomUUID();
    }
  }

  async #granted(key, requestId, outcome, { ttlMs, until, autoRenew, onLost, signal }) {
    const grant = outcome.answer.body;
    if (typeof grant.lockToken !== 'string' || !grant.lockToken || typeof grant.fencingToken !== 'bigint'
      || grant.fencingToken <= 0n || typeof grant.expiresAt !== 'number') {
      throw new ServerError(`acquire of '${key}': the grant lacks lockToken, fencingToken or expiresAt`,
        { code: 'BAD_ANSWER', key });
    }
    const secret = new Secret(grant.lockToken);
    let sent = outcome.sent;
    if (grant.validForMillis === undefined && outcome.earliestAmbiguous !== undefined) {
      // A service from before issue 29 counts the TTL from when it granted; an earlier attempt of this request
      // that got no answer may have been granted then, as early as it was sent.
      sent = Math.min(sent, outcome.earliestAmbiguous);
    }
    let valid = validityMs(grant, ttlMs);
    if (sent + usable(valid) <= now()) {
      // Granted so long ago (an answer lost while it waited) that the local deadline has passed:
      // renew once before handing the lease out, or start again if it is gone.
      const renewed = await this.#replicas.call('POST', `/v1/locks/${encodeURIComponent(key)}/renew`,
        { ownerId: this.#ownerId, lockToken: grant.lockToken, ttlMillis: Math.max(1, Math.round(ttlMs)) },
        { until, what: `renew of '${key}'`, key, secret, signal });
      if (renewed.answer.status !== 200) {
        this.#logger.warn?.(`acquire of '${key}' (requestId ${requestId}): the grant had ended before its answer `
          + `came (${renewed.answer.body.error})`, { key, requestId });
        return undefined;
      }
      sent = renewed.sent;
      valid = validityMs(renewed.answer.body, ttlMs);
    }
    this.#logger.debug?.(`acquire of '${key}' (requestId ${requestId}) granted, fencing token ${grant.fencingToken}`,
      { key, requestId });
    return new Lease({
      replicas: this.#replicas, key, ownerId: this.#ownerId, requestId, grant, secret, deadline: sent + usable(valid),
      renewAt: sent + valid / 3, ttlMs, timeoutMs: this.#timeoutMs, autoRenew, onLost, logger: this.#logger,
    });
  }

  /**
   * Renews several leases of this client with the service's batch renewal (POST /v1/leases/renew),
   * up to 1,000 per request; resolves to one outcome per lease in the order given:
   * `{ lease, renewed, expiresAt, validForMs, error, lost }`. Each request fails over and is retried
   * as a single renew is, within the leases' local deadlines (a lease whose deadline passes is left
   * out of the next attempt). A renewed lease's local deadline moves exactly as `lease.renew()` moves
   * it; a lease the service refused (LeaseExpiredError, NotLockOwnerError) is lost as after a refused
   * renew (`signal` aborted, `onLost` called) while the others stay renewed. A lease lost already is
   * not sent (`error`: the LeaseLostError check() throws); a request that failed as a whole
   * (UnavailableError, ...) leaves its leases as they were and is each one's `error`. Throws
   * TypeError / RangeError before sending anything for an empty array, a non-lease, another client's
   * lease, a released lease or a lease twice; rejects with `signal`'s reason if it aborts. The
   * background renewal of each lease goes on as before (per lease).
   */
  async renewAll(leases, { signal } = {}) {
    return renewAll(this.#replicas, leases, { signal });
  }

  /** The lock's holder and waiters now, as the service sees them (a linearizable read). */
  async status(key, { signal } = {}) {
    key = lockKey(key);
    const what = `status of '${key}'`;
    const { answer } = await this.#replicas.call('GET', `/v1/locks/${encodeURIComponent(key)}`, undefined,
      { until: now() + this.#timeoutMs, what, key, signal });
    const { status, body } = answer;
    if (status === 200 || (status === 404 && body.error === 'NOT_LOCKED')) {
      const locked = status === 200;
      return {
        key,
        locked,
        ownerId: locked ? body.ownerId : undefined,
        fencingToken: locked ? body.fencingToken : undefined,
        expiresAt: locked ? body.expiresAt : undefined,
        waiters: (body.waiters ?? []).map((w) => (typeof w === 'object' ? w.ownerId : w)),
      };
    }
    throw fromProblem(status, body, { what, key, retryAfterHeader: answer.retryAfter });
  }
}
