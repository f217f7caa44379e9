package io.zkfence.s3;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.fencing.internal.ConditionalWriteLoop;
import io.zkfence.fencing.internal.FenceObserver;
import io.zkfence.fencing.internal.ObjectState;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The fenced-write loop shared by put, delete and multipart completion: fencing-api's
 * {@link ConditionalWriteLoop} (know the key's state from the ETag cache, else one HEAD; reject a
 * stale token; send one conditional request against that state; on a lost race, 412/409/404,
 * re-read and decide again, pausing with jittered backoff, at most {@code maxConflictRetries}
 * times), with S3's reads, failures and exceptions.
 */
final class ConditionalWriter {

    /** One conditional request against {@code current}; SDK failures propagate to the loop. */
    @FunctionalInterface
    interface Attempt<R> {
        R send(ObjectState current);
    }

    private final ConditionalWriteLoop loop;

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
        this.loop = new ConditionalWriteLoop(new S3Store(bucket, reader), cache, backoff, maxConflictRetries, observer);
    }

    /**
     * Throws when {@code state} carries a higher token, or when the object is gone but this
     * process saw a higher token on it (a lower token must not re-create it as a first write).
     */
    void rejectStale(String key, long token, String operation, ObjectState state) {
        loop.rejectStale(key, token, operation, state);
    }

    <R> R run(String key, long token, String operation, Attempt<R> attempt) {
        return loop.run(key, token, operation, attempt::send);
    }

    /**
     * Pauses before retry {@code retry} of a lost race on {@code key}.
     *
     * @throws S3FenceException when interrupted; the interrupt flag is restored first
     */
    void pause(int retry, String key) {
        loop.pause(retry, key);
    }

    /** S3's side of the loop. */
    private record S3Store(String bucket, StateReader reader) implements ConditionalWriteLoop.Store {

        @Override
        public ObjectState read(String key) {
            return reader.head(key);
        }

        @Override
        public boolean isStoreFailure(RuntimeException failure) {
            return failure instanceof SdkException;
        }

        @Override
        public boolean isLostRace(RuntimeException failure) {
            return S3Errors.isLostRace((SdkException) failure);
        }

        @Override
        public RuntimeException failed(RuntimeException failure, String key, String operation) {
            return S3Errors.translate((SdkException) failure, bucket, key, operation, true);
        }

        @Override
        public RuntimeException stale(String key, String operation, long presented, long stored, boolean objectGone) {
            return objectGone
                    ? new S3StaleTokenException(bucket, key, operation, presented, stored, true)
                    : new S3StaleTokenException(bucket, key, operation, presented, stored);
        }

        @Override
        public RuntimeException contention(
                String key, String operation, long token, int attempts, String detail, RuntimeException lastLoss) {
            return new FenceContentionException(bucket, key, operation, token, attempts, detail, lastLoss);
        }

        @Override
        public RuntimeException interrupted(String key, int retry, InterruptedException cause) {
            return new S3FenceException(
                    bucket,
                    key,
                    "interrupted while backing off before retry " + retry + " on "
                            + S3FenceException.location(bucket, key) + "; nothing was written by this attempt",
                    cause);
        }

        @Override
        public String location(String key) {
            return S3FenceException.location(bucket, key);
        }
    }
}
