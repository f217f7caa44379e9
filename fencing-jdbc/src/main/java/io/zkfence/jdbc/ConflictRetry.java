package io.zkfence.jdbc;

import io.zkfence.fencing.internal.Backoff;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Runs a whole fenced unit of work again while the database reports a
 * {@link SerializationConflictException}, with jittered exponential back-off, until a deadline.
 * Immediate retries can livelock: racing transactions that collided once collide again in lock
 * step (seen as thousands of deadlocks in a row on MariaDB at REPEATABLE READ).
 *
 * <p>The delay before retry {@code n} (1-based) is uniform in {@code [cap/2, cap]} with
 * {@code cap = min(maxDelay, initialDelay * 2^(n-1))}, zkfence's one back-off (lock-core's waiters
 * and fencing-s3's lost races use the same). No retry starts after the deadline; when it is
 * reached, the last conflict is thrown. {@link JdbcStaleTokenException} and every other exception are never retried:
 * a stale token is rejected for good. Instances are immutable and thread-safe.
 *
 * <pre>{@code
 * ConflictRetry retry = ConflictRetry.within(Duration.ofSeconds(10));
 * retry.run(() -> fence.inTransaction(key, token, c -> dao.write(c, order)));
 * }</pre>
 */
public final class ConflictRetry {

    /** Default first back-off bound: 5 ms. */
    public static final Duration DEFAULT_INITIAL_DELAY = Duration.ofMillis(5);
    /** Default largest back-off bound: 1 s. */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1);

    /** Waits the given nanoseconds; may return early. */
    interface Sleeper {
        void sleepNanos(long nanos);
    }

    private final long deadlineNanos;
    private final Duration initialDelay;
    private final Duration maxDelay;
    private final Backoff backoff;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private final Supplier<? extends RandomGenerator> random;

    private ConflictRetry(
            Duration deadline,
            Duration initialDelay,
            Duration maxDelay,
            LongSupplier nanoTime,
            Sleeper sleeper,
            Supplier<? extends RandomGenerator> random) {
        this.deadlineNanos = positive("deadline", deadline).toNanos();
        this.initialDelay = positive("initialDelay", initialDelay);
        this.maxDelay = positive("maxDelay", maxDelay);
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException(
                    "maxDelay (" + maxDelay + ") must not be below initialDelay (" + initialDelay + ")");
        }
        this.backoff = Backoff.exponential(initialDelay, maxDelay, random);
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
        this.random = random;
    }

    /**
     * Retries conflicts for at most {@code deadline}, backing off from
     * {@link #DEFAULT_INITIAL_DELAY} up to {@link #DEFAULT_MAX_DELAY}.
     *
     * @param deadline how long after {@link #run} starts a retry may still begin; positive
     * @return the retry policy
     * @throws IllegalArgumentException if the deadline is null, zero or negative
     */
    public static ConflictRetry within(Duration deadline) {
        return new ConflictRetry(
                deadline,
                DEFAULT_INITIAL_DELAY,
                DEFAULT_MAX_DELAY,
                System::nanoTime,
                ConflictRetry::park,
                ThreadLocalRandom::current);
    }

    /**
     * The same deadline with other back-off bounds.
     *
     * @param initialDelay bound of the first back-off; positive
     * @param maxDelay     largest bound; not below {@code initialDelay}
     * @return a new retry policy
     * @throws IllegalArgumentException naming the setting if a bound is out of range
     */
    public ConflictRetry backingOff(Duration initialDelay, Duration maxDelay) {
        return new ConflictRetry(Duration.ofNanos(deadlineNanos), initialDelay, maxDelay, nanoTime, sleeper, random);
    }

    /** For tests: a fake clock, sleeper and random source. */
    static ConflictRetry forTest(
            Duration deadline,
            Duration initialDelay,
            Duration maxDelay,
            LongSupplier nanoTime,
            Sleeper sleeper,
            Supplier<? extends RandomGenerator> random) {
        return new ConflictRetry(deadline, initialDelay, maxDelay, nanoTime, sleeper, random);
    }

    /**
     * Runs the unit of work, again after each {@link SerializationConflictException} until the
     * deadline. The unit of work must be a whole transaction (e.g. {@link JdbcFence#inTransaction}).
     *
     * @param unitOfWork the whole unit of work
     * @param <T>        its result type
     * @return its result
     * @throws SerializationConflictException the last conflict, when the deadline is reached or
     *                                        the thread is interrupted while backing off (the
     *                                        interrupt flag is then set again)
     */
    public <T> T run(Supplier<T> unitOfWork) {
        Objects.requireNonNull(unitOfWork, "unitOfWork");
        long start = nanoTime.getAsLong();
        for (int retry = 1; ; retry++) {
            try {
                return unitOfWork.get();
            } catch (SerializationConflictException conflict) {
                OptionalLong delay = backoff.delayNanosWithin(retry, deadlineNanos - (nanoTime.getAsLong() - start));
                if (delay.isEmpty()) {
                    throw conflict;
                }
                sleeper.sleepNanos(delay.getAsLong());
                if (Thread.currentThread().isInterrupted()) {
                    throw conflict;
                }
            }
        }
    }

    private static void park(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && !Thread.currentThread().isInterrupted(); left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static Duration positive(String knob, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(knob + " must be a positive duration, got " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "ConflictRetry[deadline=" + Duration.ofNanos(deadlineNanos) + ", initialDelay=" + initialDelay
                + ", maxDelay=" + maxDelay + "]";
    }
}
