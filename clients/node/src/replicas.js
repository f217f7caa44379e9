// Calls that fail over across the replicas: the same request again on connection errors and 503
// UNAVAILABLE / SHUTTING_DOWN, with jittered exponential back-off per replica, within the caller's
// time bound.
import { setTimeout as sleep } from 'node:timers/promises';
import { ServerError, UnavailableError, fromProblem, retryAfterMs } from './errors.js';
import { now } from './clock.js';
import { BadAnswer, NoAnswer, Unreached, exchange, replicaUrl } from './http.js';

/** First back-off after a replica failed (ms); doubles per failure of the call, up to the cap. */
const BACKOFF_BASE_MS = 50;
const BACKOFF_CAP_MS = 2000;

export { now } from './clock.js';

export class Replicas {
  #states;
  #headers;
  #fetch;
  #logger;
  #random;
  #preferred = 0;

  constructor(urls, { headers, fetchImpl, logger, random = Math.random }) {
    if (!Array.isArray(urls) || urls.length === 0) {
      throw new TypeError("replicas must be a non-empty array of URLs, e.g. ['http://zkfence-a:8080']");
    }
    this.#states = urls.map((url) => ({ url: replicaUrl(url), notBefore: 0 }));
    this.#headers = headers;
    this.#fetch = fetchImpl;
    this.#logger = logger;
    this.#random = random;
  }

  get urls() {
    return this.#states.map((s) => s.url);
  }

  #next(at) {
    const n = this.#states.length;
    const ordered = Array.from({ length: n }, (_, i) => this.#states[(this.#preferred + i) % n]);
    return ordered.find((s) => s.notBefore <= at) ?? ordered.reduce((a, b) => (b.notBefore < a.notBefore ? b : a));
  }

  #failed(state, failures, hintMs) {
    let pause = this.#random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** failures);
    if (hintMs !== undefined) pause = Math.max(pause, hintMs);
    state.notBefore = now() + pause;
    const i = this.#states.indexOf(state);
    if (this.#preferred === i) this.#preferred = (i + 1) % this.#states.length;
    return pause;
  }

  /**
   * Sends the request until a replica answers it with anything but a retryable failure, or
   * `until` (monotonic ms) passes (UnavailableError, the last failure as its cause).
   * `body` may be a function of the send time; `attemptTimeout(now, until)` bounds one attempt;
   * `background` calls (renewals) do not keep the process alive while they back off.
   * Resolves to { answer, sent, earliestAmbiguous, attempts }.
   */
  async call(method, path, body, { until, what, key, requestId, attemptTimeout, signal, secret, background = false }) {
    let failures = 0;
    let earliestAmbiguous;
    let last;
    const label = what + (requestId === undefined ? '' : ` (requestId ${requestId})`);
    for (;;) {
      let at = now();
      const state = this.#next(at);
      const start = Math.max(at, state.notBefore);
      if (start >= until) {
        throw new UnavailableError(`${label}: no replica answered within the call's time bound (${failures} attempts `
          + `on ${this.urls.join(', ')})${last ? `; last: ${last.message}` : ''}`,
        { code: 'UNAVAILABLE', key, detail: last?.message, cause: last });
      }
      if (start > at) {
        try {
          await sleep(start - at, undefined, { signal, ref: !background });
        } catch (e) {
          throw signal?.aborted ? signal.reason : e;
        }
        at = now();
      }
      const timeout = attemptTimeout ? attemptTimeout(at, until) : until - at;
      const payload = typeof body === 'function' ? body(at) : body;
      const sent = now();
      this.#logger.debug?.(`${label}: sending to ${state.url}`, { requestId, replica: state.url });
      let hint;
      try {
        let answer = await exchange(this.#fetch, state.url, method, path, payload, this.#headers, timeout, signal);
        if (secret) answer = { ...answer, body: secret.redactBody(answer.body) };
        const code = answer.body.error;
        if (answer.status !== 503 || (code !== 'UNAVAILABLE' && code !== 'SHUTTING_DOWN')) {
          state.notBefore = 0;
          this.#preferred = this.#states.indexOf(state);
          return { answer, sent, earliestAmbiguous, attempts: failures + 1 };
        }
        // ZooKeeper trouble: a write may have been applied before the answer was lost.
        if (code === 'UNAVAILABLE') earliestAmbiguous = Math.min(earliestAmbiguous ?? sent, sent);
        last = fromProblem(answer.status, answer.body, { what: state.url, key });
        hint = retryAfterMs(answer.body, answer.retryAfter);
      } catch (e) {
        if (e instanceof Unreached) {
          last = e;
        } else if (e instanceof NoAnswer) {
          last = e;
          earliestAmbiguous = Math.min(earliestAmbiguous ?? sent, sent);
        } else if (e instanceof BadAnswer) {
          throw new ServerError(`${label}: ${e.message}`, { code: 'BAD_ANSWER', key, cause: e });
        } else {
          throw e; // the caller's abort
        }
      }
      const pause = this.#failed(state, failures, hint);
      failures += 1;
      const log = last.code === 'SHUTTING_DOWN' ? this.#logger.info : this.#logger.warn;
      log?.call(this.#logger, `${label} failed: ${last.message}; retrying with the same request, `
        + `${Math.max(0, Math.round(until - now()))} ms left`,
      { requestId, replica: state.url, error: last.code, backoffMs: pause });
    }
  }
}
