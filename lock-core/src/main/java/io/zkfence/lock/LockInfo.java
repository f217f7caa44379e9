package io.zkfence.lock;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of one lock's queue, from {@link LockClient#inspect(String)}.
 *
 * <p>Read without any lock, so it can be stale the moment it returns; use it for diagnostics,
 * never to decide whether you may write.
 *
 * @param name         the application lock name
 * @param path         the lock's znode
 * @param entries      queue entries in grant order: the first holds the lock, the rest wait
 * @param localWaiters threads of the inspecting client waiting in cohort mode behind its one
 *                     queue node ({@link FencedLock#withCohort()}); other processes' local
 *                     waiters are not in ZooKeeper and are not counted
 */
public record LockInfo(String name, String path, List<Entry> entries, int localWaiters) {

    public LockInfo {
        entries = List.copyOf(entries);
        if (localWaiters < 0) {
            throw new IllegalArgumentException("localWaiters must not be negative, was " + localWaiters);
        }
    }

    /** A snapshot without local waiters (queues read from ZooKeeper alone). */
    public LockInfo(String name, String path, List<Entry> entries) {
        this(name, path, entries, 0);
    }

    /** This snapshot with {@code n} local waiters. */
    LockInfo withLocalWaiters(int n) {
        return new LockInfo(name, path, entries, n);
    }

    /** The current holder, if the lock is held. */
    public Optional<Entry> holder() {
        return entries.isEmpty() ? Optional.empty() : Optional.of(entries.get(0));
    }

    /** The waiters in the order they will be granted. */
    public List<Entry> waiters() {
        return entries.isEmpty() ? List.of() : entries.subList(1, entries.size());
    }

    /**
     * One queue node.
     *
     * @param ownerId     the acquirer's owner id; {@link #CURATOR} for a node of Curator's
     *                    {@code InterProcessMutex} on the same path, {@code "?"} for a zkfence
     *                    node whose data cannot be read
     * @param token       the fencing token this entry holds or will hold (its creation zxid). For
     *                    a {@link #CURATOR} entry it is only the node's creation zxid: its holder
     *                    has no token and its writes are not fenced
     * @param sequence    ZooKeeper's sequence suffix, for diagnostics
     * @param requestedAt when the acquire was requested, by the acquirer's clock; for a holder
     *                    that never waited this is also when it got the lock
     * @param node        the znode name
     */
    public record Entry(String ownerId, long token, int sequence, Instant requestedAt, String node) {

        /** The {@link #ownerId()} of an entry made by Curator's {@code InterProcessMutex}. */
        public static final String CURATOR = "(curator)";

        /** Whether Curator's mutex, not zkfence, made this entry: its holder has no fencing token. */
        public boolean isCurator() {
            return CURATOR.equals(ownerId);
        }
    }
}
