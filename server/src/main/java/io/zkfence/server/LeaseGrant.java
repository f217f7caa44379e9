package io.zkfence.server;

/**
 * A granted lease, as the acquire call answers it.
 *
 * @param lockKey      the lock
 * @param lockToken    the ownership handle: renew and release present it (a bearer credential: never logged)
 * @param fencingToken the number resources compare (lock-core's token contract)
 * @param ownerId      the holder
 * @param expiresAt    until when the lease is answered valid unless renewed (epoch ms, the answering replica's
 *                     clock): at or before the expiry its entry holds, and at most the TTL after the read
 */
record LeaseGrant(String lockKey, String lockToken, long fencingToken, String ownerId, long expiresAt) {

    /**
     * How long a lease ending at {@code expiresAt} lasts counted from when its request arrived,
     * as the answer's {@code validForMillis} says it: the client adds it to the moment it sent the
     * request, a deadline that errs early (never late) whatever the request waited in the queue or
     * on the way.
     *
     * @param nowMillis          this replica's clock now (the clock {@code expiresAt} is on)
     * @param sinceArrivalMillis how long ago the request arrived, on a monotonic clock
     */
    static long validForMillis(long expiresAt, long nowMillis, long sinceArrivalMillis) {
        return Math.max(0, expiresAt - nowMillis) + sinceArrivalMillis;
    }

    /** {@link #validForMillis} now, on this JVM's clocks, for a request that arrived at {@code arrivedNanos} ({@link System#nanoTime()}). */
    static long validForMillisNow(long expiresAt, long arrivedNanos) {
        return validForMillis(expiresAt, System.currentTimeMillis(), (System.nanoTime() - arrivedNanos) / 1_000_000);
    }

    @Override
    public String toString() {
        return "LeaseGrant[" + lockKey + ", owner " + ownerId + ", fencing token " + fencingToken + ", expiresAt "
                + expiresAt + "]";
    }
}
