package io.zkfence.server;

import java.util.Optional;
import org.apache.zookeeper.data.Stat;

/**
 * One queue entry of a lock, as read from ZooKeeper: the znode {@code e-<lockToken>-<request>-<seq>}
 * (persistent sequential: it outlives the session of the replica that created it) and its data.
 * The lease lives here, not on any replica's session.
 *
 * @param node        znode name
 * @param sequence    ZooKeeper's sequence suffix: queue order
 * @param lockToken   the opaque ownership handle given to the client
 * @param requestKey  a digest of owner id and request id: a retried acquire finds its entry by it
 * @param data        owner, request id, TTL and the lease's times
 * @param fencingToken the node's creation zxid (lock-core's token contract)
 * @param version     the data version, for conditional writes
 */
record Entry(
        String node,
        int sequence,
        String lockToken,
        String requestKey,
        EntryData data,
        long fencingToken,
        int version) {

    /** The entry named {@code node} (a name {@link #parseName} accepts) with its data and stat as read. */
    static Entry of(String node, EntryData data, Stat stat) {
        String[] parts = parseName(node).orElseThrow(() -> new IllegalArgumentException("not an entry: " + node));
        return new Entry(
                node, Integer.parseInt(parts[3]), parts[1], parts[2], data, stat.getCzxid(), stat.getVersion());
    }

    /** The queue position of an entry's name: its sequence suffix. */
    static int sequenceOf(String node) {
        return Integer.parseInt(node.substring(node.lastIndexOf('-') + 1));
    }

    /** This entry as written again: new data, new version. */
    Entry with(EntryData newData, int newVersion) {
        return new Entry(node, sequence, lockToken, requestKey, newData, fencingToken, newVersion);
    }

    /** Parses a child name; anything else under a lock's znode gives empty. */
    static Optional<String[]> parseName(String node) {
        String[] parts = node.split("-", 4);
        if (parts.length != 4 || !parts[0].equals("e") || parts[3].length() < 10) {
            return Optional.empty();
        }
        try {
            Integer.parseInt(parts[3]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.of(parts);
    }

    boolean granted() {
        return data.expiresAt() > 0;
    }

    /**
     * When this entry dies unless written again (epoch ms): a lease at its {@code expiresAt}, a
     * waiting entry at its {@code waitUntil}. A waiter behind it wakes then to remove it.
     */
    long endsAt() {
        return granted() ? data.expiresAt() : data.waitUntil();
    }

    /** A lease whose time ran out, or a waiter nobody waits for any more: any replica deletes it. */
    boolean dead(long nowMillis) {
        return endsAt() <= nowMillis;
    }
}
