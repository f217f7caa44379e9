package io.zkfence.server;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("zkfence-leftovers").daemon().factory());

    Leftovers(LockQueue queue) {
        this.queue = queue;
    }

    /** Removes {@code name} (at {@code version}) from {@code lockPath} in the background. */
    void remove(String lockPath, EntryName name, int version) {
        long until = System.nanoTime() + GIVE_UP_AFTER.toNanos();
        schedule(lockPath, name, version, until, 500);
    }

    private void schedule(String lockPath, EntryName name, int version, long until, long delayMillis) {
        timer.schedule(
                () -> Thread.ofVirtual().start(() -> attempt(lockPath, name, version, until, delayMillis)),
                delayMillis,
                TimeUnit.MILLISECONDS);
    }

    private void attempt(String lockPath, EntryName name, int version, long until, long delayMillis) {
        try {
            queue.remove(lockPath, name, version, List.of());
        } catch (KeeperException | LockServiceException e) {
            if (System.nanoTime() < until && !timer.isShutdown()) {
                schedule(lockPath, name, version, until, Math.min(10_000, delayMillis * 2));
            } else {
                log.warn("gave up removing an abandoned entry of {}: {}", lockPath, e.toString());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
