package io.zkfence.recipes.leader;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One term of leadership: what {@link LeadershipListener#elected} receives and
 * {@link LeaderElection#leadership()} returns while this candidate leads.
 *
 * <p>The {@link #term()} is the fencing token of the lease behind the term, so it follows the
 * {@linkplain Lease#token() token contract}: every later term of the same election, whoever wins
 * it, is strictly greater. Pass it to every write the leader
 * makes and let the resource reject lower ones; that is what stops a deposed leader that has not
 * noticed yet (paused, partitioned) from writing over its successor.
 *
 * <pre>{@code
 * void elected(Leadership leadership) {
 *     fence.claim("billing-leader", leadership.term());   // cut off every former leader
 *     scheduler.start(leadership.term());
 * }
 * }</pre>
 *
 * <p>Thread-safe. A term ends once; after that its lease's state is final and a new term (with a
 * new object and a higher term number) is needed to lead again.
 */
public final class Leadership {

    /** Why the election's worker stops serving a term. */
    enum EndCause {
        /** The lease ended by itself: lost, or released by closing the lock client. */
        LEASE_ENDED,
        STEP_DOWN,
        CLOSE
    }

    private final String electionName;
    private final Lease lease;
    private final CompletableFuture<EndCause> endRequest = new CompletableFuture<>();
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();
    /** The last connection state the listeners were told about; null once the term is over. */
    private final AtomicReference<LeaseState> reported = new AtomicReference<>(LeaseState.HELD);

    Leadership(String electionName, Lease lease) {
        this.electionName = electionName;
        this.lease = lease;
    }

    /** The election's name (the name of the lock behind it). */
    public String electionName() {
        return electionName;
    }

    /**
     * The term number: the fencing token of this term's lease. Strictly greater than the term of
     * every earlier leader of this election.
     */
    public long term() {
        return lease.token();
    }

    /**
     * The lease behind the term: its state ({@link LeaseState#HELD} while leading with the session
     * known alive, {@link LeaseState#SUSPECT} while the connection is suspended: do not write,
     * {@link LeaseState#LOST} or {@link LeaseState#RELEASED} once the term is over), and
     * {@link Lease#checkValid()} right before a leader-only write: a local check that narrows the
     * window for a stale write, which the resource's check of {@link #term()} closes. The
     * election releases it; do not release it yourself.
     */
    public Lease lease() {
        return lease;
    }

    /**
     * Completes when the term is over, after the listeners were told and the lease was released,
     * with the lease's final state, the same as {@code lease().state()} then: {@link LeaseState#LOST}
     * when the term was taken away (session expired, node deleted), {@link LeaseState#RELEASED}
     * when it was given up (stepped down, election closed) or when the lock client was closed
     * under the election (which releases the lock, though the listeners hear
     * {@link LeadershipListener#lost}). Already complete if the term has ended.
     */
    public CompletionStage<LeaseState> ended() {
        return ended.minimalCompletionStage();
    }

    /**
     * Gives up this term: the listeners' {@link LeadershipListener#revoked} runs while the term is
     * still valid, then the lease is released and the next candidate in line is elected. The
     * candidate stays in the election and joins the queue again at the back. Asynchronous: the
     * returned stage completes like {@link #ended()}. Harmless on a term that is already over.
     */
    public CompletionStage<LeaseState> stepDown() {
        endRequest.complete(EndCause.STEP_DOWN);
        return ended();
    }

    @Override
    public String toString() {
        return "Leadership{election=" + electionName + ", term=" + term() + ", state=" + lease.state() + "}";
    }

    // ---- used by LeaderElection ----

    void requestEnd(EndCause cause) {
        endRequest.complete(cause);
    }

    EndCause awaitEndRequest() {
        return endRequest.join();
    }

    /**
     * Records a connection state to report; true if the listeners must be told (a real change
     * between HELD and SUSPECT while the term is being served).
     */
    boolean report(LeaseState to) {
        if (to == LeaseState.SUSPECT) {
            return reported.compareAndSet(LeaseState.HELD, LeaseState.SUSPECT);
        }
        if (to == LeaseState.HELD) {
            return reported.compareAndSet(LeaseState.SUSPECT, LeaseState.HELD);
        }
        return false;
    }

    /** No more suspended/resumed calls for this term: its end is being reported. */
    void stopReporting() {
        reported.set(null);
    }

    void finish(LeaseState finalState) {
        ended.complete(finalState);
    }
}
