package io.zkfence.lock;

/**
 * ZooKeeper refused or failed an operation in a way waiting will not fix (no permission, a bad
 * ACL), or a bounded operation (inspect, try-acquire) could not reach
 * ZooKeeper in time. The cause is the ZooKeeper exception.
 *
 * <p>Like any remote call that timed out, an operation reported here may still have been
 * applied by the server.
 */
public final class CoordinationException extends LockException {

    private static final long serialVersionUID = 1L;

    CoordinationException(String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }
}
