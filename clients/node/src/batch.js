// Batch renewal (POST /v1/leases/renew): several leases of one client renewed per request, up to
// 1,000 each. Each request fails over and is retried as a single renew is (Replicas.call); each
// lease's result is applied by the lease's own renewal rules, so a renewed or refused lease ends up
// exactly as a single renew would leave it.
import { ServerError, ServiceError, UnavailableError, fromProblem } from './errors.js';
import { Lease, internals } from './lease.js';

/** The most leases the service renews in one call; a larger batch is sent in several. */
export const MAX_LEASES_PER_CALL = 1000;
/**
 * The most bytes of leases in one request: the service refuses a body over 1 MiB (413) whole, and
 * 1,000 leases with long keys, owners and tokens can pass it.
 */
export const MAX_BYTES_PER_CALL = 1_000_000;
const PATH = '/v1/leases/renew';
/** The status a single renew answers each refusal with (a batch gives only the code). */
const STATUS = { LOCK_EXPIRED: 409, NOT_LOCK_OWNER: 403, REQUEST_FINISHED: 409 };

const outcome = (lease, { renewed = false, expiresAt, validForMs, error } = {}) => ({
  lease, renewed, expiresAt, validForMs, error, lost: lease.state === 'lost',
});

/** The leases checked before anything is sent: usage errors name the lease's index. */
function checked(leases, replicas) {
  if (!Array.isArray(leases)) throw new TypeError(`leases must be an array of this client's leases, got ${typeof leases}`);
  if (leases.length === 0) throw new RangeError('leases must not be empty: give renewAll at least one lease');
  const seen = new Map();
  return leases.map((lease, i) => {
    if (!(lease instanceof Lease)) {
      throw new TypeError(`leases[${i}] is not a Lease (from this client's acquire), got ${typeof lease}`);
    }
    const hook = lease[internals]();
    if (hook.replicas !== replicas) {
      throw new RangeError(`leases[${i}] (lock '${lease.key}') was acquired by another client (owner `
        + `'${lease.ownerId}'); renewAll renews this client's leases only`);
    }
    if (lease.state === 'released') {
      throw new RangeError(`leases[${i}] (lock '${lease.key}') was released; it cannot be renewed`);
    }
    if (seen.has(lease)) {
      throw new RangeError(`leases[${i}] is the same lease as leases[${seen.get(lease)}] (lock '${lease.key}'): `
        + 'give each lease once');
    }
    seen.set(lease, i);
    return { lease, hook };
  });
}

/** Applies one lease's result of an answered request, as its single renew's answer. */
function applied({ lease, hook }, result, { sent, earliestAmbiguous, attempts }, what) {
  if (result.lockKey !== lease.key) {
    return outcome(lease, {
      error: new ServerError(`${what}: a result names lock '${result.lockKey}' where '${lease.key}' was sent`,
        { code: 'BAD_ANSWER', key: lease.key }),
    });
  }
  let answer;
  if (result.error === undefined) {
    answer = { status: 200, body: result };
  } else {
    const code = typeof result.error?.code === 'string' ? result.error.code : 'INTERNAL';
    const message = typeof result.error?.message === 'string' ? hook.secret.redact(result.error.message) : undefined;
    answer = { status: STATUS[code] ?? 500, body: { error: code, detail: message } };
  }
  const refusal = hook.apply({
    answer, sent, earliestAmbiguous, attempts,
  });
  if (refusal) return outcome(lease, { error: refusal });
  return outcome(lease, {
    renewed: true,
    expiresAt: typeof result.expiresAt === 'number' ? result.expiresAt : undefined,
    validForMs: hook.validityMs(result),
  });
}

/** The leases in order, in parts of at most MAX_LEASES_PER_CALL leases and MAX_BYTES_PER_CALL bytes of JSON. */
function split(leases) {
  const parts = [];
  let part = [];
  let size = 0;
  for (const x of leases) {
    const n = Buffer.byteLength(JSON.stringify(x.hook.item())) + 1; // and the comma before it
    if (part.length > 0 && (part.length === MAX_LEASES_PER_CALL || size + n > MAX_BYTES_PER_CALL)) {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(x);
    size += n;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** One request's leases: sent, retried and answered. */
async function renewChunk(replicas, chunk, signal) {
  const what = `batch renewal of ${chunk.length} lease${chunk.length === 1 ? '' : 's'}`;
  // The call's bound: the latest local deadline among them. Each attempt carries only the leases
  // whose deadline has not passed, so no lease is sent past its own deadline (as a single renew is
  // not), and one lease about to end does not cut the others' retries short.
  const until = Math.max(...chunk.map((x) => x.hook.deadline()));
  let sentLeases = chunk;
  const body = (at) => {
    sentLeases = chunk.filter((x) => x.hook.deadline() > at);
    if (sentLeases.length === 0) {
      // At the bound's very edge: the last one still goes (the service decides).
      sentLeases = [chunk.reduce((a, b) => (b.hook.deadline() > a.hook.deadline() ? b : a))];
    }
    return { leases: sentLeases.map((x) => x.hook.item()) };
  };
  const failed = (error) => chunk.map(({ lease }) => outcome(lease, { error }));
  let answered;
  try {
    answered = await replicas.call('POST', PATH, body, {
      until, what, signal, attemptTimeout: (at, end) => Math.max(1, (end - at) / 2),
    });
  } catch (e) {
    if (e instanceof ServiceError) return failed(e); // no replica answered in time, a bad answer
    throw e; // the caller's abort
  }
  const { answer } = answered;
  if (answer.status !== 200) {
    let problem = answer.body;
    for (const x of sentLeases) problem = x.hook.secret.redactBody(problem);
    return failed(fromProblem(answer.status, problem, { what, key: undefined, retryAfterHeader: answer.retryAfter }));
  }
  const { results } = answer.body;
  if (!Array.isArray(results) || results.length !== sentLeases.length
    || !results.every((r) => r !== null && typeof r === 'object')) {
    return failed(new ServerError(`${what}: the answer's results are not one object per lease sent`,
      { code: 'BAD_ANSWER' }));
  }
  const byLease = new Map(sentLeases.map((x, i) => [x.lease, results[i]]));
  return chunk.map((x) => {
    const result = byLease.get(x.lease);
    if (result === undefined) {
      return outcome(x.lease, {
        error: new UnavailableError(`renew of '${x.lease.key}': its local deadline passed before the ${what} was sent`,
          { code: 'UNAVAILABLE', key: x.lease.key }),
      });
    }
    return applied(x, result, answered, what);
  });
}

/**
 * Client.renewAll: one outcome per lease, in the order given. Leases lost already are not sent
 * (their outcome carries the LeaseLostError check() throws); the rest go in chunks of 1,000.
 */
export async function renewAll(replicas, leases, { signal } = {}) {
  const all = checked(leases, replicas);
  const done = new Map();
  const live = [];
  for (const x of all) {
    try {
      x.lease.check();
      live.push(x);
    } catch (error) {
      done.set(x.lease, outcome(x.lease, { error }));
    }
  }
  for (const chunk of split(live)) {
    for (const o of await renewChunk(replicas, chunk, signal)) done.set(o.lease, o);
  }
  return all.map(({ lease }) => done.get(lease));
}
