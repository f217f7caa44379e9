package io.zkfence.recipes.leader;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Leader election on a fenced lock: one leader per election name, FIFO succession, and a term
 * number that is the leader's fencing token.
 *
 * <pre>{@code
 * LeaderElection election = LeaderElection.builder(lockClient, "billing-scheduler")
 *         .listener(new LeadershipListener() {
 *             public void elected(Leadership l) { scheduler.start(l.term()); }
 *             public void lost(Leadership l)    { scheduler.stopNow(); }
 *         })
 *         .build();
 * election.start();
 * ...
 * election.close();   // leaves the election; a leader is revoked first, then the next one is elected
 * }</pre>
 *
 * <h2>How it works</h2>
 *
 * <p>Each candidate is a blocking {@link FencedLock#acquire()} on the lock named after the
 * election, made by the election's own thread and kept for as long as the candidate leads. The
 * lock's queue is the line of candidates: the head leads, and when it goes (steps down, closes,
 * or its ZooKeeper session expires) the next in line is elected — FIFO, one wake-up per change.
 * The lease's fencing token is the term, strictly increasing across leaders.
 *
 * <p>A candidate whose term is lost (session expired, node deleted) or that steps down stays a
 * candidate: it joins the queue again at the back. Only {@link #close()} leaves the election.
 * A candidate's session is its {@link LockClient}'s: use one client per process.
 *
 * <p>A deposed leader learns that it lost its term only when its client hears from ZooKeeper;
 * while paused or partitioned it may still believe it leads. Its writes must therefore carry
 * {@link Leadership#term()} to a resource that rejects lower tokens (fencing-jdbc, fencing-s3).
 */
public final class LeaderElection implements AutoCloseable {

    private static final Duration MAX_REVOKE_TIMEOUT = Duration.ofMinutes(10);

    private final LockClient client;
    private final Candidate candidate;

    private LeaderElection(Builder b) {
        this.client = b.client;
        this.candidate = new Candidate(b.client.lock(b.name), b.listeners, b.revokeTimeout);
    }

    /**
     * A builder for a candidate in the election {@code name} on {@code client}'s session.
     *
     * @param client the lock client whose session is this candidate's lease
     * @param name   the election's name; the lock of the same name on that client carries it
     */
    public static Builder builder(LockClient client, String name) {
        return new Builder(client, name);
    }

    /**
     * Who leads the election {@code name}, read from ZooKeeper: owner id and term of the
     * lock's holder, or empty if nobody leads. Needs no candidacy; a snapshot for diagnostics.
     *
     * @throws io.zkfence.lock.CoordinationException if ZooKeeper cannot be read in time
     * @throws IllegalArgumentException               if {@code name} is not a valid lock name
     */
    public static Optional<Leader> currentLeader(LockClient client, String name) {
        Objects.requireNonNull(client, "client");
        LockInfo info = client.inspect(name);
        return info.holder().map(e -> new Leader(e.ownerId(), e.token()));
    }

    /** The election's name. */
    public String name() {
        return candidate.lockName();
    }

    /**
     * Enters the election: joins the line of candidates at the back and returns at once. The
     * listeners hear {@link LeadershipListener#elected} when this candidate's turn comes.
     *
     * @throws IllegalStateException if the election was already started or is closed
     */
    public void start() {
        candidate.start();
    }

    /** True while this candidate leads with its lease {@link LeaseState#HELD}. A local check. */
    public boolean isLeader() {
        Leadership term = candidate.current();
        return term != null && term.lease().isValid();
    }

    /**
     * This candidate's current term, from its election until its end has been handled (so also
     * while {@link LeadershipListener#revoked} or {@link LeadershipListener#lost} runs); empty
     * while it waits in line.
     */
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(candidate.current());
    }

    /** Who leads this election, read from ZooKeeper; see {@link #currentLeader(LockClient, String)}. */
    public Optional<Leader> currentLeader() {
        return currentLeader(client, name());
    }

    /**
     * Leaves the election. A leader's term is revoked ({@link LeadershipListener#revoked} runs,
     * up to the revoke timeout) and released, so the next candidate is elected at once; a waiting
     * candidate leaves the line. Waits for that to finish, except when called from a listener.
     * Idempotent.
     */
    @Override
    public void close() {
        candidate.close();
    }

    @Override
    public String toString() {
        Leadership term = candidate.current();
        return "LeaderElection{" + name() + (term == null ? ", waiting" : ", leading term " + term.term()) + "}";
    }

    /** Builds a {@link LeaderElection}. Not thread-safe. */
    public static final class Builder {

        private final LockClient client;
        private final String name;
        private final List<LeadershipListener> listeners = new ArrayList<>();
        private Duration revokeTimeout = Duration.ofSeconds(10);

        private Builder(LockClient client, String name) {
            this.client = Objects.requireNonNull(client, "client");
            this.name = name;
        }

        /** Adds a listener; listeners are called in the order they were added. */
        public Builder listener(LeadershipListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * How long a term that is given up (step-down, close) waits for
         * {@link LeadershipListener#revoked} to return before it is released anyway. Default 10 s;
         * 1 ms to 10 min.
         */
        public Builder revokeTimeout(Duration revokeTimeout) {
            this.revokeTimeout = revokeTimeout;
            return this;
        }

        /**
         * Validates and builds; the election is not started yet.
         *
         * @throws IllegalArgumentException naming the setting and the rule it breaks (a bad
         *                                  election name is reported as the lock name it is)
         */
        public LeaderElection build() {
            if (name == null) {
                throw new IllegalArgumentException("election name must not be null");
            }
            client.lock(name); // validates the name as a lock name
            Objects.requireNonNull(revokeTimeout, "revokeTimeout must not be null");
            if (revokeTimeout.compareTo(Duration.ofMillis(1)) < 0 || revokeTimeout.compareTo(MAX_REVOKE_TIMEOUT) > 0) {
                throw new IllegalArgumentException("revokeTimeout must be between 1 ms and 10 min, was " + revokeTimeout
                        + " (election '" + name + "')");
            }
            return new LeaderElection(this);
        }
    }
}
