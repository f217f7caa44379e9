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
 * One thread's turn under a queue node its {@link Cohort} holds: the token, the session and the
 * ZooKeeper-side state are the node's ({@link Grant}); the turn's own end (released, or its own
 * max-hold passed) is its own. SUSPECT and LOST of the node reach every turn standing on it.
 *
 * <p>State is written under this object's monitor and read without it, as in {@link Grant}.
 */
final class CohortHold implements Hold {

    private static final Logger log = LoggerFactory.getLogger(CohortHold.class);

    final Thread owner;
    private final Cohort cohort;
    private final Grant node;
    private final LockRuntime rt;
    private final Duration maxHold;
    private final HoldCount holds = new HoldCount();
    private final CopyOnWriteArrayList<Registration> listeners = new CopyOnWriteArrayList<>();
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();

    // Written under the monitor.
    private volatile LeaseState ownEnd;
    private volatile String ownEndReason;
    private volatile Instant deadline;
    private volatile ScheduledFuture<?> maxHoldTimer;

    private record Registration(Lease lease, LeaseListener listener) {}

    CohortHold(Cohort cohort, Grant node, Thread owner, LockRuntime rt, Duration maxHold) {
        this.cohort = cohort;
        this.node = node;
        this.owner = owner;
        this.rt = rt;
        this.maxHold = maxHold;
        // The node's end is this turn's end too (LOST; RELEASED only when the client closes).
        node.ended().thenAccept(s -> end(s, node.endReason()));
    }

    /** Starts the turn's max-hold clock, if any. */
    void activate() {
        if (maxHold != null) {
            scheduleMaxHold();
        }
    }

    Grant node() {
        return node;
    }

    boolean holdAgain() {
        return !state().isFinal() && holds.tryAdd();
    }

    @Override
    public String lockName() {
        return node.lockName();
    }

    @Override
    public long token() {
        return node.token();
    }

    @Override
    public int sequence() {
        return node.sequence();
    }

    @Override
    public String nodePath() {
        return node.nodePath();
    }

    @Override
    public Duration ttl() {
        return node.ttl();
    }

    @Override
    public LeaseState state() {
        LeaseState own = ownEnd;
        return own != null ? own : node.state();
    }

    @Override
    public String endReason() {
        String own = ownEndReason;
        return own != null ? own : node.endReason();
    }

    @Override
    public void checkNotFinal() {
        LeaseState s = state();
        if (s.isFinal()) {
            throw new LeaseLostException(lockName(), token(), s, endReason());
        }
    }

    @Override
    public CompletionStage<LeaseState> ended() {
        LeaseState s = ownEnd;
        // As Grant.ended(): callers only get a stage that hops to the event thread.
        return s != null
                ? CompletableFuture.completedStage(s)
                : ended.thenApplyAsync(end -> end, this::execute).minimalCompletionStage();
    }

    @Override
    public void addListener(Lease lease, LeaseListener listener) {
        listeners.add(new Registration(lease, listener));
        node.addListener(lease, listener); // SUSPECT / HELD / LOST of the node
    }

    @Override
    public void removeListener(LeaseListener listener) {
        listeners.removeIf(r -> r.listener == listener);
        node.removeListener(listener);
    }

    @Override
    public Duration maxHold() {
        return maxHold;
    }

    @Override
    public Instant deadline() {
        return deadline;
    }

    @Override
    public void renew() {
        if (maxHold == null) {
            throw new IllegalStateException("lease on lock '" + lockName() + "' (token " + token()
                    + ") has no max-hold to renew; acquire with FencedLock.withMaxHold(...)");
        }
        scheduleMaxHold();
    }

    @Override
    public void releaseOne() {
        if (holds.drop()) {
            if (end(LeaseState.RELEASED, "released by the holder")) {
                rt.stats.releases.increment();
            }
            cohort.turnEnded(this, false);
        }
    }

    /** Client close or an interrupted acquire that raced its grant: ends the turn whatever the holds. */
    void releaseAll() {
        holds.clear();
        end(LeaseState.RELEASED, "released by the holder");
        cohort.turnEnded(this, false);
    }

    /**
     * Ends this turn with {@code to}; false if it had ended. Listeners hear it on the event thread,
     * and so do {@link #ended()}'s continuations (their hop is queued after the listeners' task).
     */
    private boolean end(LeaseState state, String why) {
        List<Registration> snapshot;
        LeaseState from;
        LeaseState to = state;
        String reason = why;
        synchronized (this) {
            if (ownEnd != null) {
                return false;
            }
            if (to == LeaseState.RELEASED && node.state() == LeaseState.LOST) {
                // Released after its node was lost: lost it stays, as a plain lease does.
                to = LeaseState.LOST;
                reason = node.endReason();
            }
            from = node.state().isFinal() ? LeaseState.HELD : node.state();
            ownEnd = to;
            ownEndReason = reason;
            ScheduledFuture<?> timer = maxHoldTimer;
            if (timer != null) {
                timer.cancel(false);
            }
            snapshot = List.copyOf(listeners);
            listeners.forEach(r -> node.removeListener(r.listener));
            // The node's own end already told the node's listeners; tell ours of a turn's end only.
            if (!node.state().isFinal()) {
                LeaseState end = to;
                execute(() -> snapshot.forEach(r -> notify(r, from, end)));
            }
            ended.complete(to);
        }
        return true;
    }

    private void notify(Registration r, LeaseState from, LeaseState to) {
        try {
            r.listener.stateChanged(r.lease, from, to);
        } catch (RuntimeException e) {
            log.error("lease listener failed on lock '{}' ({} -> {})", lockName(), from, to, e);
        }
    }

    /** The turn's own max-hold passed: it is LOST, and so is the node (see {@link Cohort}). */
    private void maxHoldPassed() {
        String reason = "max-hold of " + maxHold.toMillis() + " ms passed without renew or release";
        if (end(LeaseState.LOST, reason)) {
            rt.stats.leasesLost.increment();
            log.warn("lease on lock '{}' (token {}) lost: {}", lockName(), token(), reason);
            cohort.turnEnded(this, true);
        }
    }

    private synchronized void scheduleMaxHold() {
        checkNotFinal();
        ScheduledFuture<?> previous = maxHoldTimer;
        if (previous != null) {
            previous.cancel(false);
        }
        deadline = rt.clock.instant().plus(maxHold);
        maxHoldTimer = rt.scheduler.schedule(this::maxHoldPassed, maxHold.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void execute(Runnable task) {
        try {
            rt.events.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    @Override
    public String toString() {
        return "CohortHold{lock=" + lockName() + ", token=" + token() + ", owner=" + owner.getName() + ", state="
                + state() + "}";
    }
}
