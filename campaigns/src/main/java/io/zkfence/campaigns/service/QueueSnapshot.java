package io.zkfence.campaigns.service;

import java.util.List;

/**
 * One queue with waiters in it as the observer read it directly from ZooKeeper at one poll (after a
 * {@code sync}): its entries in queue order, each with what decides when it ends by the service's
 * rule (docs/server.md, "How it works"). Only queues of two entries or more are kept: a block needs
 * someone waiting behind.
 *
 * @param at    when the read was done (the campaign's clock, which ZooKeeper and the workers share): what it
 *              shows had happened by then
 * @param lock  the lock's znode
 * @param queue the entries, first (the head) to last
 */
record QueueSnapshot(long at, String lock, List<Slot> queue) {

    /**
     * One entry of the queue at that poll.
     *
     * @param fencingToken the entry's creation zxid
     * @param owner        its request's owner id
     * @param confirmed    whether it stands on its own (a lease until {@code expiresAt}); else it is
     *                     tied to the ZooKeeper session {@code session} of the replica that waits for it
     * @param session      for an unconfirmed entry, its replica's session (hex), else null
     * @param sessionLive  whether that session's marker under {@code _replicas} was there at this poll
     * @param expiresAt    its {@code expiresAt} (the writing replica's clock): a lease's end, or an
     *                     unconfirmed entry's backstop ({@code waitUntil} + TTL)
     */
    record Slot(
            long fencingToken, String owner, boolean confirmed, String session, boolean sessionLive, long expiresAt) {}
}
