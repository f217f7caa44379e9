package io.zkfence.server;

import java.util.SplittableRandom;

/**
 * The shape of one simulated run, chosen from its seed: how many replicas, clients and keys, the
 * sessions' timeout, the clients' TTLs and waits, the replicas' clock skew, the network's and
 * ZooKeeper's latency, and how often faults strike. Some seeds are calm, some stormy.
 *
 * @param maxSkewMillis    each replica's clock is off by at most this, either way; the invariants
 *                         allow twice it (two replicas' difference) where a clock decides
 * @param faultsPerMinute  mean rate of injected faults (replicas, ZooKeeper, clients)
 * @param answerLoss       the chance that an HTTP answer is lost on its way back
 * @param hedging          the chance that an acquire with a requestId is also sent to a second replica
 * @param syncLimitMillis  how long a follower cut off from its leader goes on serving (ZooKeeper's
 *                         {@code syncLimit × tickTime})
 * @param longTtlShare     the share of acquires whose TTL is longer than twice what an unconfirmed
 *                         grant may be answered valid for ({@link #longTtlFrom}): a grant from the
 *                         queue is confirmed before its answer, and a waiting acquire on a lock
 *                         its replica guesses free is queued as a lease
 */
record SimConfig(
        int replicas,
        int clients,
        int keys,
        int sessionTimeoutMs,
        long ttlMinMillis,
        long ttlMaxMillis,
        long waitMaxMillis,
        long maxSkewMillis,
        double faultsPerMinute,
        double answerLoss,
        double hedging,
        long requestRetentionMillis,
        long syncLimitMillis,
        double longTtlShare) {

    static SimConfig forSeed(long seed) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int[] timeouts = {3000, 4000, 6000};
        return new SimConfig(
                2 + r.nextInt(2),
                3 + r.nextInt(4),
                1 + r.nextInt(3),
                timeouts[r.nextInt(timeouts.length)],
                200 + r.nextInt(400),
                1500 + r.nextInt(3500),
                1000 + r.nextInt(4000),
                r.nextInt(61),
                r.nextInt(4) == 0 ? 2 : 10 + r.nextInt(50),
                r.nextInt(3) == 0 ? 0 : r.nextDouble() * 0.03,
                0.2 + r.nextDouble() * 0.4,
                30_000,
                600 + 200 * r.nextInt(13),
                // Drawn last, so that every field drawn before it is what it was before it existed.
                r.nextInt(2) == 0 ? 0 : 0.3);
    }

    /** The shortest TTL a grant from the queue confirms before its answer, on these sessions. */
    long longTtlFrom() {
        return 2 * AcquireCall.unconfirmedValidity(sessionTimeoutMs, 0) + 1;
    }

    /** A calm run for a scripted scenario: no random faults, no lost answers, no hedges, no skew. */
    static SimConfig scripted(int replicas, int sessionTimeoutMs, long syncLimitMillis) {
        return new SimConfig(
                replicas, 0, 1, sessionTimeoutMs, 1000, 1000, 1000, 0, 0, 0, 0, 30_000, syncLimitMillis, 0);
    }

    /** ZooKeeper's tick: sessions are checked for expiry once per tick. */
    long tickMicros() {
        return 200_000;
    }

    /** How long a follower cut off from its leader goes on serving before it drops its clients (syncLimit × tick). */
    long syncLimitMicros() {
        return syncLimitMillis * 1000;
    }

    long electionMicros(SimWorld w) {
        return w.between(200_000, 1_500_000);
    }

    long reconnectMicros(SimWorld w) {
        return w.between(30_000, 400_000);
    }

    /** One message's latency between a replica and ZooKeeper, or between ZooKeeper servers. */
    long latency(SimWorld w) {
        return w.chance(0.01) ? w.between(2_000, 40_000) : w.between(80, 900);
    }

    /** One HTTP message's latency between a client and a replica. */
    long httpLatency(SimWorld w) {
        return w.chance(0.01) ? w.between(2_000, 60_000) : w.between(100, 1500);
    }

    /**
     * What the replicas are told a follower cut off from its leader may go on answering for
     * ({@code --zookeeper-lag-bound-ms}): the sync limit, and a tick for the touches to reach the leader.
     */
    long lagBoundMillis() {
        return (syncLimitMicros() + tickMicros()) / 1000;
    }

    long normalLagMicros() {
        return 500;
    }

    /** The most a follower may lag under a fault. */
    long maxLagMicros() {
        return 1_500_000;
    }

    /** What two replicas' clocks may differ by: the allowance of every check a clock decides. */
    long skewAllowanceMillis() {
        return 2 * maxSkewMillis + 1;
    }
}
