package io.zkfence.fencing.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * zkfence's one back-off: exponential with jitter, optionally bounded by a deadline, for retrying
 * an operation that failed for a transient reason (a ZooKeeper connection loss, a serialization
 * conflict, a lost conditional write). Not API: shared by zkfence's modules, changed in any
 * release.
 *
 * <p>The delay before retry {@code n} (1-based) is drawn uniformly from {@code [cap/2, cap]} with
 * {@code cap = min(max, first * 2^(n-1))} ("equal jitter"): retries that failed together (waiters
 * after a leader fail-over, writers that collided) spread out instead of retrying in lock step,
 * and none comes back sooner than half its step. A {@code first} of zero means no pause at all.
 *
 * <p>Immutable and thread-safe: the caller counts its retries. Jitter is drawn from the drawing
 * thread's own {@link ThreadLocalRandom}, looked up at each draw (one captured on another thread
 * would draw from an unseeded state, a function of the thread id alone, so separate processes
 * would pause in lock step).
 */
public final class Backoff {

    /** Shifts beyond this would overflow a nanosecond count whatever the first step. */
    private static final int MAX_SHIFT = 62;

    private final long firstNanos;
    private final long maxNanos;
    private final Supplier<? extends RandomGenerator> random;

    private Backoff(long firstNanos, long maxNanos, Supplier<? extends RandomGenerator> random) {
        this.firstNanos = firstNanos;
        this.maxNanos = maxNanos;
        this.random = random;
    }

    /**
     * A back-off whose first step is {@code first}, doubling up to {@code max}.
     *
     * @param first the first step; zero for no pause
     * @param max the largest step; not below {@code first}
     * @return the back-off
     * @throws IllegalArgumentException if {@code first} is negative or {@code max} is below it
     */
    public static Backoff exponential(Duration first, Duration max) {
        return exponential(first, max, ThreadLocalRandom::current);
    }

    /**
     * As {@link #exponential(Duration, Duration)}, drawing jitter from {@code random} (asked at
     * every draw, on the drawing thread): for tests that need repeatable draws.
     *
     * @param first the first step; zero for no pause
     * @param max the largest step; not below {@code first}
     * @param random where each draw comes from
     * @return the back-off
     * @throws IllegalArgumentException if {@code first} is negative or {@code max} is below it
     */
    public static Backoff exponential(Duration first, Duration max, Supplier<? extends RandomGenerator> random) {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(random, "random");
        if (first.isNegative()) {
            throw new IllegalArgumentException("back-off first step must not be negative, was " + first);
        }
        if (max.compareTo(first) < 0) {
            throw new IllegalArgumentException(
                    "back-off max (" + max + ") must be at least its first step (" + first + ")");
        }
        return new Backoff(saturatedNanos(first), saturatedNanos(max), random);
    }

    /**
     * The pause before retry {@code retry}.
     *
     * @param retry which retry, from 1
     * @return the pause in nanoseconds, in {@code [cap/2, cap]}
     * @throws IllegalArgumentException if {@code retry} is below 1
     */
    public long delayNanos(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retries count from 1, was " + retry);
        }
        if (firstNanos == 0) {
            return 0;
        }
        int shift = Math.min(retry - 1, MAX_SHIFT);
        long cap = firstNanos > (maxNanos >> shift) ? maxNanos : firstNanos << shift;
        long half = cap / 2;
        return half + random.get().nextLong(cap - half + 1);
    }

    /**
     * The pause before retry {@code retry}, as a duration.
     *
     * @param retry which retry, from 1
     * @return the pause
     */
    public Duration delay(int retry) {
        return Duration.ofNanos(delayNanos(retry));
    }

    /**
     * The pause before retry {@code retry} if that retry still starts before a deadline
     * {@code nanosLeft} away; empty if it would not, and the caller should give up now.
     *
     * @param retry which retry, from 1
     * @param nanosLeft the time to the deadline; zero or less: passed
     * @return the pause in nanoseconds, or empty
     */
    public OptionalLong delayNanosWithin(int retry, long nanosLeft) {
        long delay = delayNanos(retry);
        return delay < nanosLeft ? OptionalLong.of(delay) : OptionalLong.empty();
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        return "Backoff{first=" + Duration.ofNanos(firstNanos) + ", max=" + Duration.ofNanos(maxNanos) + "}";
    }
}
