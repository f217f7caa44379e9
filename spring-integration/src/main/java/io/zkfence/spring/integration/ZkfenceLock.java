package io.zkfence.spring.integration;

import io.zkfence.lock.Lease;
import java.util.Optional;
import java.util.OptionalLong;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * A {@link java.util.concurrent.locks.Lock} from {@link ZkfenceLockRegistry}, backed by a zkfence
 * lock, whose fencing token is reachable from the lock object:
 *
 * <pre>{@code
 * ZkfenceLock lock = registry.obtain("inventory:sku:123");
 * lock.lock();
 * try {
 *     inventoryDao.reserve(sku, qty, lock.token().getAsLong());   // the resource rejects stale tokens
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p>The token and lease describe the current hold by whichever thread of this process holds the
 * lock, so another thread (a flow the leader started, say) can read them too. See
 * {@link ZkfenceLockRegistry} for how the thread-bound {@code Lock} contract maps onto zkfence.
 */
public interface ZkfenceLock extends DistributedLock {

    /** The zkfence lock name (the registry key). */
    String name();

    /**
     * The fencing token of the current hold (lock-core's contract: every later hold, on any
     * process, has a higher one).
     *
     * @return the token, or empty while no thread of this process holds the lock
     */
    OptionalLong token();

    /**
     * The lease of the current hold, for {@link Lease#checkValid()} right before a critical write.
     *
     * @return the lease, or empty while no thread of this process holds the lock
     */
    Optional<Lease> lease();
}
