package io.zkfence.server;

import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The watch a waiting acquire sets when it reads the entry ahead of it: it wakes the wait when
 * that entry changes (granted, renewed) or goes, and remembers whether it went.
 */
final class PredecessorWatch implements Watcher {

    private final CountDownLatch fired = new CountDownLatch(1);
    private final Runnable onDeleted;
    private volatile boolean deleted;
    private volatile boolean changed;

    /** A watch that only wakes the wait. */
    PredecessorWatch() {
        this(() -> {});
    }

    /** @param onDeleted runs (on ZooKeeper's event thread, so it must be quick) if the entry went */
    PredecessorWatch(Runnable onDeleted) {
        this.onDeleted = onDeleted;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.NodeDeleted) {
            deleted = true;
            onDeleted.run();
        } else if (event.getType() == Event.EventType.NodeDataChanged && fired.getCount() > 0) {
            // Only as what woke the wait: after a connection event (or another wake-up) the wait
            // reads the queue again, whatever the entry did next.
            changed = true;
        }
        fired.countDown();
    }

    /** Counted down when the watch fires; the wait also counts it down on other wake-ups. */
    CountDownLatch latch() {
        return fired;
    }

    /** True if the watch fired because the entry was deleted. */
    boolean deleted() {
        return deleted;
    }

    /**
     * True if what first woke the wait was this watch firing because the entry was written
     * (confirmed, renewed, taken over), not deleted: the queue ahead of the waiter is as it was, so
     * reading that entry again is enough. False if it went, if a change of the connection's state
     * or another wake-up came first, or if it has not fired.
     */
    boolean changedOnly() {
        return changed;
    }
}
