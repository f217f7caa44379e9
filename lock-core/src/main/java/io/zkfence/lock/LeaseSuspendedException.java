package io.zkfence.lock;

/**
 * The lease is {@link LeaseState#SUSPECT}: the connection to ZooKeeper is down, so the holder
 * cannot know whether its session is still alive. Do not write now; wait for the lease to return
 * to {@link LeaseState#HELD} (see {@link Lease#addListener}) or to become lost.
 */
public final class LeaseSuspendedException extends LockException {

    private static final long serialVersionUID = 1L;

    LeaseSuspendedException(String lockName, long token) {
        super(
                lockName,
                token,
                "lease on lock '" + lockName + "' (token " + token
                        + ") is SUSPECT: connection to ZooKeeper suspended, do not write until it is HELD again",
                null);
    }
}
