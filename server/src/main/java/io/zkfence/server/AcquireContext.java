package io.zkfence.server;

import java.time.Clock;

/**
 * What every acquire call on a replica works with: the queue and the ZooKeeper wire, the
 * replicas' liveness, finished requests, tokens, the pending confirmations and leftovers, the
 * meters, and the replica's open waits.
 *
 * @param maxWaiters the most waiters a key's queue takes before an acquire is refused
 */
record AcquireContext(
        LockQueue queue,
        ZkWire wire,
        ReplicaRegistry replicas,
        FinishedRequests finished,
        LockTokens tokens,
        LeaseConfirmer confirmer,
        Leftovers leftovers,
        ServiceMetrics metrics,
        ServicePaths paths,
        Clock clock,
        int maxWaiters,
        OpenWaits waits) {}
