package io.zkfence.bench;

import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/** One acquire + release of Curator's InterProcessMutex, the lock users would otherwise pick. */
final class CuratorCycle implements Op {

    private final Mutex mutex;

    CuratorCycle(InterProcessMutex mutex) {
        this.mutex = Mutex.of(mutex);
    }

    @Override
    public String name() {
        return "curator";
    }

    @Override
    public void run() {
        mutex.lock().close();
    }
}
