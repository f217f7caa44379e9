package io.zkfence.server;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * The acquires waiting on this replica, so that its shutdown ends every one of them: each wait
 * registers its latch, and {@link #shutdown} counts down every latch registered before it or after.
 */
final class OpenWaits {

    private final Set<CountDownLatch> latches = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    /** True once {@link #shutdown} ran. */
    boolean stopping() {
        return stopping;
    }

    /** Registers a wait; counted down at once if the replica is stopping already. */
    void open(CountDownLatch latch) {
        latches.add(latch);
        if (stopping) {
            latch.countDown(); // shutdown() ran before this wait was registered
        }
    }

    /** The wait ended. */
    void close(CountDownLatch latch) {
        latches.remove(latch);
    }

    /** Ends every wait, and every one opened from now on. */
    void shutdown() {
        stopping = true;
        latches.forEach(CountDownLatch::countDown);
    }
}
