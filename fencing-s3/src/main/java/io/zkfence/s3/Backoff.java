package io.zkfence.s3;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Jittered exponential pause between retries of a lost race, so that writers holding the same
 * grant do not collide in lock step. The pause before retry {@code n} (1-based) is drawn uniformly
 * from [cap/2, cap] with {@code cap = min(max, base * 2^(n-1))}.
 */
final class Backoff {

    private final long baseNanos;
    private final long maxNanos;
    /** Asked at every draw, on the drawing thread. */
    private final Supplier<? extends RandomGenerator> random;

    Backoff(Duration base, Duration max, Supplier<? extends RandomGenerator> random) {
        this.baseNanos = base.toNanos();
        this.maxNanos = max.toNanos();
        this.random = random;
    }

    /**
     * The backoff of a {@link FencedBucket}: jitter drawn from the pausing thread's own
     * {@link ThreadLocalRandom}, looked up at each draw. A {@code ThreadLocalRandom.current()}
     * captured once and used from other threads would draw from their unseeded state, a function
     * of the thread id alone, so separate processes would pause in lock step.
     */
    static Backoff jittered(Duration base, Duration max) {
        return new Backoff(base, max, ThreadLocalRandom::current);
    }

    long delayNanos(int retry) {
        if (baseNanos == 0 || maxNanos == 0) {
            return 0;
        }
        int shift = Math.min(Math.max(retry - 1, 0), 30);
        long cap = baseNanos > (maxNanos >> shift) ? maxNanos : Math.min(maxNanos, baseNanos << shift);
        long half = cap / 2;
        return half + random.get().nextLong(cap - half + 1);
    }

    /**
     * Pauses before retry {@code retry}.
     *
     * @throws FenceException when interrupted; the interrupt flag is restored first
     */
    void pause(int retry, String bucket, String key) {
        long nanos = delayNanos(retry);
        if (nanos == 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceException(
                    bucket,
                    key,
                    "interrupted while backing off before retry " + retry + " on "
                            + FenceException.location(bucket, key) + "; nothing was written by this attempt",
                    e);
        }
    }
}
