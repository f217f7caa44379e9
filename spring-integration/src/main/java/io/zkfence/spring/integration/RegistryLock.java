package io.zkfence.spring.integration;

import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A registry lock: a local {@link ReentrantLock} orders the threads of this process (and gives
 * the {@code Lock} contract: owner thread, hold count), and the first hold of the owning thread
 * takes the zkfence lease, which the last unlock releases.
 */
final class RegistryLock implements ZkfenceLock {

    private final LockClient client;
    private final String name;
    private final Duration defaultTtl;
    private final ReentrantLock local = new ReentrantLock();
    private volatile Lease lease;
    /** The ttl (max-hold) the current hold was taken with; written only by the thread holding {@code local}. */
    private volatile Duration holdTtl;

    private volatile long lastUsedNanos = System.nanoTime();

    RegistryLock(LockClient client, String name, Duration defaultTtl) {
        this.client = client;
        this.name = name;
        this.defaultTtl = defaultTtl;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public OptionalLong token() {
        Lease l = lease;
        return l == null ? OptionalLong.empty() : OptionalLong.of(l.token());
    }

    @Override
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    @Override
    public void lock() {
        lock(defaultTtl);
    }

    @Override
    public void lock(Duration ttl) {
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        // Lock.lock() is not interruptible: wait through interrupts and set the flag again at the end.
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    lease = fenced(ttl).acquire();
                    return;
                } catch (AcquireInterruptedException e) {
                    interrupted |= Thread.interrupted();
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            return;
        }
        try {
            lease = fenced(defaultTtl).acquire();
        } catch (AcquireInterruptedException e) {
            local.unlock();
            throw e.toInterruptedException();
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        try {
            Optional<Lease> taken = fenced(defaultTtl).tryAcquire();
            if (taken.isEmpty()) {
                local.unlock();
                return false;
            }
            lease = taken.get();
            return true;
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.of(time, unit.toChronoUnit()), defaultTtl);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        long start = System.nanoTime();
        if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        Duration left = waitTime.minusNanos(System.nanoTime() - start);
        try {
            lease = fenced(ttl).acquire(left.isNegative() ? Duration.ZERO : left);
            return true;
        } catch (AcquireTimeoutException e) {
            local.unlock();
            return false;
        } catch (AcquireInterruptedException e) {
            local.unlock();
            throw e.toInterruptedException();
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    /**
     * Releases one hold of the calling thread; the last one releases the zkfence lease.
     *
     * @throws IllegalMonitorStateException     if the calling thread does not hold the lock
     * @throws ConcurrentModificationException if the lease had been lost before this unlock (the
     *                                          work under it may not have been exclusive; writes
     *                                          fenced with its token were rejected once another
     *                                          holder wrote)
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("lock '" + name + "' is not held by "
                    + Thread.currentThread().getName()
                    + ": a java.util.concurrent Lock is unlocked by the thread that locked it");
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        LeaseState before = held.state();
        String reason = held.endReason().orElse("");
        lease = null;
        lastUsedNanos = System.nanoTime();
        try {
            held.release();
        } finally {
            local.unlock();
        }
        if (before == LeaseState.LOST) {
            throw new ConcurrentModificationException("lock '" + name + "' (token " + held.token()
                    + ") was lost before unlock (" + reason + "): the work under it may not have been exclusive");
        }
    }

    /** Not supported: a condition would need a distributed wait/notify that zkfence does not offer. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("zkfence registry locks have no conditions (lock '" + name
                + "'): waiting on a condition would need a distributed wait/notify; use a message channel or a ZooKeeper"
                + " watch instead");
    }

    /** Pushes the max-hold deadline of the calling thread's hold. */
    void renew(Duration ttl) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException(
                    "lock '" + name + "' is not held by the current thread: only the holder renews");
        }
        Lease held = lease;
        Duration maxHold = held.deadline().isPresent() ? holdTtl : null;
        if (maxHold == null) {
            if (ttl != null) {
                throw new UnsupportedOperationException(
                        "lock '" + name + "' was taken without a ttl: it lives as long as"
                                + " the ZooKeeper session and has no deadline to renew");
            }
            held.checkValid();
            return;
        }
        if (ttl != null && !ttl.equals(maxHold)) {
            throw new UnsupportedOperationException("lock '" + name + "' was taken with a ttl of " + maxHold
                    + "; zkfence renews by that same ttl, not by " + ttl);
        }
        held.renew();
    }

    boolean isLocked() {
        return local.isLocked();
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    /** Called only by the thread holding {@code local}, for its first hold. */
    private FencedLock fenced(Duration ttl) {
        holdTtl = ttl;
        FencedLock lock = client.lock(name);
        return ttl == null ? lock : lock.withMaxHold(ttl);
    }

    @Override
    public String toString() {
        Lease l = lease;
        return "ZkfenceLock{" + name + (l == null ? ", unlocked" : ", token=" + l.token() + ", " + l.state()) + "}";
    }
}
