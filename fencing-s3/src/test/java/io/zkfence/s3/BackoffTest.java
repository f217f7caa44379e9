package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(4), Duration.ofMillis(100), seeded(42));

    @Test
    void pauseDoublesPerRetryWithinHalfToFullOfTheCap() {
        for (int i = 0; i < 1000; i++) {
            assertThat(backoff.delayNanos(1)).isBetween(2_000_000L, 4_000_000L);
            assertThat(backoff.delayNanos(2)).isBetween(4_000_000L, 8_000_000L);
            assertThat(backoff.delayNanos(3)).isBetween(8_000_000L, 16_000_000L);
        }
    }

    @Test
    void pauseNeverExceedsTheMaximumEvenAfterManyRetries() {
        for (int retry = 1; retry <= 100; retry++) {
            assertThat(backoff.delayNanos(retry)).isBetween(0L, 100_000_000L);
        }
        assertThat(backoff.delayNanos(100)).isGreaterThanOrEqualTo(50_000_000L);
    }

    @Test
    void pausesAreJittered() {
        assertThat(java.util.stream.IntStream.range(0, 50)
                        .mapToLong(i -> backoff.delayNanos(3))
                        .distinct()
                        .count())
                .isGreaterThan(10);
    }

    @Test
    void separateProcessesDrawDifferentJitter() throws Exception {
        // Two processes retrying against the same key must not pause in lock step. A generator
        // captured on one thread and used on another draws from the using thread's unseeded state,
        // a function of its thread id alone, so two processes would replay the same "jitter".
        assertThat(JitterProbe.runInNewJvm()).isNotEqualTo(JitterProbe.runInNewJvm());
    }

    @Test
    void zeroBaseMeansNoPause() {
        assertThat(new Backoff(Duration.ZERO, Duration.ofMillis(100), seeded(1)).delayNanos(5))
                .isZero();
    }

    @Test
    void interruptDuringPauseIsReportedAndTheFlagRestored() {
        Backoff slow = new Backoff(Duration.ofSeconds(10), Duration.ofSeconds(10), seeded(1));
        Thread.currentThread().interrupt();
        try {
            FenceException e = assertThrows(FenceException.class, () -> slow.pause(1, "my-bucket", "orders/1"));

            assertThat(e.getCause()).isInstanceOf(InterruptedException.class);
            assertThat(e.getMessage()).contains("interrupted", "my-bucket", "orders/1");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    /** One seeded generator for every draw: repeatable bounds checks. */
    private static Supplier<RandomGenerator> seeded(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return () -> random;
    }
}
