package io.zkfence.server;

import java.time.Clock;
import java.util.random.RandomGenerator;

/**
 * What every acquire call on a replica works with: the queue and the ZooKeeper wire, the
 * replicas' liveness, finished requests, tokens, the pending confirmations and leftovers, the
 * meters, the replica's open waits, where its calls wait, and where entry names get their
 * randomness.
 *
 * @param maxWaiters     the most waiters a key's queue takes before an acquire is refused
 * @param lagBoundMillis how long a ZooKeeper follower cut off from its leader may go on answering
 *                       reads ({@link AcquireCall#unconfirmedValidity})
 * @param contended      the locks this replica last saw contended ({@link ContendedLocks})
 * @param random     the random part of entry names and of requests without a requestId (a
 *                   {@link java.security.SecureRandom} in a replica; seeded in the simulation)
 */
record AcquireContext(
        LockQueue queue,
        ZkWire wire,
        ReplicaRegistry replicas,
        FinishedRequests finished,
        LockTokens tokens,
        LeaseConfirmer confirmer,
        Leftovers leftovers,
        EntryRemovals removals,
        ServiceMetrics metrics,
        ServicePaths paths,
        Clock clock,
        int maxWaiters,
        long lagBoundMillis,
        OpenWaits waits,
        Scheduler scheduler,
        ContendedLocks contended,
        RandomGenerator random) {}
