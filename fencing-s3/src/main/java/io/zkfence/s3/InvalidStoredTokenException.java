package io.zkfence.s3;

/**
 * The object carries the token metadata, but its value is not a non-negative decimal {@code long}.
 * The adapter cannot tell whether the caller's token is newer, so it refuses to write over (or
 * delete) the object, and {@link FencedBucket#read(String)} refuses to report a token for it.
 * Nothing was written.
 *
 * <p>Usually something other than this adapter wrote the object with that metadata key. Fix or
 * remove the object by hand, or configure a different
 * {@link S3FenceConfig.Builder#tokenMetadataKey(String) metadata key}.
 */
public final class InvalidStoredTokenException extends S3FenceException {

    private final String metadataKey;
    private final String storedValue;

    InvalidStoredTokenException(String bucket, String key, String metadataKey, String storedValue, Throwable cause) {
        super(
                bucket,
                key,
                location(bucket, key) + " carries metadata x-amz-meta-" + metadataKey + "='" + storedValue
                        + "', which is not a non-negative long fencing token; refusing to act on it, nothing was written",
                cause);
        this.metadataKey = metadataKey;
        this.storedValue = storedValue;
    }

    /** The user-metadata key (without the {@code x-amz-meta-} prefix) that holds the token. */
    public String metadataKey() {
        return metadataKey;
    }

    /** The unparseable value found on the object. */
    public String storedValue() {
        return storedValue;
    }
}
