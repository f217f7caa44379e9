package io.zkfence.server;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms leases granted from the queue: writes a lease's own expiry into its entry, so that it
 * outlives the replica whose session it hung on.
 *
 * <p>A waiting acquire whose entry reaches the head of the queue is answered, when its TTL allows,
 * at once and with no write ({@link AcquireCall}); until confirmed, that lease lives only while
 * this replica's ZooKeeper session does. Halfway through its TTL, unless the holder renewed or
 * released first, this reads the entry and, if it is still unconfirmed, confirms it. A replica
 * that stops gracefully confirms every pending lease before it closes its session (which would
 * otherwise end them at once); one that crashes ends them when its session expires, which is after
 * every validity it answered. One timer per entry: a later grant of the same entry (a retry of
 * the request here) shares it, and the confirmation reads the entry as it is then.
 *
 * <p>{@link #confirmNow} is the one way a lease is confirmed, here and on the grant's path: the
 * expiry it writes is counted from a time taken before the write, plus {@link #SLACK}, and it
 * writes again if the write took longer than that. So a confirmation never shortens a lease that
 * another call of the request answered, unconfirmed, from a read made before the confirmation
 * committed (that answer ends at most the TTL after its read); it lengthens an unrenewed lease by
 * at most the slack.
 */
final class LeaseConfirmer implements AutoCloseable {

    /** What a confirmation adds to the TTL, and the longest its write may take before it writes again. */
    static final Duration SLACK = AcquireCall.STALE_DECISION;

    private static final int ATTEMPTS = 4;
    private static final Logger log = LoggerFactory.getLogger(LeaseConfirmer.class);

    /** A lease confirmed: the entry as written, and the lease's grant and end (epoch ms, this replica's clock). */
    record Confirmed(QueueEntry entry, long from, long until) {}

    private final LockQueue queue;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    private record Pending(String lockPath, EntryName name, Runnable cancelTimer) {}

    LeaseConfirmer(LockQueue queue, Clock clock, Scheduler scheduler) {
        this.queue = queue;
        this.clock = clock;
        this.scheduler = scheduler;
    }

    /**
     * Confirms the lease of {@code name} after {@code delay}, unless cancelled first (or one is
     * pending already). It stays pending until it is confirmed: a replica that stops while a
     * confirmation is on its way confirms it again before its session closes.
     */
    void schedule(String lockPath, EntryName name, Duration delay) {
        String key = lockPath + "/" + name.node();
        pending.computeIfAbsent(key, k -> {
            Runnable cancel = scheduler.schedule(
                    "zkfence-lease-confirmer",
                    () -> {
                        Pending p = pending.get(key);
                        if (p != null) {
                            confirmIfUnconfirmed(lockPath, name);
                            pending.remove(key, p);
                        }
                    },
                    delay.toMillis());
            return new Pending(lockPath, name, cancel);
        });
    }

    /** The lease was renewed or released, or went: no confirmation needed. */
    void cancel(String lockPath, EntryName name) {
        Pending p = pending.remove(lockPath + "/" + name.node());
        if (p != null) {
            p.cancelTimer().run();
        }
    }

    /** Leases granted here and not confirmed yet. */
    int pending() {
        return pending.size();
    }

    /**
     * Confirms {@code read} now: its expiry becomes a time taken before the write plus its TTL and
     * {@link #SLACK} (written again if the write took longer than the slack).
     *
     * @return the confirmation, or empty if the entry changed or went since {@code read} (read again)
     */
    Optional<Confirmed> confirmNow(String lockPath, QueueEntry read) {
        QueueEntry e = read;
        long ttl = e.data().ttlMillis();
        while (true) {
            long t = clock.millis();
            Optional<QueueEntry> written =
                    queue.write(lockPath, e, e.data().confirmedUntil(t, t + ttl + SLACK.toMillis()));
            if (written.isEmpty()) {
                return Optional.empty();
            }
            if (clock.millis() - t <= SLACK.toMillis()) {
                cancel(lockPath, e.name());
                return Optional.of(new Confirmed(written.get(), t, t + ttl));
            }
            e = written.get(); // a slow write: count again from now
        }
    }

    /** Confirms every pending lease now (before this replica's session closes), then stops. */
    @Override
    public void close() {
        List<Pending> now = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : now) {
            p.cancelTimer().run();
            confirmIfUnconfirmed(p.lockPath(), p.name());
        }
    }

    /**
     * Reads the entry first: a lease released or renewed (through any replica) needs nothing, and
     * a write on an entry that went would fail yet cost a durable log entry on every ZooKeeper
     * server.
     */
    private void confirmIfUnconfirmed(String lockPath, EntryName name) {
        try {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                Optional<QueueEntry> read = queue.read(lockPath, name, null);
                if (read.isEmpty() || read.get().data().standsAlone()) {
                    return;
                }
                if (confirmNow(lockPath, read.get()).isPresent()) {
                    return;
                }
            }
        } catch (LockServiceException e) {
            log.warn("could not confirm a lease on {}: {}", lockPath, e.getMessage());
        }
    }
}
