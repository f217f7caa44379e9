package io.zkfence.shedlock;

import io.zkfence.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;

/**
 * The fencing token of the ShedLock run on the calling thread, so a scheduled job can fence its
 * writes:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @SchedulerLock(name = "nightly-settlement", lockAtMostFor = "PT30M")
 * void settle() {
 *     long token = ZkfenceShedLock.currentToken();
 *     jdbcFence.inTransaction("settlement", token, tx -> settlementDao.write(tx, ...));
 * }
 * }</pre>
 *
 * <p>ShedLock locks and unlocks on the thread that runs the task, so the run is bound to that
 * thread from {@code lock} to {@code unlock}. A task that hands work to other threads passes the
 * token along itself. Nested runs (a locked task calling another locked task) see the innermost
 * run. The token follows lock-core's contract (see {@link Lease#token()}): every later run of the
 * same job, on any replica, has a higher one.
 */
public final class ZkfenceShedLock {

    private static final ThreadLocal<Deque<ShedLockRun>> RUNS = ThreadLocal.withInitial(ArrayDeque::new);

    private ZkfenceShedLock() {}

    /**
     * The token of the run on this thread.
     *
     * @return the token
     * @throws IllegalStateException if no zkfence ShedLock run is active on this thread
     */
    public static long currentToken() {
        return currentLease()
                .orElseThrow(() -> new IllegalStateException(
                        "no zkfence ShedLock run on this thread: call it from a task that ZkfenceLockProvider locked"))
                .token();
    }

    /**
     * The lease of the run on this thread, for {@link Lease#checkValid()} right before a critical
     * write: it throws once the session is lost, or once the provider released the lock because
     * {@code lockAtMostFor} passed (the lease then reads RELEASED).
     *
     * @return the lease, or empty outside a run
     */
    public static Optional<Lease> currentLease() {
        ShedLockRun run = innermost();
        return run == null ? Optional.empty() : Optional.of(run.lease());
    }

    static void started(ShedLockRun run) {
        RUNS.get().push(run);
    }

    /** Drops ended runs from this thread's stack (a run unlocked on another thread is dropped here later). */
    private static ShedLockRun innermost() {
        Deque<ShedLockRun> runs = RUNS.get();
        for (Iterator<ShedLockRun> it = runs.iterator(); it.hasNext(); ) {
            ShedLockRun run = it.next();
            if (run.isUnlocked()) {
                it.remove();
            } else {
                return run;
            }
        }
        RUNS.remove();
        return null;
    }
}
