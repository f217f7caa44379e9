package io.zkfence.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * What a {@link Lease} handle stands on: a {@link Grant} (one queue node, one holder thread and
 * its re-entrant holds) or, in cohort mode, a {@link CohortHold} (one thread's turn under a queue
 * node its cohort holds). A lease reads everything through here, so both behave the same to the
 * caller.
 *
 * <p>What every hold does the same way is written once, here: its re-entrant holds
 * ({@link HoldCount}), the check that it has not ended, and its max-hold clock with
 * {@link #renew()} (the timer, listeners and ended stage are {@link HoldLifecycle}'s). Each kind
 * keeps its own state, its own end, and what the passing of its max-hold does
 * ({@link #maxHoldPassed()}).
 *
 * <p><b>One monitor.</b> The max-hold timer is (re)started under the hold's own monitor, the one
 * each kind writes its end under: a renew that races the end either schedules its timer before
 * the end (which cancels it) or sees the end and fails; it never leaves a timer behind.
 */
abstract class Hold {

    /** The re-entrant holds; a hold starts with one. */
    final HoldCount holds = new HoldCount();
    /** Listeners, the ended stage and the max-hold timer. */
    final HoldLifecycle life;

    Hold(LockRuntime rt, String lockName, Duration maxHold) {
        this.life = new HoldLifecycle(rt, lockName, maxHold);
    }

    abstract String lockName();

    /** The fencing token: the creation zxid of the queue node the hold stands on. */
    abstract long token();

    abstract int sequence();

    abstract String nodePath();

    abstract Duration ttl();

    abstract LeaseState state();

    /** Why the hold ended, once it did; else null. */
    abstract String endReason();

    /** The final state; completed on the client's event thread, or already completed once ended. */
    abstract CompletionStage<LeaseState> ended();

    /** One handle's release; the last one ends the hold (and deletes or hands on the node). */
    abstract void releaseOne();

    /**
     * The max-hold passed without a renew or release (on the client's timer): the hold ends LOST.
     * A hold that ended meanwhile ignores it.
     */
    abstract void maxHoldPassed();

    void addListener(Lease lease, LeaseListener listener) {
        life.addListener(lease, listener);
    }

    void removeListener(LeaseListener listener) {
        life.removeListener(listener);
    }

    /** Adds a re-entrant hold; false if the hold already ended (the caller must acquire anew). */
    final boolean holdAgain() {
        return !state().isFinal() && holds.tryAdd();
    }

    /** @throws LeaseLostException if the hold has ended */
    final void checkNotFinal() {
        LeaseState s = state();
        if (s.isFinal()) {
            throw new LeaseLostException(lockName(), token(), s, endReason());
        }
    }

    /** The max-hold, or null. */
    final Duration maxHold() {
        return life.maxHold();
    }

    /** The max-hold deadline, or null. */
    final Instant deadline() {
        return life.deadline();
    }

    /**
     * Starts the max-hold clock, if any. Called once, right after the hold is made, before its
     * caller sees it.
     *
     * @throws RejectedExecutionException if the client's timer is shut down (client closing)
     */
    final void activate() {
        if (life.maxHold() != null) {
            scheduleMaxHold();
        }
    }

    /**
     * Pushes the max-hold deadline.
     *
     * @throws IllegalStateException if there is no max-hold
     * @throws LeaseLostException    if the hold has ended
     */
    final void renew() {
        life.checkRenewable(token());
        scheduleMaxHold();
    }

    /**
     * (Re)starts the max-hold timer, under the monitor each kind ends the hold under.
     *
     * @throws LeaseLostException if the hold has ended
     */
    private synchronized void scheduleMaxHold() {
        checkNotFinal();
        life.scheduleMaxHold(this::maxHoldPassed);
    }
}
