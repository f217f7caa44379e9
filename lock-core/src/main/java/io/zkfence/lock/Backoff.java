package io.zkfence.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter, for retrying an operation that failed for a transient reason
 * (a connection loss, a serialization conflict). Each delay is drawn at random from the upper
 * half of the current step ({@code [step/2, step]}, "equal jitter"), and the step doubles up to
 * {@code max}: retries that failed together (waiters after a leader fail-over) spread out instead
 * of retrying in lock step, and no delay falls below half the step.
 *
 * <p>One instance follows one sequence of retries; not thread-safe. {@link #reset()} after a
 * success starts the next sequence from {@code first}.
 */
public final class Backoff {

    private final long firstNanos;
    private final long maxNanos;
    private long stepNanos;

    private Backoff(long firstNanos, long maxNanos) {
        this.firstNanos = firstNanos;
        this.maxNanos = maxNanos;
        this.stepNanos = firstNanos;
    }

    /**
     * A back-off whose first step is {@code first}, doubling up to {@code max}.
     *
     * @throws IllegalArgumentException if {@code first} is not positive or {@code max} is below it
     */
    public static Backoff exponential(Duration first, Duration max) {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(max, "max");
        if (first.isNegative() || first.isZero()) {
            throw new IllegalArgumentException("back-off first step must be positive, was " + first);
        }
        if (max.compareTo(first) < 0) {
            throw new IllegalArgumentException(
                    "back-off max (" + max + ") must be at least its first step (" + first + ")");
        }
        return new Backoff(saturatedNanos(first), saturatedNanos(max));
    }

    /** The delay before the next retry; the step after it doubles (up to max). */
    public Duration next() {
        long step = stepNanos;
        stepNanos = step > maxNanos / 2 ? maxNanos : step * 2;
        long half = step / 2;
        return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(step - half + 1));
    }

    /** Starts over from the first step (after a success). */
    public void reset() {
        stepNanos = firstNanos;
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
