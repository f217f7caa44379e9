package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;

/** One zkfence acquire + release of a lock nobody else uses. */
final class ZkfenceCycle implements Op {

    private final FencedLock lock;

    ZkfenceCycle(FencedLock lock) {
        this.lock = lock;
    }

    @Override
    public String name() {
        return "zkfence";
    }

    @Override
    public void run() {
        try (Lease lease = lock.acquire()) {
            if (lease.token() <= 0) {
                throw new IllegalStateException("zkfence granted " + lock.name() + " with token " + lease.token());
            }
        }
    }
}
