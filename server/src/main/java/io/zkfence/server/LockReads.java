package io.zkfence.server;

import io.zkfence.lock.ForcedRelease;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.KeeperException;

/**
 * Status, list and audit reads. Each starts with a {@code sync} (a failed sync is a 503, never a
 * read), so a server that lags behind the leader never answers. Status removes the dead entries
 * it meets, by the one reaping rule ({@link EntryRemovals#reap}); list writes nothing and skips them.
 */
final class LockReads {

    /** The most lock znodes one list call examines; past it the page ends early with a cursor. */
    static final int MAX_SCAN = 2_000;

    private final LockQueue queue;
    private final ZkWire wire;
    private final ReplicaRegistry replicas;
    private final EntryRemovals removals;
    private final AuditTrail audit;
    private final ServicePaths paths;
    private final Clock clock;

    LockReads(
            LockQueue queue,
            ZkWire wire,
            ReplicaRegistry replicas,
            EntryRemovals removals,
            AuditTrail audit,
            ServicePaths paths,
            Clock clock) {
        this.queue = queue;
        this.wire = wire;
        this.replicas = replicas;
        this.removals = removals;
        this.audit = audit;
        this.paths = paths;
        this.clock = clock;
    }

    /** A lock's live queue, first the holder (if it is held), then the waiters in order. */
    record Status(QueueEntry holder, List<QueueEntry> waiters) {}

    /** The lock's live queue after a sync; dead entries it meets are removed. */
    Status status(LockKey key) {
        String lockPath = paths.lock(key);
        queue.sync(lockPath);
        while (true) {
            List<QueueEntry> entries = queue.readAll(lockPath, queue.queue(lockPath));
            long now = clock.millis();
            if (removals.reap(lockPath, entries, e -> e.dead(now, replicas)) != EntryRemovals.Outcome.KEPT) {
                continue; // some went (or the queue moved): read it again
            }
            List<QueueEntry> live = entries;
            if (live.isEmpty() || !held(live.get(0))) {
                return new Status(null, live);
            }
            return new Status(live.get(0), live.subList(1, live.size()));
        }
    }

    /** A held lock, as the list call answers it. */
    record Held(LockKey key, QueueEntry holder, int waiters) {}

    /** One page of a namespace's held locks. */
    record Page(List<Held> locks, String next) {}

    /**
     * The held locks of a namespace, in key order (their znode names), at most {@code limit} after
     * the lock whose znode name is {@code after} (null: from the start), examining at most
     * {@link #MAX_SCAN} locks: {@code next} is where to go on (null on the last page). One sync
     * first. Dead entries are skipped, not deleted: listing writes nothing.
     */
    Page list(String namespace, String after, int limit) {
        String nsPath = paths.namespace(namespace);
        queue.sync(nsPath);
        List<String> locks;
        try {
            locks = new ArrayList<>(wire.call("listing a namespace", () -> wire.children(nsPath))
                    .names());
        } catch (KeeperException.NoNodeException e) {
            return new Page(List.of(), null);
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("listing namespace '" + namespace + "'", e);
        }
        locks.sort(null);
        long now = clock.millis();
        List<Held> out = new ArrayList<>();
        int scanned = 0;
        String last = null;
        for (String lock : locks) {
            if (after != null && lock.compareTo(after) <= 0) {
                continue;
            }
            if (out.size() >= limit || scanned >= MAX_SCAN) {
                return new Page(out, LockKey.fromZnode(namespace, last).name());
            }
            scanned++;
            last = lock;
            String lockPath = nsPath + "/" + lock;
            List<QueueEntry> live = queue.readAll(lockPath, queue.queue(lockPath)).stream()
                    .filter(e -> !e.dead(now, replicas))
                    .toList();
            if (!live.isEmpty() && held(live.get(0))) {
                out.add(new Held(LockKey.fromZnode(namespace, lock), live.get(0), live.size() - 1));
            }
        }
        return new Page(out, null);
    }

    /** The newest entries of the audit trail, newest first. */
    List<ForcedRelease> auditTrail(int limit) {
        queue.sync(paths.audit());
        return audit.newest(limit);
    }

    /** The first live entry holds the lock, except a previous-protocol entry not yet granted by its replica. */
    private static boolean held(QueueEntry first) {
        return !first.name().legacy() || first.data().standsAlone();
    }
}
