package io.zkfence.lock;

/**
 * The acquiring thread was interrupted. The thread's interrupt flag is set again when this is
 * thrown, and the waiter's queue node has been removed (or is being removed in the background).
 */
public final class AcquireInterruptedException extends LockException {

    private static final long serialVersionUID = 1L;

    AcquireInterruptedException(String lockName, InterruptedException cause) {
        super(lockName, "interrupted while acquiring lock '" + lockName + "'", cause);
    }
}
