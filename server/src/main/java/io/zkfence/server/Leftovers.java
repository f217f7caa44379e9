package io.zkfence.server;

import io.zkfence.fencing.internal.Backoff;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entries a call left but could not remove (ZooKeeper did not answer in time): removed in the
 * background by the same rule ({@link EntryRemovals#leave}: only what the call wrote last, never a
 * lease that may have been granted), with the one {@link Backoff} (from {@link #FIRST_TRY},
 * doubling up to {@link #MAX_PAUSE}), until it is done, the rule keeps the entry, or
 * {@link #GIVE_UP_AFTER} passed. A waiting entry left behind meanwhile holds the queue no longer
 * than its replica's session lives or its {@code expiresAt}.
 */
final class Leftovers implements AutoCloseable {

    static final Duration GIVE_UP_AFTER = Duration.ofMinutes(2);
    /** The first try's pause: the call has just failed to reach ZooKeeper in time. */
    static final Duration FIRST_TRY = Duration.ofMillis(500);

    static final Duration MAX_PAUSE = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(Leftovers.class);

    private final EntryRemovals removals;
    private final Scheduler scheduler;
    private final Backoff backoff;
    private volatile boolean closed;

    Leftovers(EntryRemovals removals, Scheduler scheduler) {
        this.removals = removals;
        this.scheduler = scheduler;
        this.backoff = Backoff.exponential(FIRST_TRY, MAX_PAUSE, scheduler::random);
    }

    /** Leaves {@code e} (as the call that wrote it at {@code ownWrite}) in the background; {@code ahead} as last read. */
    void leave(String lockPath, QueueEntry e, int ownWrite, EntryName ahead) {
        long until = scheduler.nanoTime() + GIVE_UP_AFTER.toNanos();
        schedule(lockPath, e, ownWrite, ahead, until, 1);
    }

    /** Try {@code attempt} (from 1) after the back-off's pause for it. */
    private void schedule(String lockPath, QueueEntry e, int ownWrite, EntryName ahead, long until, int attempt) {
        scheduler.schedule(
                "zkfence-leftovers",
                () -> attempt(lockPath, e, ownWrite, ahead, until, attempt),
                backoff.delay(attempt).toMillis());
    }

    private void attempt(String lockPath, QueueEntry e, int ownWrite, EntryName ahead, long until, int attempt) {
        if (closed) {
            return;
        }
        try {
            removals.leave(lockPath, e, ownWrite, ahead);
        } catch (LockServiceException failed) {
            if (scheduler.nanoTime() < until && !closed) {
                schedule(lockPath, e, ownWrite, ahead, until, attempt + 1);
            } else {
                log.warn("gave up removing an abandoned entry of {}: {}", lockPath, failed.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
