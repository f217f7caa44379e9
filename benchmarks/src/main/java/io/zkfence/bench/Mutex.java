package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * One thread's handle on a contended lock, as the workloads' worker loops see it, whatever
 * implementation is behind it. Each factory is used by one thread at a time (Curator's mutex and
 * Hazelcast's lock tie ownership to the acquiring thread).
 */
interface Mutex {

    /** Blocks until this thread holds the lock; failures are unchecked and end the run. */
    Held lock();

    /** A hold; closing it releases the lock. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /** A zkfence lock (plain or in cohort mode: {@code lock} is what {@code withCohort()} returned). */
    static Mutex of(FencedLock lock) {
        return () -> {
            Lease lease = lock.acquire();
            if (lease.token() <= 0) {
                lease.release();
                throw new IllegalStateException("zkfence granted " + lock.name() + " with token " + lease.token());
            }
            return lease::release;
        };
    }

    /** Curator's mutex; Curator wants one instance per thread. */
    static Mutex of(InterProcessMutex mutex) {
        return () -> {
            try {
                mutex.acquire();
            } catch (Exception e) {
                throw new IllegalStateException("InterProcessMutex.acquire failed", e);
            }
            return () -> {
                try {
                    mutex.release();
                } catch (Exception e) {
                    throw new IllegalStateException("InterProcessMutex.release failed", e);
                }
            };
        };
    }

    /**
     * Hazelcast's CP {@code FencedLock}. One proxy may serve every thread of a client: the lock's
     * owner is the calling thread within the client's CP session. The fence is checked as the
     * zkfence token is, so both pay for reading it.
     */
    static Mutex of(com.hazelcast.cp.lock.FencedLock lock) {
        return () -> {
            long fence = lock.lockAndGetFence();
            if (fence <= 0) {
                throw new IllegalStateException("Hazelcast granted " + lock.getName() + " with fence " + fence);
            }
            return lock::unlock;
        };
    }
}
