package io.zkfence.jdbc.examples;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.SerializationConflictException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/** Claiming after acquiring, and retrying conflicts: quoted in docs/fencing-jdbc.md. */
public final class LockHolder {

    private LockHolder() {
    }

    // snippet:claim
    /** Right after the lock is granted: cut off any paused former holder before writing. */
    static long acquired(JdbcFence fence, String key, LongSupplier acquireLock) {
        long token = acquireLock.getAsLong(); // e.g. lock-core's grant token
        fence.claim(key, token);
        return token;
    }
    // end:claim

    // snippet:retry
    /** Runs a fenced unit of work again while the database reports a serialization conflict. */
    static <T> T withRetries(int attempts, Supplier<T> unitOfWork) {
        for (int attempt = 1; ; attempt++) {
            try {
                return unitOfWork.get();
            } catch (SerializationConflictException e) {
                if (attempt >= attempts) {
                    throw e; // StaleTokenException is never retried: the lock is lost
                }
            }
        }
    }
    // end:retry
}
