package io.zkfence.lock;

/**
 * The lease is over: the ZooKeeper session expired, the queue node was deleted, the max-hold
 * time passed, or the lease was released. Whatever the holder was about to write must not be
 * written under this token; another holder may already own the lock with a higher token.
 */
public final class LeaseLostException extends LockException {

    private static final long serialVersionUID = 1L;

    private final LeaseState state;

    LeaseLostException(String lockName, long token, LeaseState state, String reason) {
        super(
                lockName,
                token,
                "lease on lock '" + lockName + "' (token " + token + ") is " + state
                        + (reason == null ? "" : ": " + reason),
                null);
        this.state = state;
    }

    /** {@link LeaseState#LOST} or {@link LeaseState#RELEASED}. */
    public LeaseState state() {
        return state;
    }
}
