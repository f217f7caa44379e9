package io.zkfence.server;

/**
 * What a previous-protocol entry's znode holds (JSON), as released (a fixture of {@code RollingUpgradeTest}).
 *
 * @param ownerId   the client's owner id
 * @param requestId the client's idempotency key
 * @param ttlMillis the lease TTL asked for
 * @param waitUntil while waiting: when the entry is abandoned if not granted (epoch ms)
 * @param expiresAt once granted: when the lease ends unless renewed (epoch ms); 0 while waiting
 * @param grantedAt once granted: when, by the granting replica's clock (epoch ms; 0 while waiting,
 *                  and in entries written before this field existed)
 */
record LegacyEntryData(
        String ownerId, String requestId, long ttlMillis, long waitUntil, long expiresAt, long grantedAt) {

    LegacyEntryData granted(long at, long expiresAt) {
        return new LegacyEntryData(ownerId, requestId, ttlMillis, waitUntil, expiresAt, at);
    }

    LegacyEntryData renewed(long expiresAt) {
        return new LegacyEntryData(ownerId, requestId, ttlMillis, waitUntil, expiresAt, grantedAt);
    }

    LegacyEntryData waitingUntil(long until) {
        return new LegacyEntryData(ownerId, requestId, ttlMillis, until, expiresAt, grantedAt);
    }
}
