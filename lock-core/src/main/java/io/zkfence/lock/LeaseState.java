package io.zkfence.lock;

/**
 * Where a granted lease is in its life. (Before the grant there is no lease: the acquire call
 * is still blocked.)
 *
 * <pre>
 *   HELD ◀──▶ SUSPECT
 *    │           │
 *    ├──────────▶├──▶ LOST      session expired, queue node deleted, or max-hold passed
 *    └──────────▶└──▶ RELEASED  the holder released it
 * </pre>
 *
 * LOST and RELEASED are final.
 */
public enum LeaseState {
    /** Granted, and the session is known to be alive: writes with the token may go ahead. */
    HELD,
    /**
     * The connection to ZooKeeper is suspended. The session may still be alive (it comes back to
     * {@link #HELD} on reconnect) or may already have expired on the servers. Do not write.
     */
    SUSPECT,
    /** The lock is no longer ours: stop work; every write with this token may be fenced off. */
    LOST,
    /** Released by the holder. */
    RELEASED;

    /** True for {@link #LOST} and {@link #RELEASED}. */
    public boolean isFinal() {
        return this == LOST || this == RELEASED;
    }
}
