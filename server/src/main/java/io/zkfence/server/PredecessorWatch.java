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
    private volatile boolean deleted;

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.NodeDeleted) {
            deleted = true;
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
}
