package io.zkfence.recipes.cache;

import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rebuild of one key, run by this process on behalf of all its callers of that key: take the
 * key's rebuild lock, look again (another process may have rebuilt while this one queued), run the
 * loader, write the value with the lock's token, release. The lock is released on every path,
 * including a loader that throws, so the next rebuilder is not held up.
 */
final class LockedRebuild<V> {

    private static final Logger log = LoggerFactory.getLogger(LockedRebuild.class);

    private final LockClient client;
    private final CacheStore<V> store;
    private final Clock clock;
    private final Duration freshFor;
    private final Duration lockWait;

    LockedRebuild(LockClient client, CacheStore<V> store, Clock clock, Duration freshFor, Duration lockWait) {
        this.client = client;
        this.store = store;
        this.clock = clock;
        this.freshFor = freshFor;
        this.lockWait = lockWait;
    }

    V run(String key, Supplier<? extends V> loader) {
        FencedLock lock = client.lock(CacheRebuild.lockName(key));
        Lease lease;
        try {
            lease = lock.acquire(lockWait);
        } catch (AcquireTimeoutException e) {
            throw new CacheRebuildTimeoutException(
                    key, lockWait, "another process held the rebuild lock '" + lock.name() + "' for the whole wait", e);
        } catch (LockException e) {
            throw new CacheRebuildException(key, "could not take the rebuild lock '" + lock.name() + "'", e);
        }
        try (lease) {
            Optional<CachedValue<V>> current = read(key);
            if (current.isPresent() && CacheRebuild.isFresh(current.get(), clock.instant(), freshFor)) {
                // Rebuilt by another process while this one waited in the lock's queue.
                return current.get().value();
            }
            V value = load(key, loader);
            CachedValue<V> written = new CachedValue<>(value, clock.instant(), lease.token());
            if (write(key, written)) {
                log.debug("rebuilt cache key '{}' with token {}", key, lease.token());
                return value;
            }
            // Our lease ended while the loader ran and a newer rebuilder wrote first: its value wins.
            log.warn(
                    "rebuild of cache key '{}' with token {} was fenced off: a newer rebuild had written; serving that",
                    key,
                    lease.token());
            return read(key)
                    .map(CachedValue::value)
                    .orElseThrow(() -> new CacheRebuildException(
                            key, "the store rejected token " + lease.token() + " as stale but holds no value", null));
        }
    }

    private V load(String key, Supplier<? extends V> loader) {
        V value;
        try {
            value = loader.get();
        } catch (RuntimeException e) {
            throw new CacheRebuildException(key, "the loader failed: " + e, e);
        }
        if (value == null) {
            throw new CacheRebuildException(key, "the loader returned null", null);
        }
        return value;
    }

    private Optional<CachedValue<V>> read(String key) {
        try {
            return store.read(key);
        } catch (CacheRebuildException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CacheRebuildException(key, "reading the store failed", e);
        }
    }

    private boolean write(String key, CachedValue<V> value) {
        try {
            return store.write(key, value);
        } catch (CacheRebuildException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CacheRebuildException(
                    key, "writing the rebuilt value with token " + value.token() + " failed", e);
        }
    }
}
