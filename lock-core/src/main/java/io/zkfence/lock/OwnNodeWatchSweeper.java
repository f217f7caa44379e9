package io.zkfence.lock;

import java.util.concurrent.TimeUnit;

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
 * second at worst.
 */
final class OwnNodeWatchSweeper {

    static final long MIN_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final long PERIOD_MILLIS = 250;

    private OwnNodeWatchSweeper() {}

    static void start(LockRuntime rt) {
        rt.scheduler.scheduleWithFixedDelay(
                () -> rt.registry.grants().forEach(g -> g.watchOwnNodeIfHeldFor(MIN_HOLD_NANOS)),
                PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
}
