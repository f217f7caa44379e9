// zkfence: fenced locks from zkfence-server, for Node.js 20+ (no runtime dependencies).
// The PostgreSQL fence is '@zkfence/client/pg'. Guide: docs/clients.md.
export { Client, VERSION } from './client.js';
export { Lease } from './lease.js';
export {
  ZkfenceError, ServiceError, LockHeldError, TooManyWaitersError, RequestFinishedError, LeaseExpiredError,
  NotLockOwnerError, ForbiddenError, UnauthorizedError, BadRequestError, PayloadTooLargeError, UnavailableError,
  ServerError, LeaseLostError, FenceError, StaleTokenError, SerializationConflictError, FenceTableMissingError,
} from './errors.js';
