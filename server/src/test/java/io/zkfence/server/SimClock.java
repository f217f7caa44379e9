package io.zkfence.server;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A replica's wall clock in the simulation: the world's time, an epoch offset, and the replica's
 * skew, which the faults move. Only clocks differ between replicas; the world's time is the truth
 * the invariants judge by.
 */
final class SimClock extends Clock {

    /** Simulated time 0 on the wall clocks (a plausible epoch millisecond). */
    static final long EPOCH_MILLIS = 1_800_000_000_000L;

    private final SimWorld world;
    private long skewMillis;

    SimClock(SimWorld world, long skewMillis) {
        this.world = world;
        this.skewMillis = skewMillis;
    }

    long skewMillis() {
        return skewMillis;
    }

    void skew(long millis) {
        this.skewMillis = millis;
    }

    @Override
    public long millis() {
        return EPOCH_MILLIS + world.nowMillis() + skewMillis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a simulated replica's clock has one zone");
    }
}
