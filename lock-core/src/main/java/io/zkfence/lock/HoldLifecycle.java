package io.zkfence.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link Grant} and a {@link CohortHold} share about a hold's life: its listeners and the
 * hop that tells them on the client's event thread, the stage that completes when it ends, and
 * its max-hold timer. The hold keeps its own state and its own monitor.
 *
 * <p><b>Under the hold's monitor.</b> {@link #tell}, {@link #end} and {@link #scheduleMaxHold}
 * are called under it: the listeners' tasks then reach the event thread in the order the changes
 * happened, and a renew that races the end either schedules its timer before it (which the end
 * cancels) or sees the end and fails.
 *
 * <p><b>Threads.</b> Listeners and {@link #ended}'s continuations run on the client's event thread,
 * never on ZooKeeper's. The internal end future is completed in place by whichever thread ends the
 * hold, but no caller ever sees it: {@link #ended} hands out a stage that depends on it
 * <em>asynchronously</em> through the event thread (so its continuations run there, after the
 * listeners' task), or, once the hold has ended, an already completed stage, whose continuations
 * run on the thread that attaches them. No check of who is waiting decides it, so no attach can
 * race it, and an end nobody waits on costs no thread hand-off.
 */
final class HoldLifecycle {

    private static final Logger log = LoggerFactory.getLogger(HoldLifecycle.class);

    private record Registration(Lease lease, LeaseListener listener) {}

    private final LockRuntime rt;
    private final String lockName;
    private final Duration maxHold;
    private final CopyOnWriteArrayList<Registration> listeners = new CopyOnWriteArrayList<>();
    /** Completed in place by the end; only {@link #ended}'s asynchronous dependents see it. */
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();

    // Written under the hold's monitor, read without it.
    private volatile Instant deadline;
    private volatile ScheduledFuture<?> maxHoldTimer;

    HoldLifecycle(LockRuntime rt, String lockName, Duration maxHold) {
        this.rt = rt;
        this.lockName = lockName;
        this.maxHold = maxHold;
    }

    void addListener(Lease lease, LeaseListener listener) {
        listeners.add(new Registration(lease, listener));
    }

    void removeListener(LeaseListener listener) {
        listeners.removeIf(r -> r.listener == listener);
    }

    /** The listeners registered now. */
    List<LeaseListener> listeners() {
        return listeners.stream().map(Registration::listener).toList();
    }

    /** Under the hold's monitor: tells the listeners registered now of {@code from -> to}, on the event thread. */
    void tell(LeaseState from, LeaseState to) {
        if (listeners.isEmpty()) {
            return;
        }
        List<Registration> snapshot = List.copyOf(listeners);
        execute(() -> {
            for (Registration r : snapshot) {
                try {
                    r.listener.stateChanged(r.lease, from, to);
                } catch (RuntimeException e) {
                    log.error("lease listener failed on lock '{}' ({} -> {})", lockName, from, to, e);
                }
            }
        });
    }

    /**
     * The final state, as a stage: completed on the event thread when the hold ends, or already
     * completed if it has ({@code endedWith}, the hold's final state, or null while it lives).
     */
    CompletionStage<LeaseState> ended(LeaseState endedWith) {
        return endedWith != null && endedWith.isFinal()
                ? CompletableFuture.completedStage(endedWith)
                : ended.thenApplyAsync(end -> end, this::execute).minimalCompletionStage();
    }

    /**
     * Under the hold's monitor, after {@link #tell}ing the listeners: the hold ended with {@code to}.
     * Stops the max-hold timer; {@link #ended}'s stages hop to the event thread, queued after the
     * listeners' task.
     */
    void end(LeaseState to) {
        ScheduledFuture<?> timer = maxHoldTimer;
        if (timer != null) {
            timer.cancel(false);
        }
        ended.complete(to);
    }

    /** The max-hold, or null. */
    Duration maxHold() {
        return maxHold;
    }

    /** The max-hold deadline, or null. */
    Instant deadline() {
        return deadline;
    }

    /**
     * The check {@code renew()} makes first.
     *
     * @throws IllegalStateException if the hold has no max-hold
     */
    void checkRenewable(long token) {
        if (maxHold == null) {
            throw new IllegalStateException("lease on lock '" + lockName + "' (token " + token
                    + ") has no max-hold to renew; acquire with FencedLock.withMaxHold(...)");
        }
    }

    /**
     * Under the hold's monitor, once the hold is known to be live: (re)starts the max-hold clock,
     * which runs {@code expired} when it passes.
     *
     * @throws RejectedExecutionException if the client's timer is shut down (client closing)
     */
    void scheduleMaxHold(Runnable expired) {
        ScheduledFuture<?> previous = maxHoldTimer;
        if (previous != null) {
            previous.cancel(false);
        }
        deadline = rt.clock.instant().plus(maxHold);
        maxHoldTimer = rt.scheduler.schedule(expired, maxHold.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** What ran out when the max-hold passed, for the end reason. */
    String maxHoldPassed() {
        return "max-hold of " + maxHold.toMillis() + " ms passed without renew or release";
    }

    /** Runs on the event thread; directly if the client is closing and the thread is gone. */
    private void execute(Runnable task) {
        try {
            rt.events.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }
}
