package io.zkfence.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The refusals an acquire answers, each with its error code, its words and its fields (never a
 * lockToken in either).
 */
final class AcquireRefusals {

    private AcquireRefusals() {}

    /** 409 {@code LOCK_ALREADY_HELD}, naming the holder and when its lease ends. */
    static LockServiceException alreadyHeld(LockKey key, QueueEntry head, long now) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("currentOwner", head == null ? null : head.data().ownerId());
        extra.put("retryAfterMillis", head == null ? 0 : Math.max(0, head.endsAt() - now));
        return new LockServiceException(
                ErrorCode.LOCK_ALREADY_HELD,
                "lock '" + key.key() + "' is held"
                        + (head == null ? "" : " by '" + head.data().ownerId() + "'"),
                extra);
    }

    /** 409 {@code REQUEST_FINISHED}: the request ended before; never its dead grant again. */
    static LockServiceException requestFinished(Acquirer.Request req, FinishedRequests.Finished record) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("outcome", record == null ? null : record.outcome().name());
        extra.put("finishedAt", record == null ? null : record.at());
        return new LockServiceException(
                ErrorCode.REQUEST_FINISHED,
                "request '" + req.requestId() + "' of owner '" + req.ownerId() + "' on lock '"
                        + req.key().key() + "' already finished"
                        + (record == null ? "" : " (" + record.outcome() + ")")
                        + "; acquire again with a new requestId",
                extra);
    }

    /** 499 {@code CALLER_GONE}: the caller left while it waited. */
    static LockServiceException callerGone(LockKey key) {
        return new LockServiceException(
                ErrorCode.CALLER_GONE,
                "the caller of this acquire of lock '" + key.key()
                        + "' closed its connection; its place in the queue is given up");
    }

    /** 429 {@code TOO_MANY_WAITERS}: the queue is at its bound. */
    static LockServiceException tooManyWaiters(LockKey key, int ahead, int maxWaiters) {
        return new LockServiceException(
                ErrorCode.TOO_MANY_WAITERS,
                "lock '" + key.key() + "' has " + ahead + " waiters, the most --max-waiters allows (" + maxWaiters
                        + "); nothing was queued",
                Map.of("retryAfterMillis", 1000));
    }

    /** 503 {@code UNAVAILABLE}: the request could not be queued in {@code attempts} attempts. */
    static LockServiceException notQueued(LockKey key, int attempts) {
        return Unavailable.because(
                "could not queue on lock '" + key.key() + "' in " + attempts
                        + " attempts; retry with the same requestId",
                null);
    }

    /** 503 {@code UNAVAILABLE}: the lease granted ended {@code lateMillis} before its answer was ready. */
    static LockServiceException endedBeforeAnswered(LockKey key, long lateMillis) {
        return Unavailable.because(
                "the lease on lock '" + key.key() + "' ended " + lateMillis
                        + " ms before it could be answered (ZooKeeper was slow); retry",
                null);
    }

    /** 503 {@code SHUTTING_DOWN}. */
    static LockServiceException shuttingDown() {
        return new LockServiceException(
                ErrorCode.SHUTTING_DOWN,
                "this replica is shutting down; retry the acquire with the same requestId on another replica");
    }
}
