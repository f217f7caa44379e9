package io.zkfence.bench;

import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/** One acquire + release of Curator's InterProcessMutex, the lock users would otherwise pick. */
final class CuratorCycle implements Op {

    private final InterProcessMutex mutex;

    CuratorCycle(InterProcessMutex mutex) {
        this.mutex = mutex;
    }

    @Override
    public String name() {
        return "curator";
    }

    @Override
    public void run() {
        try {
            mutex.acquire();
        } catch (Exception e) {
            throw new IllegalStateException("InterProcessMutex.acquire failed", e);
        }
        try {
            mutex.release();
        } catch (Exception e) {
            throw new IllegalStateException("InterProcessMutex.release failed", e);
        }
    }
}
