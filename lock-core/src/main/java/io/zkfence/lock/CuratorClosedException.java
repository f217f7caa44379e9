package io.zkfence.lock;

/**
 * The {@code CuratorFramework} under a {@link LockClient} was closed before the client: no request
 * can be sent any more. Raised by the gateway and turned into a {@link LockClientClosedException}
 * for the caller.
 */
final class CuratorClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    CuratorClosedException() {
        super("the CuratorFramework was closed before the LockClient using it; close the LockClient first");
    }
}
