package io.zkfence.curator;

import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Curator's {@code InterProcessMutex}, on zkfence: a drop-in for code written against
 * {@link InterProcessLock}, whose every grant carries a fencing token ({@link #lease()}).
 *
 * <pre>{@code
 * InterProcessLock lock = new ZkfenceInterProcessMutex(client, "/locks/job");   // was new InterProcessMutex(...)
 * lock.acquire();
 * try {
 *     dao.write(row, ((ZkfenceInterProcessMutex) lock).lease().orElseThrow().token());
 * } finally {
 *     lock.release();
 * }
 * }</pre>
 *
 * <p>As {@code InterProcessMutex}'s javadoc says of it: re-entrant per object and thread (a thread
 * that holds it may acquire it again through the same object, and must release as often), while
 * two objects on one path exclude each other even in one thread; {@link #acquire(long, TimeUnit)}
 * returns false on timeout (a negative time counts as zero) and a free lock is granted at any time
 * given; an interrupt while waiting throws {@link InterruptedException} and leaves no queue node;
 * {@link #release()} by a thread that does not hold it throws {@link IllegalMonitorStateException}.
 * It runs on the given client and session (one zkfence client shared per Curator client and
 * parent path, closed with the Curator client), and a Curator {@code InterProcessMutex} on the same
 * path excludes it and is excluded by it, so a fleet can move over pod by pod. Differences from
 * Curator's mutex are listed in docs/curator.md.
 */
public final class ZkfenceInterProcessMutex implements InterProcessLock {

    private final String path;
    private final FencedLock lock;
    private final Map<Thread, Held> holds = new ConcurrentHashMap<>();

    /** The lease a thread holds through this object and how often it acquired it. */
    private static final class Held {
        final Lease lease;
        int count = 1; // touched by its own thread only

        Held(Lease lease) {
            this.lease = lease;
        }
    }

    /**
     * A mutex on {@code path}, as {@code new InterProcessMutex(client, path)}.
     *
     * @param client a started Curator client; its namespace, authentication and session apply
     * @param path   the lock's znode, e.g. {@code /locks/job}
     * @throws IllegalArgumentException if the path is not valid or its last element is not kept as
     *                                  it is by zkfence's lock names (see {@code docs/curator.md})
     */
    public ZkfenceInterProcessMutex(CuratorFramework client, String path) {
        this.path = path;
        this.lock = DoorPath.lockFor(client, path);
    }

    /**
     * Waits as long as it takes; re-entrant for the thread that holds it through this object.
     *
     * @throws InterruptedException if interrupted while waiting (no queue node is left)
     */
    @Override
    public void acquire() throws InterruptedException {
        if (reenter()) {
            return;
        }
        try {
            holds.put(Thread.currentThread(), new Held(lock.acquire()));
        } catch (AcquireInterruptedException e) {
            throw e.toInterruptedException();
        }
    }

    /**
     * Waits up to {@code time}; false if the lock was not granted in time (no queue node is left).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        if (reenter()) {
            return true;
        }
        try {
            holds.put(
                    Thread.currentThread(), new Held(lock.acquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))))));
            return true;
        } catch (AcquireTimeoutException e) {
            return false;
        } catch (AcquireInterruptedException e) {
            throw e.toInterruptedException();
        }
    }

    /**
     * One release by the thread that acquired it; the lock goes when the last acquire is released.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold it through this object
     */
    @Override
    public void release() {
        Held held = holds.get(Thread.currentThread());
        if (held == null) {
            throw new IllegalMonitorStateException("You do not own the lock: " + path);
        }
        if (--held.count > 0) {
            return;
        }
        holds.remove(Thread.currentThread());
        held.lease.release();
    }

    /** True if any thread of this process holds the lock through this object. */
    @Override
    public boolean isAcquiredInThisProcess() {
        return !holds.isEmpty();
    }

    /** True if the calling thread holds the lock through this object. */
    public boolean isOwnedByCurrentThread() {
        return holds.containsKey(Thread.currentThread());
    }

    /**
     * The calling thread's lease, while it holds the lock through this object: its
     * {@link Lease#token()} is what the fencing adapters take, {@link Lease#state()} tells a lost
     * lease. Empty if the thread does not hold it.
     */
    public Optional<Lease> lease() {
        Held held = holds.get(Thread.currentThread());
        return held == null ? Optional.empty() : Optional.of(held.lease);
    }

    private boolean reenter() {
        Held held = holds.get(Thread.currentThread());
        if (held == null) {
            return false;
        }
        held.count++;
        return true;
    }

    @Override
    public String toString() {
        return "ZkfenceInterProcessMutex{" + path + "}";
    }
}
