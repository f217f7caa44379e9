package io.zkfence.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.data.Stat;

/**
 * The previous protocol's queue entry, as released (a fixture of {@code RollingUpgradeTest}).
 *
 * <p>One queue entry of a lock, as read from ZooKeeper: the znode {@code [_c_<uuid>-]e-<lockToken>-<request>-<seq>}
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
record LegacyEntry(
        String node,
        int sequence,
        String lockToken,
        String requestKey,
        LegacyEntryData data,
        long fencingToken,
        int version) {

    /** Curator's protected-create prefix: {@code _c_}, a 36-character UUID and a dash. */
    private static final String PROTECTED_PREFIX = "_c_";

    private static final int PROTECTED_LENGTH = PROTECTED_PREFIX.length() + 36 + 1;

    /** The entry named {@code node} (a name {@link #parseName} accepts) with its data and stat as read. */
    static LegacyEntry of(String node, LegacyEntryData data, Stat stat) {
        String[] parts = parseName(node).orElseThrow(() -> new IllegalArgumentException("not an entry: " + node));
        return new LegacyEntry(
                node, Integer.parseInt(parts[3]), parts[1], parts[2], data, stat.getCzxid(), stat.getVersion());
    }

    /**
     * The entries among {@code children} (names {@link #parseName} accepts; others are left out),
     * in queue order: their sequence suffixes compared in serial-number arithmetic, as lock-core
     * orders its queue. The suffix is a signed 32-bit counter that turns negative after 2^31 child
     * changes of one lock znode; the difference of two suffixes keeps the right order as long as
     * the live entries span fewer. Each name is parsed once: a long queue is sorted on every read.
     */
    static List<String> inQueueOrder(List<String> children) {
        record Named(String node, int sequence) {}
        List<Named> entries = new ArrayList<>(children.size());
        for (String node : children) {
            // Not the text after the last dash: past 2^31 the suffix is negative, "-2147483648".
            parseName(node).ifPresent(parts -> entries.add(new Named(node, Integer.parseInt(parts[3]))));
        }
        entries.sort((a, b) -> Integer.signum(a.sequence() - b.sequence()));
        return entries.stream().map(Named::node).toList();
    }

    /** This entry as written again: new data, new version. */
    LegacyEntry with(LegacyEntryData newData, int newVersion) {
        return new LegacyEntry(node, sequence, lockToken, requestKey, newData, fencingToken, newVersion);
    }

    /**
     * Parses a child name, {@code [_c_<uuid>-]e-<lockToken>-<requestKey>-<seq>}, into
     * {@code e}, lock token, request key and sequence; anything else under a lock's znode gives
     * empty. The optional prefix is Curator's protected-create mark: after a connection loss
     * Curator looks for it before it creates again, so a create whose answer was lost does not
     * leave a second entry for the same request.
     */
    static Optional<String[]> parseName(String node) {
        String bare = node.startsWith(PROTECTED_PREFIX)
                        && node.length() > PROTECTED_LENGTH
                        && node.charAt(PROTECTED_LENGTH - 1) == '-'
                ? node.substring(PROTECTED_LENGTH)
                : node;
        String[] parts = bare.split("-", 4);
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
