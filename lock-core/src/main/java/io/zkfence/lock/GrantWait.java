package io.zkfence.lock;

import io.zkfence.lock.internal.CuratorClosedException;
import io.zkfence.lock.internal.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * How a caller waits for what it asked a lock for: a plain acquire for its {@link Grant}
 * ({@link LockClient}), a thread in cohort mode for its turn ({@link Cohort}). What each way the
 * wait can end means is decided here once:
 *
 * <ul>
 * <li><b>Timed:</b> the clock starts once the first attempt has been decided (our node created
 *     and the queue read after it), so a free lock is granted at any timeout, even zero, as
 *     Curator's mutex and {@code Lock.tryLock(0, unit)} do; that first attempt is itself bounded
 *     by the larger of the timeout and {@code operationTimeout}.</li>
 * <li><b>Timeout:</b> the request is given up, but what was granted just before counts: the
 *     caller has it.</li>
 * <li><b>Interrupt:</b> the request is given up and whatever was granted meanwhile released (do
 *     not keep a lock nobody holds); the interrupt flag is restored.</li>
 * <li><b>Failure:</b> the request is given up and the failure rethrown on the caller's thread, a
 *     {@link LockException} naming the lock with the original (from another thread) as cause.</li>
 * <li><b>Anything thrown on the caller's thread:</b> given up, whatever was granted released, and
 *     rethrown: the caller gets no lease, so no lock may stay behind.</li>
 * </ul>
 */
final class GrantWait {

    /** What a caller waits for, and how to give it up. */
    interface Request<T> {

        /** Completes with what was granted (null: a try found the lock taken), or fails. */
        CompletableFuture<T> granted();

        /** Completes once the first attempt has been decided; null when there is none to wait for. */
        CompletableFuture<Void> firstAttempt();

        /** Gives the request up: returns what was granted before it could be (the caller's now), else null. */
        T giveUp();

        /** Ends what was granted to a caller that will not take it. */
        void release(T won);
    }

    private GrantWait() {}

    /**
     * Waits for {@code request}: what it granted, or null when a try found the lock taken.
     *
     * @param timeoutNanos negative: no timeout
     * @param onTimeout    the exception a timeout throws
     * @param observed     whether a timeout is reported to the client's observers (an acquire's
     *                     is; a try's bound on reaching ZooKeeper is not a wait for the lock)
     */
    static <T> T await(
            LockRuntime rt,
            String lockName,
            Request<T> request,
            long timeoutNanos,
            Supplier<LockException> onTimeout,
            boolean observed) {
        long began = System.nanoTime();
        try {
            if (timeoutNanos < 0) {
                return request.granted().get();
            }
            CompletableFuture<Void> firstAttempt = request.firstAttempt();
            if (firstAttempt != null) {
                firstAttempt.get(
                        Math.max(timeoutNanos, rt.config.operationTimeout().toNanos()), TimeUnit.NANOSECONDS);
            }
            long left = Math.max(0, timeoutNanos - (System.nanoTime() - began));
            return request.granted().get(left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            T won = request.giveUp();
            if (won != null) {
                return won; // granted just as the wait ran out: the caller has it
            }
            if (observed) {
                rt.observers.timedOut(lockName, System.nanoTime() - began);
            }
            throw onTimeout.get();
        } catch (InterruptedException e) {
            T won = request.giveUp();
            if (won != null) {
                // Interrupted is the answer even if the grant raced in; do not keep a lock nobody holds.
                request.release(won);
            }
            Thread.currentThread().interrupt();
            throw new AcquireInterruptedException(lockName, e);
        } catch (ExecutionException e) {
            request.giveUp();
            throw failure(lockName, e);
        } catch (RuntimeException | Error e) {
            T won = request.giveUp();
            if (won != null) {
                request.release(won);
            }
            throw e;
        }
    }

    /** A failure that completed a future on another thread, as the caller's exception. */
    static LockException failure(String lockName, ExecutionException e) {
        Throwable cause = Failures.unwrap(e);
        if (cause instanceof LockClientClosedException gone) {
            return new LockClientClosedException(lockName, gone.getMessage(), gone);
        }
        if (cause instanceof CuratorClosedException curatorClosed) {
            return new LockClientClosedException(
                    lockName, curatorClosed.getMessage() + " (lock '" + lockName + "')", curatorClosed);
        }
        if (cause instanceof LockException le) {
            // Re-thrown on the caller's thread, with the original (from ZooKeeper's thread) as cause.
            return new CoordinationException(lockName, le.getMessage(), le);
        }
        return new CoordinationException(
                lockName, "ZooKeeper operation on lock '" + lockName + "' failed: " + cause, cause);
    }
}
