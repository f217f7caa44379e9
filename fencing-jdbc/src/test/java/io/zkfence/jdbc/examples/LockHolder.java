package io.zkfence.jdbc.examples;

import io.zkfence.jdbc.ConflictRetry;
import io.zkfence.jdbc.JdbcFence;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** Claiming after acquiring, and retrying conflicts: quoted in docs/fencing-jdbc.md. */
public final class LockHolder {

    private LockHolder() {}

    // snippet:claim
    /** Right after the lock is granted: cut off any paused former holder before writing. */
    static long acquired(JdbcFence fence, String key, LongSupplier acquireLock) {
        long token = acquireLock.getAsLong(); // e.g. lock-core's grant token
        fence.claim(key, token);
        return token;
    }
    // end:claim

    // snippet:retry
    /** Retries conflicts with jittered exponential back-off, for at most 10 seconds. */
    private static final ConflictRetry RETRY = ConflictRetry.within(Duration.ofSeconds(10));

    /** Runs a whole fenced unit of work again while the database reports a serialization conflict. */
    static <T> T withRetries(Supplier<T> unitOfWork) {
        return RETRY.run(unitOfWork); // StaleTokenException is never retried: the lock is lost
    }
    // end:retry
}
