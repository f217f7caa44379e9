package io.zkfence.spring.integration;

import io.zkfence.lock.LockClient;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} whose
 * locks are zkfence locks: {@code obtain(key)} returns a {@link ZkfenceLock} whose fencing token
 * the caller hands to the resource it writes, so {@code LockRegistryLeaderInitiator} and
 * {@code @ServiceActivator} flows can fence their writes. The key (a {@code String}) is the
 * zkfence lock name.
 *
 * <h2>How the thread-bound {@code Lock} contract maps onto zkfence</h2>
 * <ul>
 * <li>One lock object per key (until expired by {@link #expireUnusedOlderThan}). A local
 *     {@code ReentrantLock} orders this process's threads; the first hold of the owning thread
 *     takes the zkfence lease, the last {@code unlock} releases it.</li>
 * <li><b>Re-entrancy:</b> the owning thread may lock again; every hold shares one lease and one
 *     token; the lease is released when the hold count returns to zero.</li>
 * <li><b>Unlock from another thread</b> throws {@link IllegalMonitorStateException}, as
 *     {@code ReentrantLock} does. (zkfence's own {@code Lease} may be released from any thread;
 *     this registry keeps the {@code Lock} contract.)</li>
 * <li>{@code lock()} waits as long as it takes and is not interruptible (an interrupt is
 *     remembered and the flag set again once locked); {@code lockInterruptibly()} and
 *     {@code tryLock(time, unit)} throw {@link InterruptedException} and leave no queue node.
 *     {@code tryLock()} never waits (zkfence's {@code tryAcquire}); {@code tryLock(time, unit)}
 *     counts the local wait and the ZooKeeper wait against one budget.</li>
 * <li>{@code newCondition()} throws {@link UnsupportedOperationException}.</li>
 * <li><b>TTL</b> ({@code DistributedLock.lock(ttl)}, or the registry's default): zkfence's
 *     max-hold. A holder that neither unlocks nor {@link #renewLock renews} within it loses the
 *     lease and the next holder gets a higher token. Without a ttl the lease lives as long as the
 *     ZooKeeper session.</li>
 * <li>An {@code unlock} after the lease was lost (session expired, ttl passed) releases locally
 *     and then throws {@link java.util.ConcurrentModificationException}, as Spring's JDBC and Redis
 *     registries do, so the caller learns its work may not have been exclusive.</li>
 * </ul>
 */
public final class ZkfenceLockRegistry
        implements ExpirableLockRegistry<ZkfenceLock>, RenewableLockRegistry<ZkfenceLock> {

    private final LockClient client;
    private final Duration defaultTtl;
    private final Map<String, RegistryLock> locks = new ConcurrentHashMap<>();

    private ZkfenceLockRegistry(LockClient client, Duration defaultTtl) {
        this.client = Objects.requireNonNull(client, "client");
        if (defaultTtl != null && (defaultTtl.isZero() || defaultTtl.isNegative())) {
            throw new IllegalArgumentException("defaultTtl must be positive, was " + defaultTtl);
        }
        this.defaultTtl = defaultTtl;
    }

    /**
     * A registry whose locks live as long as the client's ZooKeeper session (no ttl unless
     * {@code lock(ttl)} asks for one).
     *
     * @param client the lock client
     * @return the registry
     */
    public static ZkfenceLockRegistry create(LockClient client) {
        return new ZkfenceLockRegistry(client, null);
    }

    /**
     * A registry whose locks are held at most {@code defaultTtl} unless renewed.
     *
     * @param client     the lock client
     * @param defaultTtl the max-hold of every lock taken without an explicit ttl
     * @return the registry
     * @throws IllegalArgumentException if {@code defaultTtl} is not positive
     */
    public static ZkfenceLockRegistry create(LockClient client, Duration defaultTtl) {
        return new ZkfenceLockRegistry(client, Objects.requireNonNull(defaultTtl, "defaultTtl"));
    }

    /**
     * The lock for {@code lockKey}: the same object for the same key until it is expired.
     *
     * @throws IllegalArgumentException if the key is not a String, or not a valid zkfence lock name
     */
    @Override
    public ZkfenceLock obtain(Object lockKey) {
        if (!(lockKey instanceof String name)) {
            throw new IllegalArgumentException("zkfence lock keys are Strings (the lock name), got "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        client.lock(name); // validates the name now rather than at the first lock()
        return locks.computeIfAbsent(name, n -> new RegistryLock(client, n, defaultTtl));
    }

    /** Forgets lock objects that are not held and were last unlocked more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = Duration.ofMillis(age).toNanos();
        locks.values().removeIf(l -> !l.isLocked() && now - l.lastUsedNanos() > ageNanos);
    }

    /**
     * Pushes the ttl deadline of the calling thread's hold of {@code lockKey} by the ttl it was
     * taken with; for a lock without ttl, checks that the lease is still valid.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock
     * @throws io.zkfence.lock.LeaseLostException if the lease is already lost
     */
    @Override
    public void renewLock(Object lockKey) {
        held(lockKey).renew(null);
    }

    /**
     * Same as {@link #renewLock(Object)}; zkfence renews by the ttl the lock was taken with, so
     * {@code ttl} must be that one.
     *
     * @throws UnsupportedOperationException if {@code ttl} differs from the hold's ttl
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        held(lockKey).renew(Objects.requireNonNull(ttl, "ttl"));
    }

    private RegistryLock held(Object lockKey) {
        RegistryLock lock = lockKey instanceof String name ? locks.get(name) : null;
        if (lock == null) {
            throw new IllegalMonitorStateException(
                    "lock '" + lockKey + "' was not obtained from this registry or has expired");
        }
        return lock;
    }
}
