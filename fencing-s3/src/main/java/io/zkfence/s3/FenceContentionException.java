package io.zkfence.s3;

/**
 * Every conditional attempt lost a race against concurrent writes that carried an equal or lower
 * token, and the retry bound ({@link S3FenceConfig#maxConflictRetries()}) is used up. Nothing was
 * written by the call; it is safe to retry it.
 *
 * <p>Writers holding the same lock grant (equal tokens) that write one key from several threads
 * or processes cause this; a newer grant winning the race is reported as
 * {@link S3StaleTokenException} instead.
 */
public final class FenceContentionException extends S3FenceException {

    private final long token;
    private final int attempts;

    FenceContentionException(
            String bucket, String key, String operation, long token, int attempts, String detail, Throwable cause) {
        super(
                bucket,
                key,
                operation + " on " + location(bucket, key) + " with token " + token + " gave up after " + attempts
                        + " conditional attempt(s): " + detail + "; nothing was written",
                cause);
        this.token = token;
        this.attempts = attempts;
    }

    /** The token the caller presented. */
    public long token() {
        return token;
    }

    /** How many conditional requests were sent before giving up. */
    public int attempts() {
        return attempts;
    }
}
