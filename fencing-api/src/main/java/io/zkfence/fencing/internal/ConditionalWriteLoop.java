package io.zkfence.fencing.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The fenced conditional write of an object store, written once for every store that has
 * ETag preconditions (fencing-s3, fencing-azure-blob): know the key's state (from the
 * {@link StateCache}, else one read), reject a stale token, send one conditional request against
 * that state, and when the request loses a race (the store refused its precondition) read again
 * and decide again, pausing with jittered backoff, at most {@code maxConflictRetries} times. A
 * newer token that won the race is a stale rejection, never an error loop. Not API.
 *
 * <p>What differs per store stays with the store's fence, behind {@link Store}: how a key is read,
 * which failures are a lost race, and the adapter's own exceptions, named after it.
 */
public final class ConditionalWriteLoop {

    private static final System.Logger log = System.getLogger(ConditionalWriteLoop.class.getName());

    /**
     * One conditional request against the state it was decided on.
     *
     * @param <R> what the request answers
     */
    @FunctionalInterface
    public interface Attempt<R> {

        /**
         * Sends the request.
         *
         * @param current the state the token was checked against: its ETag is the precondition
         * @return the result
         */
        R send(ObjectState current);
    }

    /** The store's side of the loop: its reads, its failures and its exceptions. */
    public interface Store {

        /**
         * Reads the key's state now (a HEAD, a get-properties), remembering it in the cache.
         *
         * @param key the key
         * @return the state
         */
        ObjectState read(String key);

        /**
         * Whether {@code failure} came from the store's client (a failed request), as opposed to a
         * programming error or the adapter's own exception, which the loop lets through as it is.
         *
         * @param failure what an attempt threw
         * @return true for a store failure
         */
        boolean isStoreFailure(RuntimeException failure);

        /**
         * Whether a store failure means the object was not in the state the request expected
         * (412, a conflicting conditional write, a deleted object): read again and decide again.
         *
         * @param failure a store failure
         * @return true for a lost race
         */
        boolean isLostRace(RuntimeException failure);

        /**
         * The adapter's exception for a store failure that is not a lost race.
         *
         * @param failure the store failure
         * @param key the key
         * @param operation the fenced call
         * @return the exception to throw
         */
        RuntimeException failed(RuntimeException failure, String key, String operation);

        /**
         * The adapter's stale-token exception.
         *
         * @param key the key
         * @param operation the fenced call
         * @param presented the caller's token
         * @param stored the higher token
         * @param objectGone true when the object is gone and {@code stored} is what this process saw on it
         * @return the exception to throw
         */
        RuntimeException stale(String key, String operation, long presented, long stored, boolean objectGone);

        /**
         * The adapter's exception for a call whose every attempt lost a race to an equal or lower
         * token.
         *
         * @param key the key
         * @param operation the fenced call
         * @param token the caller's token
         * @param attempts the conditional requests sent
         * @param detail why it gave up
         * @param lastLoss the last lost race
         * @return the exception to throw
         */
        RuntimeException contention(
                String key, String operation, long token, int attempts, String detail, RuntimeException lastLoss);

        /**
         * The adapter's exception for an interrupt while pausing between attempts.
         *
         * @param key the key
         * @param retry the retry it was waiting for
         * @param cause the interrupt
         * @return the exception to throw (the interrupt flag is restored already)
         */
        RuntimeException interrupted(String key, int retry, InterruptedException cause);

        /**
         * The key's location for log lines ({@code s3://bucket/key}).
         *
         * @param key the key
         * @return its location
         */
        String location(String key);
    }

    /** The most lost races a write may retry, in every store's config. */
    public static final int MAX_CONFLICT_RETRIES_BOUND = 100;

    /** The longest pause between two attempts, in every store's config. */
    public static final Duration BACKOFF_MAX_BOUND = Duration.ofSeconds(30);

    /** The largest {@link StateCache}, in every store's config. */
    public static final int ETAG_CACHE_SIZE_BOUND = 1_000_000;

    private final Store store;
    private final StateCache cache;
    private final Backoff backoff;
    private final int maxConflictRetries;
    private final FenceObserver observer;

    /**
     * The loop of one fence.
     *
     * @param store the store's side
     * @param cache the fence's state cache
     * @param backoff the pauses between attempts
     * @param maxConflictRetries how many lost races are retried before giving up
     * @param observer told of every outcome
     */
    public ConditionalWriteLoop(
            Store store, StateCache cache, Backoff backoff, int maxConflictRetries, FenceObserver observer) {
        this.store = store;
        this.cache = cache;
        this.backoff = backoff;
        this.maxConflictRetries = maxConflictRetries;
        this.observer = observer;
    }

