package io.zkfence.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When each lease granted through this replica was answered, for the hold-time meter (grant to
 * release, for releases through this replica). A lease is remembered while it may last: until the
 * end answered for it (a renewal through this replica moves that end), so a lease that expires,
 * is force-released or is released through another replica is forgotten when it ends, never kept
 * for ever. A lease released later than its remembered end (renewed through another replica) is
 * not measured.
 */
final class HoldTimes {

    /** How often (in grants) the ended leases are swept out. */
    private static final int SWEEP_EVERY = 1_024;

    private record Held(long grantedNanos, long endsAtMillis) {}

    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final AtomicLong puts = new AtomicLong();

    /** A lease answered now (nanos), valid until {@code endsAtMillis} (this replica's clock). */
    void granted(String lockToken, long nowNanos, long endsAtMillis, long nowMillis) {
        held.put(lockToken, new Held(nowNanos, endsAtMillis));
        if (puts.incrementAndGet() % SWEEP_EVERY == 0) {
            held.values().removeIf(h -> h.endsAtMillis() < nowMillis);
        }
    }

    /** A renewal through this replica answered a new end. */
    void renewed(String lockToken, long endsAtMillis) {
        held.computeIfPresent(lockToken, (t, h) -> new Held(h.grantedNanos(), endsAtMillis));
    }

    /**
     * The lease was released through this replica: how long it was held (nanos), or -1 if it was
     * not granted here or had ended before.
     */
    long released(String lockToken, long nowNanos, long nowMillis) {
        Held h = held.remove(lockToken);
        return h == null || h.endsAtMillis() < nowMillis ? -1 : nowNanos - h.grantedNanos();
    }

    /** Leases remembered now (for tests). */
    int size() {
        return held.size();
    }
}
