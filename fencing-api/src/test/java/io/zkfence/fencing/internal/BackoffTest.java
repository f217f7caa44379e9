package io.zkfence.fencing.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = Backoff.exponential(Duration.ofMillis(4), Duration.ofMillis(100), seeded(42));

    @Test
    void eachPauseLiesInTheUpperHalfOfAStepThatDoublesUpToMax() {
        long[] steps = {4, 8, 16, 32, 64, 100, 100};
        for (int i = 0; i < 1000; i++) {
            for (int retry = 1; retry <= steps.length; retry++) {
                long step = steps[retry - 1] * 1_000_000;
                assertThat(backoff.delayNanos(retry)).isBetween(step / 2, step);
            }
        }
    }

    @Test
    void pausesAreJitteredSoRetriesDoNotMoveInLockStep() {
        assertThat(IntStream.range(0, 50).mapToLong(i -> backoff.delayNanos(3)).distinct())
                .hasSizeGreaterThan(10);
    }

    @Test
    void separateProcessesDrawDifferentJitter() throws Exception {
        // Two processes retrying against the same key must not pause in lock step. A generator
        // captured on one thread and used on another draws from the using thread's unseeded state,
        // a function of its thread id alone, so two processes would replay the same "jitter".
        assertThat(JitterProbe.runInNewJvm()).isNotEqualTo(JitterProbe.runInNewJvm());
    }

    @Test
    void aZeroFirstStepMeansNoPause() {
        assertThat(Backoff.exponential(Duration.ZERO, Duration.ofMillis(100)).delayNanos(5))
                .isZero();
    }

    @Test
    void aHugeMaxOrRetryCountDoesNotOverflow() {
        Backoff huge = Backoff.exponential(Duration.ofSeconds(1), Duration.ofDays(365L * 1000));
        for (int retry = 1; retry <= 200; retry++) {
            assertThat(huge.delayNanos(retry)).isPositive();
        }
        Backoff forever = Backoff.exponential(Duration.ofNanos(1), Duration.ofSeconds(Long.MAX_VALUE));
        assertThat(forever.delayNanos(Integer.MAX_VALUE)).isPositive();
    }

    @Test
    void noRetryIsOfferedThatWouldStartAfterTheDeadline() {
        Backoff fixed = Backoff.exponential(Duration.ofNanos(100), Duration.ofNanos(100), () -> new FixedRandom(0));
        // Retry 1 pauses 50 to 100 ns; with the fixed draw, exactly 50.
        assertThat(fixed.delayNanosWithin(1, 51)).hasValue(50);
        assertThat(fixed.delayNanosWithin(1, 50)).isEmpty();
        assertThat(fixed.delayNanosWithin(1, 0)).isEmpty();
        assertThat(fixed.delayNanosWithin(1, -5)).isEmpty();
    }

    @Test
    void badBoundsAreRefusedNamingThem() {
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> Backoff.exponential(Duration.ofMillis(-1), Duration.ofSeconds(1))))
                .hasMessageContaining("first step");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1))))
                .hasMessageContaining("max");
        assertThat(assertThrows(IllegalArgumentException.class, () -> backoff.delayNanos(0)))
                .hasMessageContaining("from 1");
    }

    /** One seeded generator for every draw: repeatable bounds checks. */
    private static Supplier<RandomGenerator> seeded(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return () -> random;
    }

    /** Draws {@code value} (reduced into the bound) every time. */
    private record FixedRandom(long value) implements RandomGenerator {
        @Override
        public long nextLong() {
            return value;
        }

        @Override
        public long nextLong(long bound) {
            return Math.floorMod(value, bound);
        }
    }
}