    /**
     * Checks the knobs of the loop and its cache, which every store's config has under these names,
     * against the bounds above: for the configs' {@code build()}, which document them.
     *
     * @param maxConflictRetries 0 to {@value #MAX_CONFLICT_RETRIES_BOUND}
     * @param backoffBase 0 to {@code backoffMax}
     * @param backoffMax 0 to {@link #BACKOFF_MAX_BOUND}
     * @param etagCacheSize 0 to {@value #ETAG_CACHE_SIZE_BOUND}
     * @throws IllegalArgumentException naming the first knob out of bounds, its bound and value
     * @throws NullPointerException naming a back-off that is null
     */
    public static void checkKnobs(
            int maxConflictRetries, Duration backoffBase, Duration backoffMax, int etagCacheSize) {
        if (maxConflictRetries < 0 || maxConflictRetries > MAX_CONFLICT_RETRIES_BOUND) {
            throw new IllegalArgumentException("maxConflictRetries must be between 0 and " + MAX_CONFLICT_RETRIES_BOUND
                    + " but was " + maxConflictRetries);
        }
        Objects.requireNonNull(backoffBase, "backoffBase must not be null");
        Objects.requireNonNull(backoffMax, "backoffMax must not be null");
        if (backoffMax.isNegative() || backoffMax.compareTo(BACKOFF_MAX_BOUND) > 0) {
            throw new IllegalArgumentException(
                    "backoffMax must be between 0 and " + BACKOFF_MAX_BOUND + " but was " + backoffMax);
        }
        if (backoffBase.isNegative() || backoffBase.compareTo(backoffMax) > 0) {
            throw new IllegalArgumentException(
                    "backoffBase must be between 0 and backoffMax (" + backoffMax + ") but was " + backoffBase);
        }
        if (etagCacheSize < 0 || etagCacheSize > ETAG_CACHE_SIZE_BOUND) {
            throw new IllegalArgumentException(
                    "etagCacheSize must be between 0 and " + ETAG_CACHE_SIZE_BOUND + " but was " + etagCacheSize);
        }
    }

    /**
     * Throws the store's stale-token exception when {@code state} carries a higher token, or when
     * the object is gone but this process saw a higher token on it (a lower token must not
     * re-create it as a first write).
     *
     * @param key the key
     * @param token the caller's token
     * @param operation the fenced call
     * @param state the key's state
     */
    public void rejectStale(String key, long token, String operation, ObjectState state) {
        if (state.rejects(token)) {
            observer.rejectedStale(operation);
            throw store.stale(key, operation, token, state.storedToken(), false);
        }
        if (!state.exists()) {
            long seen = cache.seenAbove(key, token);
            if (seen > 0) {
                observer.rejectedStale(operation);
                throw store.stale(key, operation, token, seen, true);
            }
        }
    }

    /**
     * Runs {@code attempt} until it is accepted, the token proves stale, or the retries run out.
     *
     * @param key the key
     * @param token the caller's token
     * @param operation the fenced call, for exceptions and observers
     * @param attempt one conditional request
     * @param <R> its result
     * @return the accepted attempt's result
     */
    public <R> R run(String key, long token, String operation, Attempt<R> attempt) {
        ObjectState state = cache.usableFor(key, token);
        int lostRaces = 0;
        while (true) {
            if (state == null) {
                state = store.read(key);
            }
            rejectStale(key, token, operation, state);
            try {
                R result = attempt.send(state);
                observer.accepted(operation);
                return result;
            } catch (RuntimeException e) {
                if (!store.isStoreFailure(e)) {
                    throw e;
                }
                cache.forget(key);
                if (!store.isLostRace(e)) {
                    throw store.failed(e, key, operation);
                }
                lostRaces++;
                observer.lostRace(operation);
                // Decide again on what the store holds now: a newer token that won is a stale
                // rejection, never an error loop.
                state = store.read(key);
                rejectStale(key, token, operation, state);
                if (lostRaces > maxConflictRetries) {
                    observer.conflict(operation);
                    throw store.contention(
                            key,
                            operation,
                            token,
                            lostRaces,
                            "every attempt lost a race against writes carrying an equal or lower token"
                                    + " (maxConflictRetries=" + maxConflictRetries + ")",
                            e);
                }
                if (log.isLoggable(System.Logger.Level.DEBUG)) {
                    log.log(
                            System.Logger.Level.DEBUG,
                            operation + " on " + store.location(key) + " with token " + token + " lost race "
                                    + lostRaces + " (" + e.getMessage() + "); retrying");
                }
                pause(lostRaces, key);
            }
        }
    }

    /**
     * Pauses before retry {@code retry} of a lost race on {@code key}.
     *
     * @param retry which retry, from 1
     * @param key the key
     */
    public void pause(int retry, String key) {
        long nanos = backoff.delayNanos(retry);
        if (nanos == 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw store.interrupted(key, retry, e);
        }
    }
}
