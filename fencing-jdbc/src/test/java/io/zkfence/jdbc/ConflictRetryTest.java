package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConflictRetryTest {

    private final AtomicLong now = new AtomicLong();
    private final List<Long> sleeps = new ArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();

    /** A policy on a fake clock whose sleeps advance it, drawing its jitter from a generator seeded {@code seed}. */
    private ConflictRetry retry(Duration deadline, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return ConflictRetry.forTest(
                deadline,
                Duration.ofNanos(10),
                Duration.ofNanos(100),
                now::get,
                nanos -> {
                    sleeps.add(nanos);
                    now.addAndGet(nanos);
                },
                () -> random);
    }

    private static SerializationConflictException conflict() {
        return new SerializationConflictException("conflict", "k", 1, null);
    }

    @Test
    void retriesConflictsWithBackOffsThatDoubleUpToTheMaximum() {
        String result = retry(Duration.ofSeconds(1), 1).run(() -> {
            if (calls.incrementAndGet() < 7) {
                throw conflict();
            }
            return "done";
        });

        assertThat(result).isEqualTo("done");
        // Steps 10, 20, 40, 80, 100, 100 ns; each pause lies in the upper half of its step.
        assertThat(sleeps).hasSize(6).allSatisfy(s -> assertThat(s).isBetween(5L, 100L));
        assertThat(calls).hasValue(7);
    }

    @Test
    void backOffsAreJitteredWithinTheUpperHalfOfTheirSteps() {
        Set<Long> firstPauses = new HashSet<>();
        for (long seed = 0; seed < 50; seed++) {
            sleeps.clear();
            calls.set(0);
            retry(Duration.ofSeconds(1), seed).run(() -> {
                if (calls.incrementAndGet() < 6) {
                    throw conflict();
                }
                return null;
            });
            long[] steps = {10, 20, 40, 80, 100};
            for (int i = 0; i < steps.length; i++) {
                assertThat(sleeps.get(i)).isBetween(steps[i] / 2, steps[i]);
            }
            firstPauses.add(sleeps.get(0));
        }
        assertThat(firstPauses).as("not in lock step").hasSizeGreaterThan(2);
    }

    @Test
    void theLastConflictIsThrownOnceTheDeadlineIsReached() {
        List<SerializationConflictException> thrown = new ArrayList<>();
        ConflictRetry policy = retry(Duration.ofNanos(250), 99);

        SerializationConflictException e = assertThrows(
                SerializationConflictException.class,
                () -> policy.run(() -> {
                    calls.incrementAndGet();
                    SerializationConflictException c = conflict();
                    thrown.add(c);
                    throw c;
                }));

        assertSame(thrown.get(thrown.size() - 1), e);
        assertThat(sleeps.stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(250);
        assertThat(calls.get()).isGreaterThan(1);
    }

    @Test
    void staleTokensAndOtherFailuresAreNeverRetried() {
        ConflictRetry policy = retry(Duration.ofSeconds(1), 1);

        assertThrows(
                JdbcStaleTokenException.class,
                () -> policy.run(() -> {
                    calls.incrementAndGet();
                    throw new JdbcStaleTokenException("k", 1, 2, "zkfence_fence");
                }));
        assertThrows(
                JdbcFenceException.class,
                () -> policy.run(() -> {
                    calls.incrementAndGet();
                    throw new JdbcFenceException("broken", "k", 1, null);
                }));

        assertThat(calls).hasValue(2);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void anInterruptWhileBackingOffEndsTheRetriesWithTheConflictAndKeepsTheFlag() {
        ConflictRetry policy = ConflictRetry.forTest(
                Duration.ofSeconds(1),
                Duration.ofNanos(10),
                Duration.ofNanos(100),
                now::get,
                nanos -> Thread.currentThread().interrupt(),
                () -> new SplittableRandom(3));
        try {
            assertThrows(
                    SerializationConflictException.class,
                    () -> policy.run(() -> {
                        calls.incrementAndGet();
                        throw conflict();
                    }));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(calls).hasValue(1);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheSetting() {
        assertThat(assertThrows(IllegalArgumentException.class, () -> ConflictRetry.within(Duration.ZERO))
                        .getMessage())
                .contains("deadline");
        assertThat(assertThrows(IllegalArgumentException.class, () -> ConflictRetry.within(null))
                        .getMessage())
                .contains("deadline");
        ConflictRetry ok = ConflictRetry.within(Duration.ofSeconds(1));
        assertThat(assertThrows(
                                IllegalArgumentException.class,
                                () -> ok.backingOff(Duration.ofMillis(-1), Duration.ofSeconds(1)))
                        .getMessage())
                .contains("initialDelay");
        assertThat(assertThrows(
                                IllegalArgumentException.class,
                                () -> ok.backingOff(Duration.ofMillis(10), Duration.ofMillis(5)))
                        .getMessage())
                .contains("maxDelay");
    }
}
