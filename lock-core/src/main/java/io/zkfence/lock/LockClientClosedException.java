package io.zkfence.lock;

/**
 * The {@link LockClient} was closed: before the call (acquire, inspect, lock handle use), or while
 * the call waited (a waiter woken by {@link LockClient#close()}; its queue node is removed). Also
 * thrown when the {@code CuratorFramework} under the client was closed first. Retrying on the
 * same client cannot succeed.
 */
public final class LockClientClosedException extends LockException {

    private static final long serialVersionUID = 1L;

    LockClientClosedException(String lockName, String message) {
        super(lockName, message, null);
    }

    LockClientClosedException(String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }
}
