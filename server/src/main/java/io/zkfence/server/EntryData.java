package io.zkfence.server;

/**
 * What an entry's znode holds (JSON).
 *
 * @param ownerId   the client's owner id
 * @param requestId the client's idempotency key
 * @param ttlMillis the lease TTL asked for
 * @param waitUntil while waiting: when the entry is abandoned if not granted (epoch ms)
 * @param expiresAt once granted: when the lease ends unless renewed (epoch ms); 0 while waiting
 * @param grantedAt once granted: when, by the granting replica's clock (epoch ms; 0 while waiting,
 *                  and in entries written before this field existed)
 */
record EntryData(String ownerId, String requestId, long ttlMillis, long waitUntil, long expiresAt, long grantedAt) {

    EntryData granted(long at, long expiresAt) {
        return new EntryData(ownerId, requestId, ttlMillis, waitUntil, expiresAt, at);
    }

    EntryData renewed(long expiresAt) {
        return new EntryData(ownerId, requestId, ttlMillis, waitUntil, expiresAt, grantedAt);
    }

    EntryData waitingUntil(long until) {
        return new EntryData(ownerId, requestId, ttlMillis, until, expiresAt, grantedAt);
    }
}
