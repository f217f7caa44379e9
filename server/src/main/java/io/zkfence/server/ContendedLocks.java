package io.zkfence.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The locks this replica last saw contended when it queued an entry: another entry was in the
 * queue beside its own. {@link AcquireCall} queues a waiting acquire on any other lock as a lease
 * that stands alone, on the guess that the lock is free, which saves the confirmation write its
 * grant would need; a wrong guess costs one write (the entry made a waiting one in place).
 *
 * <p>Bounded: past {@value #REMEMBERED} locks the one seen longest ago is forgotten, and a lock
 * forgotten is guessed free again (one wrong guess marks it contended again).
 */
final class ContendedLocks {

    static final int REMEMBERED = 10_000;

    private final Map<String, Boolean> contended = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** True unless this replica's last queueing on {@code lockPath} found other entries there. */
    synchronized boolean likelyFree(String lockPath) {
        return contended.get(lockPath) == null;
    }

    /** This replica queued an entry on {@code lockPath} and read {@code entries} entries there, its own among them. */
    synchronized void saw(String lockPath, int entries) {
        if (entries > 1) {
            contended.put(lockPath, Boolean.TRUE);
        } else {
            contended.remove(lockPath);
        }
    }
}
