package io.zkfence.s3;

import java.util.OptionalLong;

/**
 * What the adapter knows about one key at one moment: whether an object exists, its ETag and the
 * token stored with it (empty when the object was written without one). Either read from the
 * store or remembered from our own last write.
 */
record ObjectState(boolean exists, String eTag, OptionalLong token) {

    private static final ObjectState ABSENT = new ObjectState(false, null, OptionalLong.empty());

    static ObjectState absent() {
        return ABSENT;
    }

    static ObjectState present(String eTag, OptionalLong token) {
        if (eTag == null || eTag.isEmpty()) {
            // Without an ETag there is nothing to compare-and-set on.
            throw new IllegalStateException("the store returned an object without an ETag");
        }
        return new ObjectState(true, eTag, token);
    }

    /** True when this state proves {@code presented} stale: a higher token is stored. */
    boolean rejects(long presented) {
        return token.isPresent() && token.getAsLong() > presented;
    }

    long storedToken() {
        return token.orElseThrow();
    }
}
