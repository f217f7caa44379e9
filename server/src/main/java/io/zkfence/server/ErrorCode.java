package io.zkfence.server;

import java.util.Locale;

/**
 * Every error the service answers, each with the one HTTP status it is sent with. The code is the
 * API's contract (the problem body's {@code error}, the {@code urn:zkfence:error:<code>} type);
 * {@link LockServiceException} carries one, {@link LockHttpServer} maps it to HTTP in one place,
 * and the OpenAPI document lists them all ({@code OpenApiDocumentTest} checks).
 */
enum ErrorCode {
    /** A malformed request: a missing, out-of-range or unknown field, bad JSON, a bad key. Nothing was written. */
    BAD_REQUEST(400),
    /** No API key, or one the server does not know. */
    UNAUTHORIZED(401),
    /** The API key does not reach this namespace. */
    NAMESPACE_FORBIDDEN(403),
    /** Force-release and the audit trail need an admin key. */
    ADMIN_REQUIRED(403),
    /** The lockToken was not issued for this lock and owner (forged, another lock's or another owner's). */
    NOT_LOCK_OWNER(403),
    /** No such route. */
    NOT_FOUND(404),
    /** Status of a lock nobody holds. */
    NOT_LOCKED(404),
    /** The route exists, not with this method. */
    METHOD_NOT_ALLOWED(405),
    /** Someone else holds the lock (no wait, or the wait ran out). */
    LOCK_ALREADY_HELD(409),
    /** Renewal of a lease that ended: expired, released or force-released. */
    LOCK_EXPIRED(409),
    /** An acquire whose requestId belongs to a request that already finished: never a grant. */
    REQUEST_FINISHED(409),
    /** A request body over the limit. */
    PAYLOAD_TOO_LARGE(413),
    /** The key's queue is full ({@code --max-waiters}): nothing was queued. */
    TOO_MANY_WAITERS(429),
    /** The caller of a waiting acquire closed its connection; its place in the queue is given up. */
    CALLER_GONE(499),
    /** A bug: the server failed. */
    INTERNAL(500),
    /** ZooKeeper could not be reached in time: retry with the same requestId, on any replica. */
    UNAVAILABLE(503),
    /** This replica is stopping: retry with the same requestId on another replica. */
    SHUTTING_DOWN(503);

    private final int status;

    ErrorCode(int status) {
        this.status = status;
    }

    /** The HTTP status this code is always answered with. */
    int status() {
        return status;
    }

    /** The problem body's {@code title}: the code in words. */
    String title() {
        return name().replace('_', ' ').toLowerCase(Locale.ROOT);
    }

    /** The problem body's {@code type}. */
    String type() {
        return "urn:zkfence:error:" + name();
    }

    /** Whether a client should send the same request again (same requestId), on any replica. */
    boolean retryable() {
        return this == UNAVAILABLE || this == SHUTTING_DOWN || this == TOO_MANY_WAITERS;
    }
}
