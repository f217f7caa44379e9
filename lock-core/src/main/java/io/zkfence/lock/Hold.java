package io.zkfence.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * What a {@link Lease} handle stands on: a {@link Grant} (one queue node, one holder thread and
 * its re-entrant holds) or, in cohort mode, a {@link CohortHold} (one thread's turn under a queue
 * node its cohort holds). A lease reads everything through here, so both behave the same to the
 * caller.
 */
interface Hold {

    String lockName();

    /** The fencing token: the creation zxid of the queue node the hold stands on. */
    long token();

    int sequence();

    String nodePath();

    Duration ttl();

    LeaseState state();

    /** Why the hold ended, once it did; else null. */
    String endReason();

    /** @throws LeaseLostException if the hold has ended */
    void checkNotFinal();

    /** The final state; completed on the client's event thread, or already completed once ended. */
    CompletionStage<LeaseState> ended();

    void addListener(Lease lease, LeaseListener listener);

    void removeListener(LeaseListener listener);

    /** The max-hold, or null. */
    Duration maxHold();

    /** The max-hold deadline, or null. */
    Instant deadline();

    /**
     * Pushes the max-hold deadline.
     *
     * @throws IllegalStateException if there is no max-hold
     * @throws LeaseLostException    if the hold has ended
     */
    void renew();

    /** One handle's release; the last one ends the hold (and deletes or hands on the node). */
    void releaseOne();
}
