package io.zkfence.server;

/**
 * One queue entry of a lock as read from ZooKeeper: its name, its data and the stat values that
 * matter. The lease lives here, not on any replica's session; the holder of a lock is its first
 * live entry in queue order.
 *
 * <p>When an entry ends, by any replica's reading, is decided by the entry alone, never by its
 * place in the queue (a place read a moment ago may be stale):
 * <ul>
 *   <li>a lease that {@linkplain EntryData#standsAlone() stands alone} lives until its {@code expiresAt};
 *   <li>an unconfirmed entry (a waiting acquire, or a lease granted from the queue and not yet
 *       confirmed) lives while the session of the replica that waits for it lives, and no later
 *       than its {@code expiresAt} ({@code waitUntil} + TTL);
 *   <li>a previous-protocol waiting entry lives until its {@code waitUntil}.
 * </ul>
 *
 * @param name         the znode name, parsed
 * @param data         owner, request, TTL and times
 * @param fencingToken the znode's creation zxid (lock-core's token contract)
 * @param version      the data version, for conditional writes
 */
record QueueEntry(EntryName name, EntryData data, long fencingToken, int version) {

    /** This entry as written again: new data, new version. */
    QueueEntry with(EntryData newData, int newVersion) {
        return new QueueEntry(name, newData, fencingToken, newVersion);
    }

    /** The time (epoch ms) after which the entry is dead whatever else happens. */
    long endsAt() {
        if (data.standsAlone() || !name.legacy()) {
            return data.expiresAt();
        }
        return data.waitUntil();
    }

    /** True if the entry's life hangs on its replica's session (an unconfirmed entry of this protocol). */
    boolean tiedToReplica() {
        return !name.legacy() && !data.standsAlone();
    }

    /**
     * Whether the entry is dead at {@code nowMillis}: any replica may then delete it (a versioned
     * delete of the version read, so an entry written since survives).
     */
    boolean dead(long nowMillis, ReplicaRegistry replicas) {
        if (endsAt() <= nowMillis) {
            return true;
        }
        return tiedToReplica() && !replicas.alive(data.replica());
    }
}
