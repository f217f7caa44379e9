package io.zkfence.lock;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arms the watch on a grant's own node once the lease has been held for half a second, sweeping
 * the live grants every quarter second.
 *
 * <p>Why not at the grant: the watch costs one request per grant, and the delete that ends a
 * short critical section fires it back as one more event. Its only job is to tell a holder that
 * someone (an operator) deleted its node while its session lives on; session expiry is reported
 * through Curator in any case. A delete within the first half second of a hold is not a human
 * acting, and is still found within about three quarters of a second. So short holds, the usual
 * case, cost two writes and a pipelined read, and long holds learn of a deletion within about a
 * second at worst. (A grant made on the fast path, without reading the queue, arms the watch at
 * once: nothing else has shown that its node is still there.)
 */
final class OwnNodeWatchSweeper {

    private static final Logger log = LoggerFactory.getLogger(OwnNodeWatchSweeper.class);

    static final long MIN_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final long PERIOD_MILLIS = 250;

    private OwnNodeWatchSweeper() {}

    static void start(LockRuntime rt) {
        rt.scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        rt.registry.grants().forEach(g -> g.watchOwnNodeIfHeldFor(MIN_HOLD_NANOS));
                    } catch (RuntimeException e) {
                        // A throw would cancel the sweep for good: log it and sweep again next time.
                        log.error("arming own-node watches failed", e);
                    }
                },
                PERIOD_MILLIS,
                PERIOD_MILLIS,
                TimeUnit.MILLISECONDS);
    }
}
