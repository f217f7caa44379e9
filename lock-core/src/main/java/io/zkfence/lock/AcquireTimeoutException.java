package io.zkfence.lock;

import java.time.Duration;

/**
 * A timed acquire gave up before the lock was granted. The waiter's queue node has been removed
 * (or is being removed in the background if ZooKeeper was unreachable), so it does not hold up
 * the queue.
 */
public final class AcquireTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    private final Duration waited;

    AcquireTimeoutException(String lockName, Duration waited) {
        super(lockName, "timed out after " + waited.toMillis() + " ms waiting for lock '" + lockName + "'", null);
        this.waited = waited;
    }

    /** How long the caller waited. */
    public Duration waited() {
        return waited;
    }
}
