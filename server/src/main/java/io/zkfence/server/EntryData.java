package io.zkfence.server;

/**
 * What an entry's znode holds (JSON). Field names are those of the previous protocol, which reads
 * this protocol's entries as leases until {@code expiresAt} (see docs/server.md, "Rolling upgrade").
 *
 * @param ownerId   the client's owner id
 * @param requestId the client's idempotency key, or null
 * @param ttlMillis the lease TTL asked for
 * @param waitUntil for a waiting acquire, the end of its wait (epoch ms, the creating replica's clock); 0 otherwise
 * @param expiresAt when the entry ends unless written again (epoch ms): for a confirmed lease, its
 *                  expiry; for an unconfirmed entry, the latest it can live ({@code waitUntil} +
 *                  TTL); 0 in a previous-protocol entry that waits
 * @param grantedAt when the lease was confirmed or renewed from (epoch ms), 0 if not yet
 * @param replica   for an unconfirmed entry, the ZooKeeper session (hex) of the replica whose call
 *                  waits for it: the entry lives only while that session does
 * @param confirmed true once the lease stands on its own (written with a fixed expiry): every
 *                  acquire without a wait is confirmed at creation; a waiting one when renewed or
 *                  confirmed by its replica; null in previous-protocol entries
 */
record EntryData(
        String ownerId,
        String requestId,
        long ttlMillis,
        long waitUntil,
        long expiresAt,
        long grantedAt,
        String replica,
        Boolean confirmed) {

    /** An acquire without a wait: a lease from creation, until {@code start} + TTL. */
    static EntryData lease(String ownerId, String requestId, long ttlMillis, long start) {
        return new EntryData(ownerId, requestId, ttlMillis, 0, start + ttlMillis, start, null, true);
    }

    /** A waiting acquire, tied to {@code replica}'s session until confirmed. */
    static EntryData waiting(String ownerId, String requestId, long ttlMillis, long waitUntil, String replica) {
        return new EntryData(ownerId, requestId, ttlMillis, waitUntil, waitUntil + ttlMillis, 0, replica, false);
    }

    /** This lease confirmed (or renewed) to end at {@code expiresAt}, counted from {@code from}. */
    EntryData confirmedUntil(long from, long expiresAt) {
        return new EntryData(ownerId, requestId, ttlMillis, waitUntil, expiresAt, from, null, true);
    }

    /** This waiting entry with its wait extended to {@code until} (a later call of the same request). */
    EntryData waitingUntil(long until) {
        return new EntryData(ownerId, requestId, ttlMillis, until, until + ttlMillis, grantedAt, replica, confirmed);
    }

    /** This unconfirmed entry now tied to {@code session} (its replica's new session). */
    EntryData onReplica(String session) {
        return new EntryData(ownerId, requestId, ttlMillis, waitUntil, expiresAt, grantedAt, session, confirmed);
    }

    /** True if the lease stands on its own until {@code expiresAt} (this protocol's confirmed, or a previous-protocol grant). */
    boolean standsAlone() {
        return confirmed == null ? expiresAt > 0 : confirmed;
    }
}
