package io.zkfence.recipes.cache;

import java.time.Instant;
import java.util.Objects;

/**
 * One cached value as a {@link CacheStore} holds it: the value, when it was written (by the
 * recipe's clock) and the fencing token of the rebuild that wrote it.
 *
 * @param value     the cached value, never null
 * @param writtenAt when the rebuild that produced it wrote it; freshness is measured from here
 * @param token     the rebuild lock's fencing token for that write, 1 or more
 * @param <V>       the value type
 */
public record CachedValue<V>(V value, Instant writtenAt, long token) {

    /**
     * @throws NullPointerException     if {@code value} or {@code writtenAt} is null
     * @throws IllegalArgumentException if {@code token} is below 1
     */
    public CachedValue {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(writtenAt, "writtenAt");
        if (token < 1) {
            throw new IllegalArgumentException("token must be 1 or more, was " + token);
        }
    }
}
