package io.zkfence.fencing.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * Remembers, per key, the ETag and token of the last state an object-store fence saw (its own
 * last write, or its last read), so that the steady-state write is a single conditional request.
 * An entry whose state has since been replaced is harmless as long as the store gave the
 * replacement another ETag: the conditional request then fails and the writer re-reads. Not API.
 *
 * <p>ETags a later write can reproduce (fencing-s3's one-part ETags: any same-bytes rewrite gets
 * the same one) are never remembered: a paused holder presenting one from here would pass its
 * If-Match against a newer holder's object. The store's fence says which those are; where every
 * write gets a new ETag (Azure Blob Storage) none is.
 *
 * <p>Beside the states it keeps, per key, the highest token it has seen (read, written or deleted
 * with), and keeps it when the object goes away: a key whose object carried a higher token and is
 * now gone must not be created by a lower token, which would otherwise pass
 * {@code If-None-Match: *} as a first write.
 *
 * <p>Bounded, least recently used first out; thread-safe.
 */
public class StateCache {

    private final int capacity;
    private final Predicate<String> reproducibleEtag;
    private final Map<String, ObjectState> entries;
    private final Map<String, Long> highestSeen;

    /**
     * An empty cache.
     *
     * @param capacity how many keys to remember; 0 remembers nothing
     * @param reproducibleEtag true for an ETag a later write may give the object again, which is
     *     never remembered
     */
    public StateCache(int capacity, Predicate<String> reproducibleEtag) {
        this.capacity = capacity;
        this.reproducibleEtag = reproducibleEtag;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ObjectState> eldest) {
                return size() > StateCache.this.capacity;
            }
        };
        this.highestSeen = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > StateCache.this.capacity;
            }
        };
    }

    /**
     * Notes that {@code token} was seen on {@code key} (read, written, or deleted with).
     *
     * @param key the key
     * @param token the token seen
     */
    public synchronized void noteToken(String key, long token) {
        if (capacity > 0) {
            highestSeen.merge(key, token, Math::max);
        }
    }

    /**
     * The highest token seen on {@code key} when it is above {@code presented}.
     *
     * @param key the key
     * @param presented the caller's token
     * @return that token, else 0
     */
    public synchronized long seenAbove(String key, long presented) {
        Long seen = highestSeen.get(key);
        return seen != null && seen > presented ? seen : 0;
    }

    /**
     * The remembered state of an existing object. An entry whose token is higher than
     * {@code presented} is not returned: the caller re-reads, so a stale rejection always reports
     * what the store holds now, not what this process once saw.
     *
     * @param key the key
     * @param presented the caller's token
     * @return the state, or null
     */
    public synchronized ObjectState usableFor(String key, long presented) {
        ObjectState state = entries.get(key);
        return state == null || state.rejects(presented) ? null : state;
    }

    /**
     * Remembers a state read from the store. Absence is not remembered (a delete must always look
     * before it reports "nothing there"), nor is a reproducible ETag: either replaces what was
     * remembered for the key with nothing.
     *
     * @param key the key
     * @param state what the store holds
     */
    public synchronized void remember(String key, ObjectState state) {
        if (state.token().isPresent()) {
            noteToken(key, state.token().getAsLong());
        }
        if (!state.exists() || reproducibleEtag.test(state.eTag())) {
            entries.remove(key);
        } else if (capacity > 0) {
            entries.put(key, state);
        }
    }

    /**
     * Remembers the state a write the store accepted left behind: {@code eTag} with {@code token},
     * or nothing for the key when the store returned no ETag or a reproducible one.
     *
     * @param key the key
     * @param eTag the ETag the store answered with, or null
     * @param token the token written
     */
    public void rememberWrite(String key, String eTag, long token) {
        noteToken(key, token);
        if (eTag == null || eTag.isEmpty()) {
            forget(key);
        } else {
            remember(key, ObjectState.present(eTag, OptionalLong.of(token)));
        }
    }

    /**
     * Forgets the state of {@code key} (not the highest token seen on it).
     *
     * @param key the key
     */
    public synchronized void forget(String key) {
        entries.remove(key);
    }

    /**
     * How many states are remembered.
     *
     * @return the count
     */
    public synchronized int size() {
        return entries.size();
    }
}
