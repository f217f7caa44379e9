package io.zkfence.lock;

import java.time.Instant;
import java.util.Objects;

/**
 * What one {@link LockAdmin#forceRelease(String, String)} did, as it returns it and as the audit
 * log keeps it.
 *
 * @param lockName      the lock
 * @param outcome       what happened
 * @param node          the holder's queue node that was (or was to be) deleted; empty if none
 * @param holderOwnerId the evicted holder's owner id ({@code (curator)} for a Curator mutex
 *                      holder); empty if none
 * @param token         the evicted holder's token; 0 if none. The next holder's is higher, so
 *                      fenced resources reject the evicted holder's late writes
 * @param reason        the operator's reason, as given
 * @param by            the owner id of the client that forced it
 * @param at            when, by that client's clock
 */
public record ForcedRelease(
        String lockName,
        Outcome outcome,
        String node,
        String holderOwnerId,
        long token,
        String reason,
        String by,
        Instant at) {

    /** What a forced release did. */
    public enum Outcome {
        /** The holder's node was deleted: its lease turns LOST, the next waiter is granted. */
        RELEASED,
        /** Nobody held the lock: nothing was deleted. */
        NOT_HELD,
        /**
         * The node inspected was gone before the delete (released, expired, or already forced):
         * nothing was deleted, so the next holder was not touched.
         */
        HOLDER_CHANGED
    }

    public ForcedRelease {
        Objects.requireNonNull(lockName, "lockName");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(holderOwnerId, "holderOwnerId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(at, "at");
    }
}
