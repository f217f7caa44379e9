package io.zkfence.s3;

import io.zkfence.fencing.internal.ConditionalWriteLoop;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Immutable settings of one {@link FencedBucket}. Build with {@link #builder(String)}; every knob
 * is checked by {@link Builder#build()}, which fails with a message naming the knob and its bound
 * rather than correcting a value.
 *
 * <table>
 * <caption>Knobs</caption>
 * <tr><th>knob</th><th>unit</th><th>default</th><th>bound</th><th>meaning</th></tr>
 * <tr><td>bucket</td><td>name</td><td>(required)</td><td>3–63 characters, no '/' or whitespace</td>
 *     <td>the bucket whose objects are fenced</td></tr>
 * <tr><td>tokenMetadataKey</td><td>name</td><td>{@code fence-token}</td><td>1–64 of [a-z0-9-]</td>
 *     <td>user-metadata key holding the token; travels as header {@code x-amz-meta-<key>}</td></tr>
 * <tr><td>maxConflictRetries</td><td>count</td><td>8</td><td>0–100</td>
 *     <td>re-reads after a lost race (412/409) before {@link FenceContentionException}</td></tr>
 * <tr><td>backoffBase</td><td>Duration</td><td>5 ms</td><td>0 to backoffMax</td>
 *     <td>first pause before retrying a lost race; doubles per retry, jittered</td></tr>
 * <tr><td>backoffMax</td><td>Duration</td><td>500 ms</td><td>backoffBase to 30 s</td>
 *     <td>cap of one pause</td></tr>
 * <tr><td>etagCacheSize</td><td>entries</td><td>10 000</td><td>0–1 000 000</td>
 *     <td>keys whose last known ETag and token are remembered (LRU); 0 reads before every write</td></tr>
 * <tr><td>selfCheckKeyPrefix</td><td>key prefix</td><td>{@code zkfence-self-check/}</td>
 *     <td>1–512 characters</td><td>where the self-check writes (and deletes) its probe objects</td></tr>
 * </table>
 */
public final class S3FenceConfig {

    /** Default user-metadata key for the token (header {@code x-amz-meta-fence-token}). */
    public static final String DEFAULT_TOKEN_METADATA_KEY = "fence-token";
    /** Default prefix of the self-check's probe keys. */
    public static final String DEFAULT_SELF_CHECK_KEY_PREFIX = "zkfence-self-check/";

    private static final Pattern METADATA_KEY = Pattern.compile("[a-z0-9-]{1,64}");

    private final String bucket;
    private final String tokenMetadataKey;
    private final int maxConflictRetries;
    private final Duration backoffBase;
    private final Duration backoffMax;
    private final int etagCacheSize;
    private final String selfCheckKeyPrefix;

    private S3FenceConfig(Builder b) {
        this.bucket = b.bucket;
        this.tokenMetadataKey = b.tokenMetadataKey;
        this.maxConflictRetries = b.maxConflictRetries;
        this.backoffBase = b.backoffBase;
        this.backoffMax = b.backoffMax;
        this.etagCacheSize = b.etagCacheSize;
        this.selfCheckKeyPrefix = b.selfCheckKeyPrefix;
    }

    /** Starts a builder for the given bucket, with every other knob at its default. */
    public static Builder builder(String bucket) {
        return new Builder(bucket);
    }

    /** A config for the bucket with every other knob at its default. */
    public static S3FenceConfig of(String bucket) {
        return builder(bucket).build();
    }

    /** The fenced bucket. */
    public String bucket() {
        return bucket;
    }

    /** The user-metadata key holding the token, without the {@code x-amz-meta-} prefix. */
    public String tokenMetadataKey() {
        return tokenMetadataKey;
    }

    /** How many times a lost race is re-read and retried before giving up. */
    public int maxConflictRetries() {
        return maxConflictRetries;
    }

    /** The first pause before retrying a lost race. */
    public Duration backoffBase() {
        return backoffBase;
    }

    /** The longest single pause between retries. */
    public Duration backoffMax() {
        return backoffMax;
    }

    /** How many keys' last known ETag and token are remembered. */
    public int etagCacheSize() {
        return etagCacheSize;
    }

    /** The key prefix under which the self-check writes its probe objects. */
    public String selfCheckKeyPrefix() {
        return selfCheckKeyPrefix;
    }

    /** A builder holding this config's values. */
    public Builder toBuilder() {
        return new Builder(bucket)
                .tokenMetadataKey(tokenMetadataKey)
                .maxConflictRetries(maxConflictRetries)
                .backoffBase(backoffBase)
                .backoffMax(backoffMax)
                .etagCacheSize(etagCacheSize)
                .selfCheckKeyPrefix(selfCheckKeyPrefix);
    }

    @Override
    public String toString() {
        return "S3FenceConfig{bucket=" + bucket + ", tokenMetadataKey=" + tokenMetadataKey
                + ", maxConflictRetries=" + maxConflictRetries + ", backoffBase=" + backoffBase
                + ", backoffMax=" + backoffMax + ", etagCacheSize=" + etagCacheSize
                + ", selfCheckKeyPrefix=" + selfCheckKeyPrefix + "}";
    }

    /** Mutable builder; not thread-safe. See {@link S3FenceConfig} for the knobs and bounds. */
    public static final class Builder {

        private final String bucket;
        private String tokenMetadataKey = DEFAULT_TOKEN_METADATA_KEY;
        private int maxConflictRetries = 8;
        private Duration backoffBase = Duration.ofMillis(5);
        private Duration backoffMax = Duration.ofMillis(500);
        private int etagCacheSize = 10_000;
        private String selfCheckKeyPrefix = DEFAULT_SELF_CHECK_KEY_PREFIX;

        private Builder(String bucket) {
            this.bucket = bucket;
        }

        /** User-metadata key for the token, lower case, without {@code x-amz-meta-}. */
        public Builder tokenMetadataKey(String tokenMetadataKey) {
            this.tokenMetadataKey = tokenMetadataKey;
            return this;
        }

        /** Re-reads after a lost race before {@link FenceContentionException}; 0 means none. */
        public Builder maxConflictRetries(int maxConflictRetries) {
            this.maxConflictRetries = maxConflictRetries;
            return this;
        }

        /** First pause before retrying a lost race; doubles per retry up to backoffMax, jittered. */
        public Builder backoffBase(Duration backoffBase) {
            this.backoffBase = backoffBase;
            return this;
        }

        /** Cap of a single pause between retries. */
        public Builder backoffMax(Duration backoffMax) {
            this.backoffMax = backoffMax;
            return this;
        }

        /** Number of keys whose last known ETag and token are remembered; 0 disables the cache. */
        public Builder etagCacheSize(int etagCacheSize) {
            this.etagCacheSize = etagCacheSize;
            return this;
        }

        /** Key prefix for the self-check's probe objects (give writers PutObject/DeleteObject on it). */
        public Builder selfCheckKeyPrefix(String selfCheckKeyPrefix) {
            this.selfCheckKeyPrefix = selfCheckKeyPrefix;
            return this;
        }

        /**
         * Checks every knob and builds the config.
         *
         * @throws IllegalArgumentException naming the first knob out of bounds, its bound and value
         * @throws NullPointerException naming a knob that was set to null
         */
        public S3FenceConfig build() {
            Objects.requireNonNull(bucket, "bucket must not be null");
            if (bucket.length() < 3
                    || bucket.length() > 63
                    || bucket.chars().anyMatch(c -> c == '/' || Character.isWhitespace(c))) {
                throw new IllegalArgumentException(
                        "bucket must be 3 to 63 characters without '/' or whitespace but was '" + bucket + "'");
            }
            Objects.requireNonNull(tokenMetadataKey, "tokenMetadataKey must not be null");
            if (!METADATA_KEY.matcher(tokenMetadataKey).matches()) {
                throw new IllegalArgumentException("tokenMetadataKey must be 1 to 64 characters of [a-z0-9-] (no"
                        + " x-amz-meta- prefix, S3 lower-cases metadata keys) but was '" + tokenMetadataKey + "'");
            }
            ConditionalWriteLoop.checkKnobs(maxConflictRetries, backoffBase, backoffMax, etagCacheSize);
            Objects.requireNonNull(selfCheckKeyPrefix, "selfCheckKeyPrefix must not be null");
            if (selfCheckKeyPrefix.isBlank() || selfCheckKeyPrefix.length() > 512) {
                throw new IllegalArgumentException("selfCheckKeyPrefix must be 1 to 512 non-blank characters but was '"
                        + selfCheckKeyPrefix + "'");
            }
            return new S3FenceConfig(this);
        }
    }
}
