package io.zkfence.fencing.internal;

import java.util.OptionalLong;

/**
 * What an object-store fence (fencing-s3, fencing-azure-blob) knows about one key at one moment:
 * whether an object exists, its ETag and the token stored with it (empty when the object was
 * written without one). Either read from the store or remembered from our own last write. Not API.
 *
 * @param exists whether an object is there
 * @param eTag its ETag as the store returned it, null when absent
 * @param token the token in its metadata, empty when absent or written without the fence
 */
public record ObjectState(boolean exists, String eTag, OptionalLong token) {

    private static final ObjectState ABSENT = new ObjectState(false, null, OptionalLong.empty());

    /**
     * No object at the key.
     *
     * @return the absent state
     */
    public static ObjectState absent() {
        return ABSENT;
    }

    /**
     * An object with {@code eTag} and {@code token}.
     *
     * @param eTag its ETag; not empty
     * @param token its token, empty when it carries none
     * @return the state
     * @throws IllegalStateException for a missing ETag: without one there is nothing to
     *     compare-and-set on
     */
    public static ObjectState present(String eTag, OptionalLong token) {
        if (eTag == null || eTag.isEmpty()) {
            throw new IllegalStateException("the store returned an object without an ETag");
        }
        return new ObjectState(true, eTag, token);
    }

    /**
     * Whether this state proves {@code presented} stale: a higher token is stored.
     *
     * @param presented the caller's token
     * @return true when a higher token is stored
     */
    public boolean rejects(long presented) {
        return token.isPresent() && token.getAsLong() > presented;
    }

    /**
     * The stored token.
     *
     * @return the token
     * @throws java.util.NoSuchElementException when the object carries none
     */
    public long storedToken() {
        return token.orElseThrow();
    }
}
