package io.zkfence.server;

import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entries a call gave up but could not remove (ZooKeeper did not answer in time): removed in the
 * background, with the same versioned delete, until it succeeds, the entry changed or went, or
 * {@link #GIVE_UP_AFTER} passed. A waiting entry left behind meanwhile holds the queue no longer
 * than its replica's session lives or its {@code expiresAt}.
 */
final class Leftovers implements AutoCloseable {

    static final Duration GIVE_UP_AFTER = Duration.ofMinutes(2);
    private static final Logger log = LoggerFactory.getLogger(Leftovers.class);

    private final LockQueue queue;
    private final Scheduler scheduler;
    private volatile boolean closed;

    Leftovers(LockQueue queue, Scheduler scheduler) {
        this.queue = queue;
        this.scheduler = scheduler;
    }

    /** Removes {@code name} (at {@code version}) from {@code lockPath} in the background. */
    void remove(String lockPath, EntryName name, int version) {
        long until = scheduler.nanoTime() + GIVE_UP_AFTER.toNanos();
        schedule(lockPath, name, version, until, 500);
    }

    private void schedule(String lockPath, EntryName name, int version, long until, long delayMillis) {
        scheduler.schedule(
                "zkfence-leftovers", () -> attempt(lockPath, name, version, until, delayMillis), delayMillis);
    }

    private void attempt(String lockPath, EntryName name, int version, long until, long delayMillis) {
        if (closed) {
            return;
        }
        try {
            queue.remove(lockPath, name, version, List.of());
        } catch (KeeperException | LockServiceException e) {
            if (scheduler.nanoTime() < until && !closed) {
                schedule(lockPath, name, version, until, Math.min(10_000, delayMillis * 2));
            } else {
                log.warn("gave up removing an abandoned entry of {}: {}", lockPath, e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
