package io.zkfence.server;

/**
 * A granted lease, as the acquire call answers it.
 *
 * @param lockKey      the lock
 * @param lockToken    the opaque ownership handle: renew and release present it
 * @param fencingToken the number resources compare (lock-core's token contract)
 * @param ownerId      the holder
 * @param expiresAt    when the lease ends unless renewed (epoch ms, the granting replica's clock)
 */
record Grant(String lockKey, String lockToken, long fencingToken, String ownerId, long expiresAt) {}
