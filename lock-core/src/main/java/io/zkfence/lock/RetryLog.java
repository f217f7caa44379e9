package io.zkfence.lock;

import io.zkfence.lock.internal.Failures;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the retries of one client with their causes: every one at DEBUG, and at most one WARN per
 * ten seconds, which counts the retries it stood for. A fail-over makes every waiter retry at
 * once; the log shows that it happened and why without a line per waiter per attempt.
 */
final class RetryLog {

    private static final Logger log = LoggerFactory.getLogger(RetryLog.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final AtomicLong nextWarnAt = new AtomicLong(System.nanoTime());
    private final AtomicLong sinceLastWarn = new AtomicLong();

    /** A retry of {@code what} on lock {@code lockName} in {@code delayMs}, because of {@code cause}. */
    void retrying(String lockName, String what, Throwable cause, long delayMs) {
        retrying(lockName, what, Failures.unwrap(cause).toString(), delayMs);
    }

    /** A retry of {@code what} on lock {@code lockName} in {@code delayMs}, for the reason {@code why}. */
    void retrying(String lockName, String what, String why, long delayMs) {
        long count = sinceLastWarn.incrementAndGet();
        long now = System.nanoTime();
        long due = nextWarnAt.get();
        if (now - due >= 0 && nextWarnAt.compareAndSet(due, now + WARN_EVERY_NANOS)) {
            sinceLastWarn.addAndGet(-count);
            log.warn(
                    "retrying {} of lock '{}' in {} ms after {} ({} retr{} since the last such warning)",
                    what,
                    lockName,
                    delayMs,
                    why,
                    count,
                    count == 1 ? "y" : "ies");
        } else if (log.isDebugEnabled()) {
            log.debug("retrying {} of lock '{}' in {} ms after {}", what, lockName, delayMs, why);
        }
    }
}
