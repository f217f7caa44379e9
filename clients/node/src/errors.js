// The errors of the zkfence client: one hierarchy, one class per error code of the service.
// The lockToken of a lease is a bearer credential: it is in no message (a server detail that
// quotes it is redacted before it gets here).

/** Base of every error of this package (lock service and fences alike). */
export class ZkfenceError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The lock service refused a call, or no replica answered (UnavailableError).
 * `code` is the service's stable code, `status` the HTTP status (undefined when nobody answered),
 * `key` the lock key, `detail` the server's explanation.
 */
export class ServiceError extends ZkfenceError {
  constructor(message, { code, status, key, detail, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.status = status;
    this.key = key;
    this.detail = detail;
  }
}

/** 409 LOCK_ALREADY_HELD: held by `owner`; `retryAfterMs` until the holder's lease ends at the latest. */
export class LockHeldError extends ServiceError {
  constructor(message, { owner, retryAfterMs, ...rest }) {
    super(message, rest);
    this.owner = owner;
    this.retryAfterMs = retryAfterMs;
  }
}

/** 429 TOO_MANY_WAITERS: the key's queue is full, nothing was queued; retried while the wait allows. */
export class TooManyWaitersError extends ServiceError {
  constructor(message, { retryAfterMs, ...rest }) {
    super(message, rest);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 409 REQUEST_FINISHED: the requestId names a request that ended (`outcome`); never a grant. */
export class RequestFinishedError extends ServiceError {
  constructor(message, { outcome, ...rest }) {
    super(message, rest);
    this.outcome = outcome;
  }
}

/** 409 LOCK_EXPIRED: the lease ended (expired, released or force-released). */
export class LeaseExpiredError extends ServiceError {}
/** 403 NOT_LOCK_OWNER: the lockToken is not this owner's for this lock. */
export class NotLockOwnerError extends ServiceError {}
/** 403 NAMESPACE_FORBIDDEN or ADMIN_REQUIRED (see `code`). */
export class ForbiddenError extends ServiceError {}
/** 401 UNAUTHORIZED: no API key, or one the service does not know. */
export class UnauthorizedError extends ServiceError {}
/** 400 BAD_REQUEST: `detail` names the field. */
export class BadRequestError extends ServiceError {}
/** 413 PAYLOAD_TOO_LARGE. */
export class PayloadTooLargeError extends ServiceError {}
/**
 * No replica answered within the call's time bound (connection errors, timeouts, 503 UNAVAILABLE /
 * SHUTTING_DOWN on every attempt); `cause` is the last failure. An acquire's outcome may be
 * unknown: a grant whose answer was lost ends at its TTL.
 */
export class UnavailableError extends ServiceError {}
/** 500 INTERNAL, an unknown code, or an answer that is not the service's JSON. */
export class ServerError extends ServiceError {}

/**
 * The lease can no longer be trusted: stop writing with its fencing token. `reason` is the
 * service's refusal that ended it, an UnavailableError (no replica renewed it in time), or
 * undefined (not renewed by choice, or released).
 */
export class LeaseLostError extends ZkfenceError {
  constructor(message, { key, fencingToken, reason }) {
    super(message, reason === undefined ? undefined : { cause: reason });
    this.key = key;
    this.fencingToken = fencingToken;
    this.reason = reason;
  }
}

/** A fence could not decide on a write; `resourceKey` and `token` name the call, `cause` the driver's error. */
export class FenceError extends ZkfenceError {
  constructor(message, { resourceKey, token, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.resourceKey = resourceKey;
    this.token = token;
  }
}

/**
 * The presented token is lower than the highest one the resource accepted: the lock was granted to
 * a newer holder. Nothing of the unit of work was written; never retry with this token.
 */
export class StaleTokenError extends FenceError {
  constructor(resource, presentedToken, storedToken, table) {
    super(`stale fencing token for resource '${resource}': presented ${presentedToken} but ${table} has already `
      + `accepted ${storedToken}; the lock was granted to a newer holder, nothing was written`,
    { resourceKey: resource, token: presentedToken });
    this.resource = resource;
    this.presentedToken = presentedToken;
    this.storedToken = storedToken;
  }
}

/** The database aborted the transaction for a concurrent one: retry the whole unit of work with the same token. */
export class SerializationConflictError extends FenceError {}
/** The fence table does not exist: run createIfMissing() or the migration. */
export class FenceTableMissingError extends FenceError {}

const BY_CODE = {
  LOCK_ALREADY_HELD: LockHeldError,
  TOO_MANY_WAITERS: TooManyWaitersError,
  REQUEST_FINISHED: RequestFinishedError,
  LOCK_EXPIRED: LeaseExpiredError,
  NOT_LOCK_OWNER: NotLockOwnerError,
  NAMESPACE_FORBIDDEN: ForbiddenError,
  ADMIN_REQUIRED: ForbiddenError,
  UNAUTHORIZED: UnauthorizedError,
  BAD_REQUEST: BadRequestError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  UNAVAILABLE: UnavailableError,
  SHUTTING_DOWN: UnavailableError,
};

/** Milliseconds from the problem's retryAfterMillis, else the Retry-After header (seconds), else undefined. */
export function retryAfterMs(problem, header) {
  const millis = problem.retryAfterMillis;
  if (typeof millis === 'number' && millis >= 0) return millis;
  if (header != null && /^\s*\d+(\.\d+)?\s*$/.test(header)) return Number(header) * 1000;
  return undefined;
}

/** The typed error for a problem+json answer; `what` names the call ("acquire of 'k'"). */
export function fromProblem(status, problem, { what, key, retryAfterHeader }) {
  const code = typeof problem.error === 'string' ? problem.error : `HTTP_${status}`;
  const detail = typeof problem.detail === 'string' ? problem.detail : undefined;
  const message = `${what}: ${status} ${code}${detail ? `: ${detail}` : ''}`;
  const Kind = BY_CODE[code] ?? ServerError;
  const common = { code, status, key, detail };
  if (Kind === LockHeldError) {
    return new LockHeldError(message, {
      ...common,
      owner: typeof problem.currentOwner === 'string' ? problem.currentOwner : undefined,
      retryAfterMs: retryAfterMs(problem, retryAfterHeader),
    });
  }
  if (Kind === TooManyWaitersError) {
    return new TooManyWaitersError(message, { ...common, retryAfterMs: retryAfterMs(problem, retryAfterHeader) });
  }
  if (Kind === RequestFinishedError) {
    return new RequestFinishedError(message, {
      ...common, outcome: typeof problem.outcome === 'string' ? problem.outcome : undefined,
    });
  }
  return new Kind(message, common);
}
