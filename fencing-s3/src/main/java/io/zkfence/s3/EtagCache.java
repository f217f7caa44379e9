package io.zkfence.s3;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Remembers, per key, the ETag and token of the last state this process saw (its own last write,
 * or its last read), so that the steady-state write is a single conditional request. An entry
 * whose state has since been replaced is harmless as long as the store gave the replacement
 * another ETag: the conditional request then fails with 412 and the writer re-reads.
 *
 * <p>One-part ETags ({@code <md5>-1}) are never remembered. Every same-bytes rewrite is sent as a
 * one-part upload (see {@link OnePartUpload}), so a newer holder rewriting those bytes reproduces
 * such an ETag exactly, and a paused holder presenting it from here would pass its If-Match. A
 * remembered ETag is therefore always one a same-bytes rewrite replaces with a different one.
 *
 * <p>Beside the states it keeps, per key, the highest token it has seen (read, written or deleted
 * with), and keeps it when the object goes away: a key whose object carried a higher token and is
 * now gone (deleted, or removed by a store whose abort deletes objects) must not be created by a
 * lower token, which would otherwise pass {@code If-None-Match: *} as a first write.
 *
 * <p>Bounded, least recently used first out; thread-safe.
 */
final class EtagCache {

    private final int capacity;
    private final Map<String, ObjectState> entries;
    private final Map<String, Long> highestSeen;

    EtagCache(int capacity) {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ObjectState> eldest) {
                return size() > EtagCache.this.capacity;
            }
        };
        this.highestSeen = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > EtagCache.this.capacity;
            }
        };
    }

    /** Notes that {@code token} was seen on {@code key} (read, written, or deleted with). */
    synchronized void noteToken(String key, long token) {
        if (capacity > 0) {
            highestSeen.merge(key, token, Math::max);
        }
    }

    /** The highest token seen on {@code key} when it is above {@code presented}, else 0. */
    synchronized long seenAbove(String key, long presented) {
        Long seen = highestSeen.get(key);
        return seen != null && seen > presented ? seen : 0;
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

    /**
     * Remembers a state read from the store. Absence is not remembered (a delete must always look
     * before it reports "nothing there"), nor is a one-part ETag (see the class comment): either
     * replaces what was remembered for the key with nothing.
     */
    synchronized void remember(String key, ObjectState state) {
        if (state.token().isPresent()) {
            noteToken(key, state.token().getAsLong());
        }
        if (!state.exists() || Etags.isOnePart(state.eTag())) {
            entries.remove(key);
        } else if (capacity > 0) {
            entries.put(key, state);
        }
    }

    /**
     * Remembers the state a write the store accepted left behind: {@code eTag} with {@code token},
     * or nothing for the key when the store returned no ETag or a one-part one.
     */
    void rememberWrite(String key, String eTag, long token) {
        noteToken(key, token);
        if (eTag == null || eTag.isEmpty()) {
            forget(key);
        } else {
            remember(key, ObjectState.present(eTag, OptionalLong.of(token)));
        }
    }

    synchronized void forget(String key) {
        entries.remove(key);
    }

    synchronized int size() {
        return entries.size();
    }
}
