package io.zkfence.server;

/**
 * A lease granted by the previous protocol (a fixture of {@code RollingUpgradeTest}).
 *
 * @param lockKey      the lock
 * @param lockToken    the opaque ownership handle: renew and release present it
 * @param fencingToken the number resources compare (lock-core's token contract)
 * @param ownerId      the holder
 * @param expiresAt    when the lease ends unless renewed (epoch ms, the granting replica's clock)
 */
record LegacyGrant(String lockKey, String lockToken, long fencingToken, String ownerId, long expiresAt) {}
