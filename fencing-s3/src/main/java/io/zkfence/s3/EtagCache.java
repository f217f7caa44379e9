package io.zkfence.s3;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers, per key, the ETag and token of the last state this process saw (its own last write,
 * or its last read), so that the steady-state write is a single conditional request. A stale
 * entry is harmless: the conditional request then fails with 412 and the writer re-reads.
 * Bounded, least recently used first out; thread-safe.
 */
final class EtagCache {

    private final int capacity;
    private final Map<String, ObjectState> entries;

    EtagCache(int capacity) {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ObjectState> eldest) {
                return size() > EtagCache.this.capacity;
            }
        };
    }

    /**
     * The remembered state of an existing object, or null. An entry whose token is higher than
     * {@code presented} is not returned: the caller re-reads so a stale rejection always reports
     * what the store holds now, not what this process once saw.
     */
    synchronized ObjectState usableFor(String key, long presented) {
        ObjectState state = entries.get(key);
        return state == null || state.rejects(presented) ? null : state;
    }

    synchronized void remember(String key, ObjectState state) {
        if (capacity == 0) {
            return;
        }
        if (state.exists()) {
            entries.put(key, state);
        } else {
            // Absence is not remembered: a delete must always look before it reports "nothing there".
            entries.remove(key);
        }
    }

    synchronized void forget(String key) {
        entries.remove(key);
    }

    synchronized int size() {
        return entries.size();
    }
}
