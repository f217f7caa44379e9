package io.zkfence.lock;

/**
 * Counters of one {@link LockClient} since it was created, for monitoring and benchmarks.
 *
 * @param grants         locks granted (a re-entrant acquire is not a new grant)
 * @param releases       grants released by their holder
 * @param leasesLost     grants that ended LOST
 * @param creates        queue-node creates sent (includes retries after connection loss)
 * @param childrenReads  reads of a lock's child list (the uncontended path does one, pipelined
 *                       with the create; a waiter does none when its predecessor was the head,
 *                       nor, in a queue longer than 16, when its predecessor released)
 * @param wakeUps        watch events on a predecessor delivered to this client's waiters; a
 *                       release wakes exactly one waiter, so across all clients this grows by one
 *                       per contended release
 * @param queueChecks    reads of a single znode a woken waiter sends instead of the child list,
 *                       in a queue longer than 16: the lock's record of its last release and the
 *                       waiter's own node (pipelined, two per wake-up), or the next entry ahead
 *                       when the predecessor went without releasing
 */
public record LockStats(
        long grants, long releases, long leasesLost, long creates, long childrenReads, long wakeUps, long queueChecks) {

    /**
     * The counters of a client before {@link #queueChecks} was counted (it is 0): what code written
     * for the six counters of earlier versions builds, compiled unchanged.
     */
    public LockStats(long grants, long releases, long leasesLost, long creates, long childrenReads, long wakeUps) {
        this(grants, releases, leasesLost, creates, childrenReads, wakeUps, 0);
    }
}
