package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void eachDelayLiesInTheUpperHalfOfAStepThatDoublesUpToMax() {
        Backoff b = Backoff.exponential(Duration.ofMillis(20), Duration.ofMillis(100));
        long[] steps = {20, 40, 80, 100, 100};
        for (long step : steps) {
            Duration d = b.next();
            assertThat(d).isBetween(Duration.ofMillis(step).dividedBy(2), Duration.ofMillis(step));
        }
    }

    @Test
    void delaysAreJitteredSoRetriesDoNotMoveInLockStep() {
        Set<Duration> firsts = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            firsts.add(Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1))
                    .next());
        }
        assertThat(firsts).hasSizeGreaterThan(10);
    }

    @Test
    void resetStartsAgainFromTheFirstStep() {
        Backoff b = Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(10));
        for (int i = 0; i < 10; i++) {
            b.next();
        }
        b.reset();
        assertThat(b.next()).isLessThanOrEqualTo(Duration.ofMillis(10));
    }

    @Test
    void aHugeMaxDoesNotOverflow() {
        Backoff b = Backoff.exponential(Duration.ofSeconds(1), Duration.ofDays(365 * 1000));
        for (int i = 0; i < 200; i++) {
            assertThat(b.next()).isPositive();
        }
    }

    @Test
    void badBoundsAreRefusedNamingThem() {
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1))))
                .hasMessageContaining("first step");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1))))
                .hasMessageContaining("max");
    }
}
