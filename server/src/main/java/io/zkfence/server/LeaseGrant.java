package io.zkfence.server;

/**
 * A granted lease, as the acquire call answers it.
 *
 * @param lockKey      the lock
 * @param lockToken    the ownership handle: renew and release present it (a bearer credential: never logged)
 * @param fencingToken the number resources compare (lock-core's token contract)
 * @param ownerId      the holder
 * @param expiresAt    until when the service keeps the lease unless renewed (epoch ms, the answering replica's clock)
 */
record LeaseGrant(String lockKey, String lockToken, long fencingToken, String ownerId, long expiresAt) {

    @Override
    public String toString() {
        return "LeaseGrant[" + lockKey + ", owner " + ownerId + ", fencing token " + fencingToken + ", expiresAt "
                + expiresAt + "]";
    }
}
