// Type declarations of @zkfence/client (the implementation is plain ESM in ../src).

/** Where the client logs: console-compatible methods, each optional. */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

export interface ClientOptions {
  /** The service's bearer API key (omit for a service run with --no-auth). */
  apiKey?: string;
  /** Who holds the locks, as the service shows it (default: host-pid-random). */
  ownerId?: string;
  /** How long a call may take beyond its own wait, retries included (default 10000). */
  timeoutMs?: number;
  /** Default: warnings and errors through process.emitWarning, nothing else. */
  logger?: Logger;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

export interface AcquireOptions {
  /** Lease time to live in ms (default 30000). */
  ttlMs?: number;
  /** How long to wait in the queue, ms (default 10000; 0: do not queue). */
  waitMs?: number;
  /** Idempotency key (default: a new one, reused by every retry of this call). */
  requestId?: string;
  /** Renew in the background at a third of the current validity (default true). */
  autoRenew?: boolean;
  /** Called once when the lease is lost (its errors are logged). */
  onLost?: (lease: Lease) => void | Promise<void>;
  /** Cancels the acquire: the connection closes and the service drops the queue entry. */
  signal?: AbortSignal;
}

export interface LockOptions extends AcquireOptions {
  /** Reject with LeaseLostError at the end of the block if the lease was lost in it (default true). */
  throwIfLost?: boolean;
}

export interface LockStatus {
  key: string;
  locked: boolean;
  ownerId?: string;
  fencingToken?: bigint;
  /** Epoch ms on the replica's clock. */
  expiresAt?: number;
  /** The waiters' ownerIds, in queue order. */
  waiters: string[];
}

/** What Client.renewAll did to one lease, in the order given. */
export interface RenewOutcome {
  lease: Lease;
  /** The service renewed it; lease.remainingMs() then counts from the request's send. */
  renewed: boolean;
  /** The service's new end (epoch ms on the replica's clock, for display), if renewed. */
  expiresAt?: number;
  /** How long the service answered the lease valid for, from the send, if renewed. */
  validForMs?: number;
  /**
   * Undefined if renewed; else the lease's refusal (LeaseExpiredError, NotLockOwnerError: the lease
   * is lost), the LeaseLostError of a lease lost before the call (not sent), or the failure of its
   * whole request (UnavailableError, ...: the lease is as it was, valid until its local deadline).
   */
  error?: ServiceError | LeaseLostError;
  /** The lease is lost now. */
  lost: boolean;
}

export declare const VERSION: string;

export declare class Client {
  constructor(replicas: string[], options?: ClientOptions);
  readonly ownerId: string;
  readonly replicas: string[];
  acquire(key: string, options?: AcquireOptions): Promise<Lease>;
  withLock<T>(key: string, options: LockOptions, fn: (lease: Lease) => T | Promise<T>): Promise<T>;
  withLock<T>(key: string, fn: (lease: Lease) => T | Promise<T>): Promise<T>;
  /** Renews this client's leases with POST /v1/leases/renew, 1,000 per request; one outcome per lease. */
  renewAll(leases: readonly Lease[], options?: { signal?: AbortSignal }): Promise<RenewOutcome[]>;
  status(key: string, options?: { signal?: AbortSignal }): Promise<LockStatus>;
  toJSON(): { ownerId: string; replicas: string[] };
}

export type LeaseState = 'held' | 'lost' | 'released';

export declare class Lease {
  private constructor();
  readonly key: string;
  readonly ownerId: string;
  readonly requestId: string;
  /** Pass it with every write the lock protects; the resource rejects lower ones. */
  readonly fencingToken: bigint;
  /** Epoch ms on the replica's clock, for display. */
  readonly expiresAt: number;
  /** True while held and before the local deadline. */
  readonly valid: boolean;
  readonly state: LeaseState;
  readonly lostReason: ServiceError | undefined;
  /** Aborted (with a LeaseLostError) when the lease is lost or released. */
  readonly signal: AbortSignal;
  /** Milliseconds left until the local deadline. */
  remainingMs(): number;
  /** Throws LeaseLostError unless the lease is valid now. */
  check(): void;
  renew(options?: { signal?: AbortSignal }): Promise<void>;
  /** Resolves to whether the service still held the lease. */
  release(options?: { signal?: AbortSignal }): Promise<boolean>;
  toJSON(): { key: string; ownerId: string; requestId: string; fencingToken: string; state: LeaseState };
  /** `await using lease = await client.acquire(...)` releases it when the block ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

export declare class ZkfenceError extends Error {}

export declare class ServiceError extends ZkfenceError {
  readonly code: string;
  readonly status: number | undefined;
  readonly key: string | undefined;
  readonly detail: string | undefined;
}
export declare class LockHeldError extends ServiceError {
  readonly owner: string | undefined;
  readonly retryAfterMs: number | undefined;
}
export declare class TooManyWaitersError extends ServiceError {
  readonly retryAfterMs: number | undefined;
}
export declare class RequestFinishedError extends ServiceError {
  readonly outcome: 'RELEASED' | 'EXPIRED' | 'FORCE_RELEASED' | 'GAVE_UP' | string | undefined;
}
export declare class LeaseExpiredError extends ServiceError {}
export declare class NotLockOwnerError extends ServiceError {}
export declare class ForbiddenError extends ServiceError {}
export declare class UnauthorizedError extends ServiceError {}
export declare class BadRequestError extends ServiceError {}
export declare class PayloadTooLargeError extends ServiceError {}
export declare class UnavailableError extends ServiceError {}
export declare class ServerError extends ServiceError {}

export declare class LeaseLostError extends ZkfenceError {
  readonly key: string;
  readonly fencingToken: bigint;
  readonly reason: ServiceError | undefined;
}

export declare class FenceError extends ZkfenceError {
  readonly resourceKey: string | undefined;
  readonly token: bigint | number | undefined;
}
export declare class StaleTokenError extends FenceError {
  readonly resource: string;
  readonly presentedToken: bigint;
  readonly storedToken: bigint;
}
export declare class SerializationConflictError extends FenceError {}
export declare class FenceTableMissingError extends FenceError {}
