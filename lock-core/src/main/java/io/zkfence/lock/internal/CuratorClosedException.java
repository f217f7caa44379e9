package io.zkfence.lock.internal;

/**
 * The {@code CuratorFramework} under a {@link CuratorZkGateway} was closed: no request can be sent
 * any more. lock-core turns it into a {@code LockClientClosedException} for the caller, the lock
 * service into a 503 {@code SHUTTING_DOWN}.
 */
public final class CuratorClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The one message: a lock client's Curator client was closed before the lock client. */
    public CuratorClosedException() {
        super("the CuratorFramework was closed before the LockClient using it; close the LockClient first");
    }
}
