package io.zkfence.recipes.leader;

/**
 * Told about each term of a {@link LeaderElection} candidate: elected, then possibly
 * suspended/resumed, then exactly one of revoked (the candidate gave the term up) or lost (the
 * term was taken away). Modelled on Kafka's consumer rebalance listener, where
 * {@code onPartitionsRevoked} still lets the owner finish and {@code onPartitionsLost} means
 * someone else may already own the work.
 *
 * <p>Calls for one election come on one thread, one at a time, in order; a listener that throws
 * is logged and does not stop the election. Do not block in {@link #elected}, {@link #suspended},
 * {@link #resumed} or {@link #lost}: start the leader's work on your own threads and stop it
 * from here. The election waits for {@link #revoked} (and for {@link #lost}, before the
 * candidate queues again) up to the {@linkplain LeaderElection.Builder#revokeTimeout revoke
 * timeout}.
 */
public interface LeadershipListener {

    /**
     * This candidate became the leader. Start the leader's work now and pass
     * {@link Leadership#term()} to every write it makes, so a resource can fence off this leader
     * once a newer one has written.
     */
    void elected(Leadership leadership);

    /**
     * The connection to ZooKeeper is suspended: the term may be ending right now without this
     * process being able to know. Pause writes; the term either {@linkplain #resumed resumes} or
     * is {@linkplain #lost lost}.
     */
    default void suspended(Leadership leadership) {}

    /** The connection came back with the session alive: still the leader, writes may go on. */
    default void resumed(Leadership leadership) {}

    /**
     * The term is ending because this candidate {@linkplain Leadership#stepDown() stepped down}
     * or its election was {@linkplain LeaderElection#close() closed}. The lease is released only
     * after this returns, so the term is still valid while it runs (unless the session expires
     * meanwhile): finish or hand over, then return; then the next candidate is elected.
     */
    default void revoked(Leadership leadership) {}

    /**
     * The term was taken away: the ZooKeeper session expired (a pause, a partition), the
     * election's node was deleted, or the lock client was closed. Stop all leader work now.
     * Another candidate may already lead with a higher term, and every write with this term may
     * be fenced off. The term's lease's state ({@link Leadership#lease()}) is already final: {@code LOST}, or
     * {@code RELEASED} when closing the lock client released the lock; its
     * {@link Leadership#ended()} completes with the same state once this returns.
     */
    void lost(Leadership leadership);
}
