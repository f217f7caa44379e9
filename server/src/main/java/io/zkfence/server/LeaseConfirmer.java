package io.zkfence.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Confirms the leases this replica granted from the queue without a write.
 *
 * <p>A waiting acquire whose entry reaches the head of the queue is answered at once, with no
 * write on the hand-off's path; until it is confirmed, that lease lives only while this
 * replica's ZooKeeper session does, so it is answered valid for at most
 * {@link AcquireCall#unconfirmedValidity two thirds of the session timeout}. Halfway through that
 * validity, unless the holder renewed or released first, this writes the lease's own expiry
 * (grant + TTL, versioned, after a read that finds the entry unchanged): from then on it
 * outlives this replica. A replica that stops gracefully confirms every pending lease before it
 * closes its session (which would otherwise end them at once); one that crashes ends them when
 * its session expires, which is after every validity it answered.
 */
final class LeaseConfirmer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseConfirmer.class);

    private final LockQueue queue;
    private final Scheduler scheduler;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    private record Pending(Runnable cancelTimer, Runnable confirm) {}

    LeaseConfirmer(LockQueue queue, Scheduler scheduler) {
        this.queue = queue;
        this.scheduler = scheduler;
    }

    /** Confirms {@code entry} as {@code confirmed} after {@code delay}, unless cancelled first. */
    void schedule(String lockPath, QueueEntry entry, EntryData confirmed, Duration delay) {
        String key = lockPath + "/" + entry.name().node();
        Runnable confirm = () -> {
            if (pending.remove(key) != null) {
                try {
                    // Read first: a lease released through another replica is gone, and a write on
                    // it would fail yet cost a durable log entry on every ZooKeeper server. The
                    // write is versioned still: a renew, a release or a forced release since the
                    // read wins, as it should.
                    if (queue.unchanged(lockPath, entry)) {
                        queue.write(lockPath, entry, confirmed);
                    }
                } catch (LockServiceException e) {
                    log.warn("could not confirm a lease on {}: {}", lockPath, e.getMessage());
                }
            }
        };
        Runnable cancel = scheduler.schedule("zkfence-lease-confirmer", confirm, delay.toMillis());
        pending.put(key, new Pending(cancel, confirm));
    }

    /** The lease was renewed or released through this replica: no confirmation needed. */
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

    /** Confirms every pending lease now (before this replica's session closes), then stops. */
    @Override
    public void close() {
        List<Pending> now = new ArrayList<>(pending.values());
        for (Pending p : now) {
            p.cancelTimer().run();
            p.confirm().run();
        }
    }
}
