package io.zkfence.lock;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The re-entrant holds on one grant (Curator keeps the same count in its {@code LockData}). A
 * grant starts with one hold; each re-entrant acquire adds one, each handle's release drops one,
 * and the last drop releases the lock. Once the count reached zero it stays there: a re-entrant
 * acquire that races the last release fails to add and acquires anew, instead of reviving a
 * grant whose node is being deleted. Lock-free.
 */
final class HoldCount {

    private final AtomicInteger holds = new AtomicInteger(1);

    /** Adds a hold; false if the count already reached zero. */
    boolean tryAdd() {
        while (true) {
            int n = holds.get();
            if (n <= 0) {
                return false;
            }
            if (holds.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Drops one hold; true for the one that brought the count to zero (only one caller sees it). */
    boolean drop() {
        while (true) {
            int n = holds.get();
            if (n <= 0) {
                return false; // a handle released after clear(): nothing left to drop
            }
            if (holds.compareAndSet(n, n - 1)) {
                return n == 1;
            }
        }
    }

    /** Drops every hold at once (client close, an interrupted acquire that raced its grant). */
    void clear() {
        holds.set(0);
    }

    int count() {
        return Math.max(0, holds.get());
    }
}
