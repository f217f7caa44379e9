package io.zkfence.s3;

/**
 * The store does not enforce conditional requests, so fencing cannot work on it and the adapter
 * refuses to write. Thrown by the self-check, which sends probe requests with preconditions that
 * must fail (for example a PUT with {@code If-Match} on a wrong ETag) before the first fenced
 * write of each kind; a store that accepts them would silently let stale writers through.
 *
 * <p>The verdict is remembered per {@link FencedBucket}: every later call of the same kind fails
 * the same way without probing again.
 */
public final class ConditionalWritesUnsupportedException extends S3FenceException {

    private final String probeKey;

    ConditionalWritesUnsupportedException(String bucket, String key, String probeKey, String finding) {
        super(
                bucket,
                key,
                "bucket '" + bucket + "' does not enforce conditional requests: " + finding + " (probe key '"
                        + probeKey + "'). Fencing cannot work on this store, so nothing was written to "
                        + location(bucket, key),
                null);
        this.probeKey = probeKey;
    }

    /** The key the self-check probed with. */
    public String probeKey() {
        return probeKey;
    }
}
