package io.zkfence.s3;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import java.util.Objects;

/**
 * Base of the exceptions the S3 fencing adapter throws, a stale token excepted
 * ({@link S3StaleTokenException}, below). Unchecked; always names the bucket and the object key
 * the failed call was about, and keeps the cause. Catch {@link FencingException} to handle every
 * failure of this module and of every other adapter, stale tokens included.
 *
 * <p>Subclasses say what went wrong: {@link FenceContentionException} (retries exhausted), {@link ConditionalWritesUnsupportedException}
 * (the store ignores conditional requests), {@link InvalidStoredTokenException} (the stored token
 * metadata is not a number) and {@link StoreException} (the store refused or failed the request).
 * This base class itself is thrown when the calling thread is interrupted while the adapter
 * waits between retries; the interrupt flag is restored first.
 *
 * <p>A stale token is not one of them: {@link S3StaleTokenException} extends the shared
 * {@link StaleTokenException}, so that one catch handles a stale token from any adapter. Both this
 * class and it extend {@link FencingException}: catch that to handle every failure of this module,
 * stale tokens included.
 *
 * <p>Called {@code io.zkfence.s3.FenceException} before 0.2.0.
 */
public class S3FenceException extends FencingException {

    private final String bucket;
    private final String key;

    /**
     * @param bucket the bucket the call was about
     * @param key the object key the call was about
     * @param message what went wrong, in words that stand on their own
     * @param cause the underlying failure, or {@code null}
     */
    S3FenceException(String bucket, String key, String message, Throwable cause) {
        super(message, cause);
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        this.key = Objects.requireNonNull(key, "key");
    }

    /** The bucket the failed call was about. */
    public String bucket() {
        return bucket;
    }

    /** The object key the failed call was about. */
    public String key() {
        return key;
    }

    static String location(String bucket, String key) {
        return "s3://" + bucket + "/" + key;
    }
}
