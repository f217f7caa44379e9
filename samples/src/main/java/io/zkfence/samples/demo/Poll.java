package io.zkfence.samples.demo;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/** Waiting for a state outside this process that sends no event (ZooKeeper's queue as others see it). */
final class Poll {

    private static final Duration INTERVAL = Duration.ofMillis(25);

    private Poll() {}

    static <T> T until(Supplier<Optional<T>> probe, Duration patience, String what) {
        Instant deadline = Instant.now().plus(patience);
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (Instant.now().isAfter(deadline)) {
                throw new StoryFailedException("waited " + patience.toSeconds() + " s for " + what);
            }
            pause(INTERVAL);
        }
    }

    /** Lets time pass until {@code instant}: pacing the story, not synchronising with anyone. */
    static void pauseUntil(Instant instant) {
        Duration left;
        while (!(left = Duration.between(Instant.now(), instant)).isNegative() && !left.isZero()) {
            pause(left);
        }
    }

    private static void pause(Duration d) {
        LockSupport.parkNanos(d.toNanos());
        if (Thread.currentThread().isInterrupted()) {
            throw new StoryFailedException("interrupted");
        }
    }
}
