package io.zkfence.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread's turn under a queue node its {@link Cohort} holds: the token, the session and the
 * ZooKeeper-side state are the node's ({@link Grant}); the turn's own end (released, or its own
 * max-hold passed) is its own. SUSPECT and LOST of the node reach every turn standing on it.
 *
 * <p>State is written under this object's monitor and read without it, as in {@link Grant}; what
 * a turn does the same way as a grant (re-entrant holds, renew, the max-hold clock) is
 * {@link Hold}'s.
 */
final class CohortHold extends Hold {

    private static final Logger log = LoggerFactory.getLogger(CohortHold.class);

    final Thread owner;
    private final Cohort cohort;
    private final Grant node;
    private final LockRuntime rt;

    // Written under the monitor.
    private volatile LeaseState ownEnd;
    private volatile String ownEndReason;

    CohortHold(Cohort cohort, Grant node, Thread owner, LockRuntime rt, Duration maxHold) {
        super(rt, node.lockName(), maxHold);
        this.cohort = cohort;
        this.node = node;
        this.owner = owner;
        this.rt = rt;
        // The node's end is this turn's end too (LOST; RELEASED only when the client closes).
        node.ended().thenAccept(s -> end(s, node.endReason()));
    }

    Grant node() {
        return node;
    }

    @Override
    String lockName() {
        return node.lockName();
    }

    @Override
    long token() {
        return node.token();
    }

    @Override
    int sequence() {
        return node.sequence();
    }

    @Override
    String nodePath() {
        return node.nodePath();
    }

    @Override
    Duration ttl() {
        return node.ttl();
    }

    @Override
    LeaseState state() {
        LeaseState own = ownEnd;
        return own != null ? own : node.state();
    }

    @Override
    String endReason() {
        String own = ownEndReason;
        return own != null ? own : node.endReason();
    }

    @Override
    CompletionStage<LeaseState> ended() {
        return life.ended(ownEnd);
    }

    @Override
    void addListener(Lease lease, LeaseListener listener) {
        super.addListener(lease, listener);
        node.addListener(lease, listener); // SUSPECT / HELD / LOST of the node
    }

    @Override
    void removeListener(LeaseListener listener) {
        super.removeListener(listener);
        node.removeListener(listener);
    }

    @Override
    void releaseOne() {
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
    @Override
    void maxHoldPassed() {
        String reason = life.maxHoldPassed();
        if (end(LeaseState.LOST, reason)) {
            rt.stats.leasesLost.increment();
            log.warn("lease on lock '{}' (token {}) lost: {}", lockName(), token(), reason);
            cohort.turnEnded(this, true);
        }
    }

    @Override
    public String toString() {
        return "CohortHold{lock=" + lockName() + ", token=" + token() + ", owner=" + owner.getName() + ", state="
                + state() + "}";
    }
}
