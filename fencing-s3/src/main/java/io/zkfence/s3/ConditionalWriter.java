package io.zkfence.s3;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.fencing.internal.FenceObserver;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The fenced-write loop shared by put, delete and multipart completion: know the key's state
 * (from the ETag cache, else one HEAD), reject a stale token, send one conditional request
 * against that state, and on a lost race (412/409/404) re-read and decide again, pausing with
 * jittered backoff, at most {@code maxConflictRetries} times.
 */
final class ConditionalWriter {

    private static final Logger log = LoggerFactory.getLogger(ConditionalWriter.class);

    /** One conditional request against {@code current}; SDK failures propagate to the loop. */
    @FunctionalInterface
    interface Attempt<R> {
        R send(ObjectState current);
    }

    private final String bucket;
    private final StateReader reader;
    private final EtagCache cache;
    private final Backoff backoff;
    private final int maxConflictRetries;
    private final FenceObserver observer;

    ConditionalWriter(String bucket, StateReader reader, EtagCache cache, Backoff backoff, int maxConflictRetries) {
        this(bucket, reader, cache, backoff, maxConflictRetries, FenceObserver.NONE);
    }

    ConditionalWriter(
            String bucket,
            StateReader reader,
            EtagCache cache,
            Backoff backoff,
            int maxConflictRetries,
            FenceObserver observer) {
        this.observer = observer;
        this.bucket = bucket;
        this.reader = reader;
        this.cache = cache;
        this.backoff = backoff;
        this.maxConflictRetries = maxConflictRetries;
    }

    /**
     * Throws when {@code state} carries a higher token, or when the object is gone but this
     * process saw a higher token on it (a lower token must not re-create it as a first write).
     */
    void rejectStale(String key, long token, String operation, ObjectState state) {
        if (state.rejects(token)) {
            observer.rejectedStale(operation);
            throw new S3StaleTokenException(bucket, key, operation, token, state.storedToken());
        }
        if (!state.exists()) {
            long seen = cache.seenAbove(key, token);
            if (seen > 0) {
                observer.rejectedStale(operation);
                throw new S3StaleTokenException(bucket, key, operation, token, seen, true);
            }
        }
    }

    <R> R run(String key, long token, String operation, Attempt<R> attempt) {
        ObjectState state = cache.usableFor(key, token);
        int lostRaces = 0;
        while (true) {
            if (state == null) {
                state = reader.head(key);
            }
            rejectStale(key, token, operation, state);
            try {
                R result = attempt.send(state);
                observer.accepted(operation);
                return result;
            } catch (SdkException e) {
                cache.forget(key);
                if (!S3Errors.isLostRace(e)) {
                    throw S3Errors.translate(e, bucket, key, operation, true);
                }
                lostRaces++;
                observer.lostRace(operation);
                // Decide again on what the store holds now: a newer token that won is a stale
                // rejection, never an error loop.
                state = reader.head(key);
                rejectStale(key, token, operation, state);
                if (lostRaces > maxConflictRetries) {
                    observer.conflict(operation);
                    throw new FenceContentionException(
                            bucket,
                            key,
                            operation,
                            token,
                            lostRaces,
                            "every attempt lost a race against writes carrying an equal or lower token"
                                    + " (maxConflictRetries=" + maxConflictRetries + ")",
                            e);
                }
                log.debug(
                        "{} on {} with token {} lost race {} ({}); retrying",
                        operation,
                        S3FenceException.location(bucket, key),
                        token,
                        lostRaces,
                        e.getMessage());
                pause(lostRaces, key);
            }
        }
    }

    /**
     * Pauses before retry {@code retry} of a lost race on {@code key}.
     *
     * @throws S3FenceException when interrupted; the interrupt flag is restored first
     */
    void pause(int retry, String key) {
        long nanos = backoff.delayNanos(retry);
        if (nanos == 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new S3FenceException(
                    bucket,
                    key,
                    "interrupted while backing off before retry " + retry + " on "
                            + S3FenceException.location(bucket, key) + "; nothing was written by this attempt",
                    e);
        }
    }
}
