package io.zkfence.recipes.cache;

import java.util.Optional;

/**
 * Where {@link CacheRebuild} keeps its values: shared by every process that rebuilds them, and
 * fenced, so that a rebuilder paused past its lease cannot overwrite a newer value with an older
 * one.
 *
 * <p>The contract an implementation keeps, per key:
 * <ul>
 *   <li>{@link #write} with a token {@code >=} the highest token it has accepted for the key
 *       replaces the value and returns {@code true}; with a lower token it changes nothing and
 *       returns {@code false}. The check and the write are one atomic step (one transaction,
 *       one conditional write), never a read followed by a write.</li>
 *   <li>{@link #read} returns the last accepted value, with the written-at instant and token
 *       it was written with.</li>
 *   <li>Failures of the store itself are unchecked exceptions; the recipe reports them to its
 *       callers as {@link CacheRebuildException}s with the failure as the cause.</li>
 * </ul>
 *
 * <p>{@link JdbcCacheStore} is the implementation on fencing-jdbc. Implementations must be
 * thread-safe.
 *
 * @param <V> the value type
 */
public interface CacheStore<V> {

    /**
     * The key's current value.
     *
     * @param key the cache key
     * @return the last accepted value, or empty if the key was never written
     */
    Optional<CachedValue<V>> read(String key);

    /**
     * Stores a rebuilt value if its token is not older than the newest accepted for the key.
     *
     * @param key   the cache key
     * @param value the value, with its written-at instant and the rebuild's token
     * @return {@code true} if it was written; {@code false} if a write with a higher token had
     *         already been accepted for the key (nothing was changed)
     */
    boolean write(String key, CachedValue<V> value);
}
