package io.zkfence.curator;

import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Curator's {@code InterProcessSemaphoreMutex}, on zkfence: a NON re-entrant mutex whose grants
 * carry fencing tokens ({@link #lease()}). A second acquire, from any thread (the holding one
 * included), waits until the lock is released; any thread may release it. Otherwise as
 * {@link ZkfenceInterProcessMutex}: Curator's path, the caller's client and session, timeouts
 * return false, interrupts throw {@link InterruptedException} and leave no queue node.
 *
 * <p>(Curator's own semaphore mutex queues in a semaphore's znodes, not under the path itself, so
 * it does not exclude a Curator {@code InterProcessMutex} on the same path; this door queues on
 * the path like the mutex does, so it excludes both doors and Curator's mutex.)
 */
public final class ZkfenceInterProcessSemaphoreMutex implements InterProcessLock {

    private final String path;
    private final FencedLock lock;
    private volatile Lease lease;

    /**
     * A non-re-entrant mutex on {@code path}, as {@code new InterProcessSemaphoreMutex(client, path)}.
     *
     * @throws IllegalArgumentException if the path is not valid or its last element is not kept as
     *                                  it is by zkfence's lock names
     */
    public ZkfenceInterProcessSemaphoreMutex(CuratorFramework client, String path) {
        this.path = path;
        this.lock = DoorPath.lockFor(client, path);
    }

    /**
     * Waits as long as it takes, also when this process already holds it.
     *
     * @throws InterruptedException if interrupted while waiting (no queue node is left)
     */
    @Override
    public void acquire() throws InterruptedException {
        try {
            lease = lock.acquire();
        } catch (AcquireInterruptedException e) {
            throw e.toInterruptedException();
        }
    }

    /**
     * Waits up to {@code time} (negative: zero); false if not granted in time.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        try {
            lease = lock.acquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
            return true;
        } catch (AcquireTimeoutException e) {
            return false;
        } catch (AcquireInterruptedException e) {
            throw e.toInterruptedException();
        }
    }

    /**
     * Releases the lock, from any thread.
     *
     * @throws IllegalStateException if it is not acquired (Curator's message: "Not acquired")
     */
    @Override
    public void release() {
        Lease held;
        synchronized (this) {
            held = lease;
            if (held == null) {
                throw new IllegalStateException("Not acquired");
            }
            lease = null;
        }
        held.release();
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return lease != null;
    }

    /** The current lease (token, state) while acquired; empty otherwise. */
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    @Override
    public String toString() {
        return "ZkfenceInterProcessSemaphoreMutex{" + path + "}";
    }
}
