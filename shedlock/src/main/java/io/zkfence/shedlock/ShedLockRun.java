package io.zkfence.shedlock;

import io.zkfence.lock.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.ClockProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a job: the zkfence lease, the job's lockAtLeast record version, and the timer that
 * releases the lock when {@code lockAtMostFor} passes. Its state moves ACTIVE → UNLOCKED, or
 * ACTIVE → EXPIRED → UNLOCKED, once each.
 */
final class ShedLockRun {

    private static final Logger log = LoggerFactory.getLogger(ShedLockRun.class);

    enum State {
        ACTIVE,
        EXPIRED,
        UNLOCKED
    }

    private final String name;
    private final Lease lease;
    private final Runnable onEnd;
    private final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);
    private volatile LockAtLeastRecords.Entry record;
    private volatile CompletableFuture<Void> expiry = CompletableFuture.completedFuture(null);

    ShedLockRun(String name, Lease lease, LockAtLeastRecords.Entry record, Runnable onEnd) {
        this.name = name;
        this.lease = lease;
        this.record = record;
        this.onEnd = onEnd;
    }

    String name() {
        return name;
    }

    Lease lease() {
        return lease;
    }

    LockAtLeastRecords.Entry record() {
        return record;
    }

    void record(LockAtLeastRecords.Entry record) {
        this.record = record;
    }

    boolean isActive() {
        return state.get() == State.ACTIVE && lease.isValid();
    }

    boolean isUnlocked() {
        return state.get() == State.UNLOCKED;
    }

    /** (Re)arms the lockAtMostFor timer: the lock is released at {@code until} unless unlocked first. */
    void expireAt(Instant until) {
        CompletableFuture<Void> previous = expiry;
        long delayMs = Math.max(0, Duration.between(ClockProvider.now(), until).toMillis());
        CompletableFuture<Void> next = new CompletableFuture<>();
        expiry = next;
        previous.cancel(false);
        CompletableFuture.runAsync(
                () -> {
                    if (expiry == next && !next.isDone()) {
                        expire(until);
                    }
                },
                CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS));
    }

    private void expire(Instant until) {
        if (state.compareAndSet(State.ACTIVE, State.EXPIRED)) {
            log.warn(
                    "lockAtMostFor of job '{}' passed at {} with the task still running: releasing its lock (token {}); the"
                            + " next run gets a higher token and writes with this one are fenced",
                    name,
                    until,
                    lease.token());
            lease.release();
            onEnd.run();
        }
    }

    /** Ends the run for good: releases the lease if still held. */
    void unlock() {
        State was = state.getAndSet(State.UNLOCKED);
        expiry.cancel(false);
        if (was == State.ACTIVE) {
            lease.release();
            onEnd.run();
        }
    }
}
