package io.zkfence.recipes.cache;

import io.zkfence.lock.LockClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds an expired cached value once, cluster-wide, instead of once per caller: the cache
 * stampede fix.
 *
 * <pre>{@code
 * CacheRebuild<String> cache = CacheRebuild.builder(lockClient, store)
 *         .freshFor(Duration.ofMinutes(5))
 *         .maxStaleness(Duration.ofMinutes(1))
 *         .waitTimeout(Duration.ofSeconds(10))
 *         .build();
 * String products = cache.get("product-list", () -> loadProductList());   // on every pod
 * }</pre>
 *
 * <h2>What {@link #get} does</h2>
 * <ul>
 *   <li>A value younger than {@code freshFor} is returned from the store; nothing else happens.</li>
 *   <li>Otherwise a rebuild of the key starts, unless one is already running in this process:
 *       all of a process's callers of a key share one rebuild, hence one lock acquisition. The
 *       rebuild takes the ZooKeeper lock {@code cache:rebuild:<key>}, reads the store again
 *       (another process may have rebuilt while this one queued; then the loader is not run),
 *       runs the loader, writes the value with the lock's fencing token and releases the lock.
 *       So across all processes the loader runs once per key and expiry.</li>
 *   <li>While it runs, a caller that has a value younger than {@code freshFor + maxStaleness}
 *       gets that stale value at once (stale-while-revalidate). A caller with no value, or an
 *       older one, waits for the rebuild up to {@code waitTimeout}, then gets the fresh value or
 *       a {@link CacheRebuildTimeoutException}.</li>
 *   <li>If the loader throws, the lock is released at once and every caller waiting on that
 *       rebuild gets a {@link CacheRebuildException} whose cause is the loader's exception. For
 *       {@code failureBackoff} after that, this process starts no new rebuild of the key: its
 *       callers get a stale value if one is within the bound, otherwise that failure again.</li>
 * </ul>
 *
 * <h2>Fencing</h2>
 *
 * <p>The store write carries the rebuild lock's token and the {@link CacheStore} rejects a token
 * lower than one it has accepted. A rebuilder that paused past its session (its lock was since
 * granted to another process, which wrote a newer value) therefore cannot overwrite the newer
 * value with its older one; it returns the newer value instead. See docs/cache-rebuild.md.
 *
 * <p>The loader that runs is the one passed by the caller that started the rebuild. Thread-safe.
 *
 * @param <V> the value type
 */
public final class CacheRebuild<V> {

    /** Prefix of the rebuild lock's name (and of {@link JdbcCacheStore}'s fence key): {@value}. */
    public static final String LOCK_PREFIX = "cache:rebuild:";

    /** Also the longest fencing-jdbc key, so the lock name can be {@link JdbcCacheStore}'s fence key. */
    private static final int MAX_LOCK_NAME_LENGTH = 255;

    private static final Duration MAX_DURATION = Duration.ofDays(30);
    private static final Logger log = LoggerFactory.getLogger(CacheRebuild.class);

    private final LockClient client;
    private final CacheStore<V> store;
    private final Clock clock;
    private final Duration freshFor;
    private final Duration maxStaleness;
    private final Duration waitTimeout;
    private final Duration failureBackoff;
    private final LockedRebuild<V> rebuild;
    private final ConcurrentMap<String, CompletableFuture<V>> inFlight = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Failure> failures = new ConcurrentHashMap<>();

    private record Failure(Instant at, CacheRebuildException error) {}

    private CacheRebuild(Builder<V> b) {
        this.client = b.client;
        this.store = b.store;
        this.clock = b.clock;
        this.freshFor = b.freshFor;
        this.maxStaleness = b.maxStaleness;
        this.waitTimeout = b.waitTimeout;
        this.failureBackoff = b.failureBackoff;
        this.rebuild = new LockedRebuild<>(client, store, clock, freshFor, waitTimeout);
    }

    /**
     * A builder for the cache of one kind of value.
     *
     * @param client the lock client whose session is the rebuild lock's lease
     * @param store  where the values live, shared by all processes and fenced by token
     * @param <V>    the value type
     */
    public static <V> Builder<V> builder(LockClient client, CacheStore<V> store) {
        return new Builder<>(client, store);
    }

    /**
     * The key's value: fresh from the store, stale while one rebuild runs, or rebuilt.
     *
     * @param key    the cache key; {@code "cache:rebuild:" + key} must be a valid lock name of at
     *               most 255 characters
     * @param loader computes the value when this call starts the rebuild; must not return null
     * @return the value
     * @throws CacheRebuildTimeoutException if there was no servable value and the rebuild did
     *                                      not finish within {@code waitTimeout}
     * @throws CacheRebuildException        if the rebuild failed (the loader's exception is the
     *                                      cause), or is backing off after a failure
     * @throws IllegalArgumentException     for an invalid key
     */
    public V get(String key, Supplier<? extends V> loader) {
        requireKey(key);
        Objects.requireNonNull(loader, "loader");
        long start = System.nanoTime();
        Optional<CachedValue<V>> cached = read(key);
        Instant now = clock.instant();
        if (cached.isPresent() && isFresh(cached.get(), now, freshFor)) {
            return cached.get().value();
        }
        CompletableFuture<V> flight = flight(key, loader, now);
        if (cached.isPresent() && isServableStale(cached.get(), now)) {
            return cached.get().value();
        }
        return await(key, flight, start);
    }

    /** The rebuild lock's name for a key. */
    public static String lockName(String key) {
        return LOCK_PREFIX + key;
    }

    @Override
    public String toString() {
        return "CacheRebuild{freshFor=" + freshFor + ", maxStaleness=" + maxStaleness + ", waitTimeout=" + waitTimeout
                + ", failureBackoff=" + failureBackoff + "}";
    }

    static boolean isFresh(CachedValue<?> value, Instant now, Duration freshFor) {
        return now.isBefore(value.writtenAt().plus(freshFor));
    }

    private boolean isServableStale(CachedValue<V> value, Instant now) {
        return !now.isAfter(value.writtenAt().plus(freshFor).plus(maxStaleness));
    }

    /** Joins this process's running rebuild of the key, or starts one unless backing off. */
    private CompletableFuture<V> flight(String key, Supplier<? extends V> loader, Instant now) {
        Failure failure = failures.get(key);
        if (failure != null && now.isBefore(failure.at().plus(failureBackoff))) {
            return CompletableFuture.failedFuture(new CacheRebuildException(
                    key,
                    "the last rebuild failed "
                            + Duration.between(failure.at(), now).toMillis()
                            + " ms ago; the next is tried after failureBackoff ("
                            + failureBackoff.toMillis() + " ms)",
                    failure.error()));
        }
        CompletableFuture<V> mine = new CompletableFuture<>();
        CompletableFuture<V> running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            return running;
        }
        Thread.ofPlatform().daemon().name("cache-rebuild-" + key).start(() -> runFlight(key, loader, mine));
        return mine;
    }

    private void runFlight(String key, Supplier<? extends V> loader, CompletableFuture<V> flight) {
        try {
            V value = rebuild.run(key, loader);
            failures.remove(key);
            inFlight.remove(key, flight);
            flight.complete(value);
        } catch (CacheRebuildTimeoutException e) {
            log.warn("rebuild of cache key '{}' gave up waiting for the rebuild lock", key, e);
            inFlight.remove(key, flight);
            flight.completeExceptionally(e);
        } catch (CacheRebuildException e) {
            // Logged here: callers served a stale value never see it.
            log.warn(
                    "rebuild of cache key '{}' failed; no new rebuild of it from this process for {} ms",
                    key,
                    failureBackoff.toMillis(),
                    e);
            // Record before leaving the map, so no caller can start a rebuild inside the back-off.
            failures.put(key, new Failure(clock.instant(), e));
            inFlight.remove(key, flight);
            flight.completeExceptionally(e);
        } catch (Throwable t) {
            CacheRebuildException e = new CacheRebuildException(key, "the rebuild failed: " + t, t);
            log.error("rebuild of cache key '{}' failed", key, t);
            failures.put(key, new Failure(clock.instant(), e));
            inFlight.remove(key, flight);
            flight.completeExceptionally(e);
        }
    }

    private V await(String key, CompletableFuture<V> flight, long start) {
        long remaining = waitTimeout.toNanos() - (System.nanoTime() - start);
        try {
            return flight.get(Math.max(remaining, 0), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new CacheRebuildTimeoutException(
                    key,
                    Duration.ofNanos(System.nanoTime() - start),
                    "the rebuild had not finished (no cached value within freshFor + maxStaleness to serve)",
                    null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CacheRebuildException c) {
                throw c;
            }
            throw new CacheRebuildException(key, "the rebuild failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CacheRebuildException(key, "interrupted while waiting for the rebuild", e);
        }
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

    private void requireKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(
                    "cache key must not be null or blank, was " + (key == null ? "null" : "\"" + key + "\""));
        }
        String name = lockName(key);
        if (name.length() > MAX_LOCK_NAME_LENGTH) {
            throw new IllegalArgumentException("cache key '" + key + "' is too long: the rebuild lock name '"
                    + LOCK_PREFIX + "<key>' may be at most " + MAX_LOCK_NAME_LENGTH + " characters");
        }
        client.lock(name); // validates the lock name
    }

    /** Builds a {@link CacheRebuild}. Not thread-safe. */
    public static final class Builder<V> {

        private final LockClient client;
        private final CacheStore<V> store;
        private Clock clock = Clock.systemUTC();
        private Duration freshFor = Duration.ofMinutes(5);
        private Duration maxStaleness = Duration.ofMinutes(1);
        private Duration waitTimeout = Duration.ofSeconds(10);
        private Duration failureBackoff = Duration.ofSeconds(1);

        private Builder(LockClient client, CacheStore<V> store) {
            this.client = Objects.requireNonNull(client, "client");
            this.store = Objects.requireNonNull(store, "store");
        }

        /** How long after it was written a value is served without a rebuild. Default 5 min; 1 ms to 30 days. */
        public Builder<V> freshFor(Duration freshFor) {
            this.freshFor = freshFor;
            return this;
        }

        /**
         * How long past {@code freshFor} a value may still be served while a rebuild runs.
         * Default 1 min; 0 (never serve stale: always wait for the rebuild) to 30 days.
         */
        public Builder<V> maxStaleness(Duration maxStaleness) {
            this.maxStaleness = maxStaleness;
            return this;
        }

        /**
         * How long a caller with nothing it may be served waits for the rebuild; also how long
         * a rebuild waits for the rebuild lock. Default 10 s; 1 ms to 1 h.
         */
        public Builder<V> waitTimeout(Duration waitTimeout) {
            this.waitTimeout = waitTimeout;
            return this;
        }

        /**
         * How long after a failed rebuild this process starts no new rebuild of the key.
         * Default 1 s; 0 to 1 h.
         */
        public Builder<V> failureBackoff(Duration failureBackoff) {
            this.failureBackoff = failureBackoff;
            return this;
        }

        /** The clock that stamps written values and judges their age. Default: the UTC system clock. */
        public Builder<V> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Validates and builds. Touches neither ZooKeeper nor the store.
         *
         * @throws IllegalArgumentException naming the knob and the bound it breaks
         */
        public CacheRebuild<V> build() {
            requireBetween("freshFor", freshFor, Duration.ofMillis(1), MAX_DURATION, "30 days");
            requireBetween("maxStaleness", maxStaleness, Duration.ZERO, MAX_DURATION, "30 days");
            requireBetween("waitTimeout", waitTimeout, Duration.ofMillis(1), Duration.ofHours(1), "1 h");
            requireBetween("failureBackoff", failureBackoff, Duration.ZERO, Duration.ofHours(1), "1 h");
            return new CacheRebuild<>(this);
        }

        private static void requireBetween(String knob, Duration value, Duration min, Duration max, String maxText) {
            if (value == null) {
                throw new IllegalArgumentException(knob + " must not be null");
            }
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(knob + " must be between "
                        + (min.isZero() ? "0" : min.toMillis() + " ms") + " and " + maxText + ", was " + value);
            }
        }
    }
}
