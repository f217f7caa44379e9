package io.zkfence.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread's turn under a queue node its {@link Cohort} holds: the token, the session and the
 * ZooKeeper-side state are the node's ({@link Grant}); the turn's own end (released, or its own
 * max-hold passed) is its own. SUSPECT and LOST of the node reach every turn standing on it.
 *
 * <p>State is written under this object's monitor and read without it, as in {@link Grant}; the
 * listeners, the ended stage and the turn's max-hold timer are {@link HoldLifecycle}'s, as there.
 */
final class CohortHold implements Hold {

    private static final Logger log = LoggerFactory.getLogger(CohortHold.class);

    final Thread owner;
    private final Cohort cohort;
    private final Grant node;
    private final LockRuntime rt;
    private final HoldCount holds = new HoldCount();
    private final HoldLifecycle life;

    // Written under the monitor.
    private volatile LeaseState ownEnd;
    private volatile String ownEndReason;

    CohortHold(Cohort cohort, Grant node, Thread owner, LockRuntime rt, Duration maxHold) {
        this.cohort = cohort;
        this.node = node;
        this.owner = owner;
        this.rt = rt;
        this.life = new HoldLifecycle(rt, node.lockName(), maxHold);
        // The node's end is this turn's end too (LOST; RELEASED only when the client closes).
        node.ended().thenAccept(s -> end(s, node.endReason()));
    }

    /** Starts the turn's max-hold clock, if any. */
    void activate() {
        if (life.maxHold() != null) {
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
        return life.ended(ownEnd);
    }

    @Override
    public void addListener(Lease lease, LeaseListener listener) {
        life.addListener(lease, listener);
        node.addListener(lease, listener); // SUSPECT / HELD / LOST of the node
    }

    @Override
    public void removeListener(LeaseListener listener) {
        life.removeListener(listener);
        node.removeListener(listener);
    }

    @Override
    public Duration maxHold() {
        return life.maxHold();
    }

    @Override
    public Instant deadline() {
        return life.deadline();
    }

    @Override
    public void renew() {
        life.checkRenewable(token());
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
            life.listeners().forEach(node::removeListener);
            // The node's own end already told the node's listeners; tell ours of a turn's end only.
            if (!node.state().isFinal()) {
                life.tell(from, to);
            }
            life.end(to);
        }
        return true;
    }

    /** The turn's own max-hold passed: it is LOST, and so is the node (see {@link Cohort}). */
    private void maxHoldPassed() {
        String reason = life.maxHoldPassed();
        if (end(LeaseState.LOST, reason)) {
            rt.stats.leasesLost.increment();
            log.warn("lease on lock '{}' (token {}) lost: {}", lockName(), token(), reason);
            cohort.turnEnded(this, true);
        }
    }

    private synchronized void scheduleMaxHold() {
        checkNotFinal();
        life.scheduleMaxHold(this::maxHoldPassed);
    }

    @Override
    public String toString() {
        return "CohortHold{lock=" + lockName() + ", token=" + token() + ", owner=" + owner.getName() + ", state="
                + state() + "}";
    }
}
