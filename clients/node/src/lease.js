// A held lock: its fencing token, its local deadline and the timers that renew it.
import { inspect } from 'node:util';
import {
  LeaseExpiredError, LeaseLostError, NotLockOwnerError, RequestFinishedError, fromProblem,
} from './errors.js';
import { now, usable } from './clock.js';

/**
 * @internal The key of Lease's hook for the batch renewal (batch.js); not exported from the package,
 * so a lease's token and renewal rules stay out of its public surface.
 */
export const internals = Symbol('zkfence.lease.internals');

/** Refusals after which the service will never renew the lease again. */
const isFinal = (e) => e instanceof LeaseExpiredError || e instanceof NotLockOwnerError
  || e instanceof RequestFinishedError;

/**
 * Milliseconds the lease lasts from the moment the request was sent: the service's validForMillis
 * (counted from when it received the request), else the TTL (counted by a service from before
 * issue 29 from when it handled the request, which is after the send).
 */
export function validityMs(answer, ttlMs) {
  const v = answer.validForMillis;
  return typeof v === 'number' && v >= 0 ? v : ttlMs;
}

/**
 * A signal aborted when any of `signals` is, and `dispose()`, which removes the listeners it put on
 * them: a lease's own signal lives as long as the lease, and a listener per renew() left on it would
 * pile up (MaxListenersExceededWarning after 10).
 */
export function anySignal(...signals) {
  const controller = new AbortController();
  const removers = [];
  for (const s of signals.filter(Boolean)) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    const onAbort = () => controller.abort(s.reason);
    s.addEventListener('abort', onAbort, { once: true });
    removers.push(() => s.removeEventListener('abort', onAbort));
  }
  return { signal: controller.signal, dispose: () => removers.forEach((remove) => remove()) };
}

/**
 * A lock granted by the service. `fencingToken` (a bigint) goes with every write the lock
 * protects. `valid` turns false at the local deadline (counted from the moment the granting or last
 * renewing request was sent, less a drift margin, on a clock that also counts a suspend of the host:
 * clock.js; so it errs early, never late) or when
 * the service refuses a renewal; then `signal` aborts, `onLost(lease)` runs once and `check()`
 * throws LeaseLostError.
 */
export class Lease {
  #replicas;
  #secret;
  #path;
  #ttlMs;
  #timeoutMs;
  #autoRenew;
  #onLost;
  #logger;
  #state = 'held';
  #reason;
  #pending;
  #deadline;
  #renewAt;
  #timer;
  #renewing = false;
  #wasHeld;
  #stop = new AbortController();
  #ended = new AbortController();

  /** @internal Leases come from Client.acquire. */
  constructor({
    replicas, key, ownerId, requestId, grant, secret, deadline, renewAt, ttlMs, timeoutMs, autoRenew, onLost,
    logger,
  }) {
    this.key = key;
    this.ownerId = ownerId;
    this.requestId = requestId;
    this.fencingToken = grant.fencingToken;
    this.expiresAt = grant.expiresAt;
    this.#replicas = replicas;
    this.#secret = secret;
    this.#path = `/v1/locks/${encodeURIComponent(key)}`;
    this.#ttlMs = ttlMs;
    this.#timeoutMs = timeoutMs;
    this.#autoRenew = autoRenew;
    this.#onLost = onLost;
    this.#logger = logger;
    this.#deadline = deadline;
    this.#renewAt = renewAt;
    this.#schedule();
  }

  /** True while the lease is held and its local deadline has not passed. */
  get valid() {
    return this.#state === 'held' && now() < this.#deadline;
  }

  /** Milliseconds left until the local deadline (0 once the lease is not valid). */
  remainingMs() {
    return this.#state === 'held' ? Math.max(0, this.#deadline - now()) : 0;
  }

  /** 'held', 'lost' or 'released' (a held lease past its deadline reads 'lost'). */
  get state() {
    return this.#state === 'held' && now() >= this.#deadline ? 'lost' : this.#state;
  }

  /** What ended the lease: the service's refusal, an UnavailableError (nobody renewed it in time), or undefined. */
  get lostReason() {
    return this.#reason;
  }

  /** Aborted (with a LeaseLostError) when the lease is lost or released: pass it to the work the lock guards. */
  get signal() {
    return this.#ended.signal;
  }

  /** Returns if the lease is valid now, else throws LeaseLostError. Call it before each write. */
  check() {
    if (this.valid) return;
    let why;
    if (this.#state === 'released') why = 'it was released';
    else if (this.#reason) why = this.#reason.message;
    else why = `its local deadline passed ${Math.round(now() - this.#deadline)} ms ago without a renewal`;
    throw new LeaseLostError(`lease on lock '${this.key}' (fencing token ${this.fencingToken}) is not valid: ${why}; `
      + 'stop writing with this token', { key: this.key, fencingToken: this.fencingToken, reason: this.#reason });
  }

  /**
   * Renews now (the background renewal does it by itself unless autoRenew was false). Rejects with
   * LeaseLostError if the lease is or becomes lost, UnavailableError if no replica answered in time.
   */
  async renew({ signal } = {}) {
    this.check();
    const both = anySignal(this.#stop.signal, signal);
    let outcome;
    try {
      outcome = await this.#sendRenew(both.signal, false);
    } finally {
      both.dispose();
    }
    this.#apply(outcome, true);
  }

  /**
   * Gives the lock back (the renewal stops first). Resolves to whether the service still held the
   * lease. Idempotent. Rejects with UnavailableError if no replica answered within the client's
   * timeout (the lease then ends at its TTL).
   */
  async release({ signal } = {}) {
    if (this.#state === 'released') return Boolean(this.#wasHeld);
    const refused = isFinal(this.#reason);
    this.#end('released');
    if (refused) {
      this.#wasHeld = false;
      return false;
    }
    const what = `release of '${this.key}'`;
    const { answer } = await this.#replicas.call('POST', `${this.#path}/release`,
      { ownerId: this.ownerId, lockToken: this.#secret.reveal() },
      { until: now() + this.#timeoutMs, what, key: this.key, secret: this.#secret, signal });
    if (answer.status !== 200) {
      throw fromProblem(answer.status, answer.body, { what, key: this.key, retryAfterHeader: answer.retryAfter });
    }
    this.#wasHeld = Boolean(answer.body.wasHeld);
    return this.#wasHeld;
  }

  toJSON() {
    return {
      key: this.key, ownerId: this.ownerId, requestId: this.requestId, fencingToken: String(this.fencingToken),
      state: this.state,
    };
  }

  [inspect.custom]() {
    return `Lease { key: '${this.key}', ownerId: '${this.ownerId}', fencingToken: ${this.fencingToken}n, `
      + `state: '${this.state}', remainingMs: ${Math.round(this.remainingMs())} }`;
  }

  /** @internal What the batch renewal (batch.js) needs of the lease: its client, deadline, item, rules. */
  [internals]() {
    return {
      replicas: this.#replicas,
      secret: this.#secret,
      deadline: () => this.#deadline,
      item: () => ({
        lockKey: this.key, lockToken: this.#secret.reveal(), ownerId: this.ownerId,
        ttlMillis: Math.max(1, Math.round(this.#ttlMs)),
      }),
      validityMs: (answer) => validityMs(answer, this.#ttlMs),
      // A lease's answer from a batch, applied exactly as a single renew's: undefined, or its refusal.
      apply: (outcome) => this.#apply(outcome, false),
    };
  }

  // -- renewal -------------------------------------------------------------------------------

  #schedule() {
    clearTimeout(this.#timer);
    if (this.#state !== 'held') return;
    const due = this.#autoRenew && !this.#renewing ? Math.min(this.#renewAt, this.#deadline) : this.#deadline;
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, due - now()));
    this.#timer.unref();
  }

  #tick() {
    if (this.#state !== 'held') return;
    const at = now();
    if (at >= this.#deadline) {
      this.#lose(this.#pending);
      return;
    }
    if (this.#autoRenew && !this.#renewing && at >= this.#renewAt) {
      this.#renewing = true;
      this.#sendRenew(this.#stop.signal, true)
        .then((outcome) => this.#apply(outcome, false))
        .catch((e) => {
          if (this.#state === 'held') this.#retryLater(e); // no replica answered in time, or a bad answer
        })
        .finally(() => {
          this.#renewing = false;
          this.#schedule();
        });
    }
    this.#schedule();
  }

  #sendRenew(signal, background) {
    // Each attempt gets half of what is left, so a replica that does not answer (paused) leaves
    // time to renew through another one before the deadline.
    return this.#replicas.call('POST', `${this.#path}/renew`,
      { ownerId: this.ownerId, lockToken: this.#secret.reveal(), ttlMillis: Math.max(1, Math.round(this.#ttlMs)) },
      {
        until: this.#deadline, what: `renew of '${this.key}'`, key: this.key, secret: this.#secret, signal, background,
        attemptTimeout: (at, until) => Math.max(1, (until - at) / 2),
      });
  }

  #apply({ answer, sent }, raise) {
    if (answer.status === 200) {
      if (this.#state !== 'held') return;
      const valid = validityMs(answer.body, this.#ttlMs);
      this.#deadline = Math.max(this.#deadline, sent + usable(valid));
      this.#renewAt = sent + valid / 3;
      this.#pending = undefined;
      if (typeof answer.body.expiresAt === 'number') this.expiresAt = answer.body.expiresAt;
      this.#schedule();
      return;
    }
    const error = fromProblem(answer.status, answer.body,
      { what: `renew of '${this.key}'`, key: this.key, retryAfterHeader: answer.retryAfter });
    if (isFinal(error)) {
      this.#lose(error);
      if (raise) this.check();
      return error;
    }
    // Refused for a reason that may pass (a key being rotated, a server error): keep the lease
    // until its deadline and try again in a while.
    this.#logger.error?.(`renew of '${this.key}' (fencing token ${this.fencingToken}) refused: ${error.message}; `
      + "retrying until the lease's local deadline", { key: this.key, error: error.code });
    this.#retryLater(error);
    if (raise) throw error;
    return error;
  }

  #retryLater(failure) {
    this.#pending = failure;
    this.#renewAt = now() + Math.min(1000, Math.max(0, this.#deadline - now()) / 4);
    this.#schedule();
  }

  #end(state) {
    this.#state = state;
    clearTimeout(this.#timer);
    this.#stop.abort();
    this.#ended.abort(new LeaseLostError(`lease on lock '${this.key}' (fencing token ${this.fencingToken}) ended: `
      + `${state}${this.#reason ? `: ${this.#reason.message}` : ''}`,
    { key: this.key, fencingToken: this.fencingToken, reason: this.#reason }));
  }

  #lose(reason) {
    if (this.#state !== 'held') return;
    this.#reason = reason;
    this.#end('lost');
    this.#logger.warn?.(`lease on lock '${this.key}' (fencing token ${this.fencingToken}) lost: `
      + `${reason ? reason.message : 'its local deadline passed (not renewed)'}`, { key: this.key });
    if (!this.#onLost) return;
    const report = (e) => this.#logger.error?.(`onLost callback for lock '${this.key}' failed: ${e?.stack ?? e}`,
      { key: this.key });
    try {
      const result = this.#onLost(this);
      if (result && typeof result.then === 'function') result.then(undefined, report);
    } catch (e) {
      report(e);
    }
  }
}

if (Symbol.asyncDispose) {
  // `await using lease = await client.acquire(...)` releases it at the end of the block.
  Lease.prototype[Symbol.asyncDispose] = async function dispose() {
    await this.release();
  };
}
