package io.zkfence.azure.blob;

import io.zkfence.fencing.internal.ConditionalWriteLoop;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Immutable settings of a {@link FencedContainer}. Build with {@link #builder()}; every knob is
 * checked by {@link Builder#build()}, which fails naming the knob and its bound rather than
 * correcting a value.
 *
 * <table>
 * <caption>Knobs</caption>
 * <tr><th>knob</th><th>unit</th><th>default</th><th>bound</th><th>meaning</th></tr>
 * <tr><td>tokenMetadataKey</td><td>name</td><td>{@code fence_token}</td><td>1–64 of [a-z0-9_],
 *     starting with a letter or '_' (Azure metadata names are C# identifiers)</td>
 *     <td>metadata name holding the token; travels as header {@code x-ms-meta-<name>}</td></tr>
 * <tr><td>maxConflictRetries</td><td>count</td><td>8</td><td>0–100</td>
 *     <td>re-reads after a lost race (412, 409) before {@link AzureBlobContentionException}</td></tr>
 * <tr><td>backoffBase</td><td>Duration</td><td>5 ms</td><td>0 to backoffMax</td>
 *     <td>first pause before retrying a lost race; doubles per retry, jittered</td></tr>
 * <tr><td>backoffMax</td><td>Duration</td><td>500 ms</td><td>backoffBase to 30 s</td>
 *     <td>cap of one pause</td></tr>
 * <tr><td>etagCacheSize</td><td>entries</td><td>10 000</td><td>0–1 000 000</td>
 *     <td>blobs whose last known ETag and token are remembered (LRU); 0 reads before every write</td></tr>
 * <tr><td>selfCheckPrefix</td><td>blob name prefix</td><td>{@code zkfence-self-check/}</td>
 *     <td>1–512 characters</td><td>where the self-check writes (and deletes) its probe blobs</td></tr>
 * </table>
 */
public final class AzureBlobFenceConfig {

    /** Default metadata name of the token (header {@code x-ms-meta-fence_token}). */
    public static final String DEFAULT_TOKEN_METADATA_KEY = "fence_token";
    /** Default prefix of the self-check's probe blobs. */
    public static final String DEFAULT_SELF_CHECK_PREFIX = "zkfence-self-check/";

    private static final Pattern METADATA_KEY = Pattern.compile("[a-z_][a-z0-9_]{0,63}");

    private final String tokenMetadataKey;
    private final int maxConflictRetries;
    private final Duration backoffBase;
    private final Duration backoffMax;
    private final int etagCacheSize;
    private final String selfCheckPrefix;

    private AzureBlobFenceConfig(Builder b) {
        this.tokenMetadataKey = b.tokenMetadataKey;
        this.maxConflictRetries = b.maxConflictRetries;
        this.backoffBase = b.backoffBase;
        this.backoffMax = b.backoffMax;
        this.etagCacheSize = b.etagCacheSize;
        this.selfCheckPrefix = b.selfCheckPrefix;
    }

    /**
     * A builder with every knob at its default.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Every knob at its default.
     *
     * @return the config
     */
    public static AzureBlobFenceConfig defaults() {
        return builder().build();
    }

    /**
     * The metadata name holding the token, without {@code x-ms-meta-}.
     *
     * @return the name
     */
    public String tokenMetadataKey() {
        return tokenMetadataKey;
    }

    /**
     * How many lost races are re-read and retried before giving up.
     *
     * @return the count
     */
    public int maxConflictRetries() {
        return maxConflictRetries;
    }

    /**
     * The first pause before retrying a lost race.
     *
     * @return the pause
     */
    public Duration backoffBase() {
        return backoffBase;
    }

    /**
     * The longest single pause between retries.
     *
     * @return the pause
     */
    public Duration backoffMax() {
        return backoffMax;
    }

    /**
     * How many blobs' last known ETag and token are remembered.
     *
     * @return the count
     */
    public int etagCacheSize() {
        return etagCacheSize;
    }

    /**
     * The blob name prefix of the self-check's probes.
     *
     * @return the prefix
     */
    public String selfCheckPrefix() {
        return selfCheckPrefix;
    }

    /**
     * A builder holding this config's values.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return builder()
                .tokenMetadataKey(tokenMetadataKey)
                .maxConflictRetries(maxConflictRetries)
                .backoffBase(backoffBase)
                .backoffMax(backoffMax)
                .etagCacheSize(etagCacheSize)
                .selfCheckPrefix(selfCheckPrefix);
    }

    @Override
    public String toString() {
        return "AzureBlobFenceConfig{tokenMetadataKey=" + tokenMetadataKey + ", maxConflictRetries="
                + maxConflictRetries + ", backoffBase=" + backoffBase + ", backoffMax=" + backoffMax
                + ", etagCacheSize=" + etagCacheSize + ", selfCheckPrefix=" + selfCheckPrefix + "}";
    }

    /** Mutable builder; not thread-safe. See {@link AzureBlobFenceConfig} for the knobs and bounds. */
    public static final class Builder {

        private String tokenMetadataKey = DEFAULT_TOKEN_METADATA_KEY;
        private int maxConflictRetries = 8;
        private Duration backoffBase = Duration.ofMillis(5);
        private Duration backoffMax = Duration.ofMillis(500);
        private int etagCacheSize = 10_000;
        private String selfCheckPrefix = DEFAULT_SELF_CHECK_PREFIX;

        private Builder() {}

        /**
         * Metadata name of the token.
         *
         * @param tokenMetadataKey lower case, a C# identifier
         * @return this builder
         */
        public Builder tokenMetadataKey(String tokenMetadataKey) {
            this.tokenMetadataKey = tokenMetadataKey;
            return this;
        }

        /**
         * Re-reads after a lost race before {@link AzureBlobContentionException}; 0 means none.
         *
         * @param maxConflictRetries 0–100
         * @return this builder
         */
        public Builder maxConflictRetries(int maxConflictRetries) {
            this.maxConflictRetries = maxConflictRetries;
            return this;
        }

        /**
         * First pause before retrying a lost race.
         *
         * @param backoffBase 0 to backoffMax
         * @return this builder
         */
        public Builder backoffBase(Duration backoffBase) {
            this.backoffBase = backoffBase;
            return this;
        }

        /**
         * Cap of a single pause.
         *
         * @param backoffMax up to 30 s
         * @return this builder
         */
        public Builder backoffMax(Duration backoffMax) {
            this.backoffMax = backoffMax;
            return this;
        }

        /**
         * Blobs whose last known ETag and token are remembered; 0 disables the cache.
         *
         * @param etagCacheSize 0–1 000 000
         * @return this builder
         */
        public Builder etagCacheSize(int etagCacheSize) {
            this.etagCacheSize = etagCacheSize;
            return this;
        }

        /**
         * Blob name prefix of the self-check's probes (writers need write and delete rights there).
         *
         * @param selfCheckPrefix 1–512 characters
         * @return this builder
         */
        public Builder selfCheckPrefix(String selfCheckPrefix) {
            this.selfCheckPrefix = selfCheckPrefix;
            return this;
        }

        /**
         * Checks every knob and builds the config.
         *
         * @return the config
         * @throws IllegalArgumentException naming the first knob out of bounds, its bound and value
         * @throws NullPointerException naming a knob set to null
         */
        public AzureBlobFenceConfig build() {
            Objects.requireNonNull(tokenMetadataKey, "tokenMetadataKey must not be null");
            if (!METADATA_KEY.matcher(tokenMetadataKey).matches()) {
                throw new IllegalArgumentException("tokenMetadataKey must be 1 to 64 characters of [a-z0-9_] starting"
                        + " with a letter or '_' (Azure metadata names are C# identifiers; no x-ms-meta- prefix) but"
                        + " was '" + tokenMetadataKey + "'");
            }
            ConditionalWriteLoop.checkKnobs(maxConflictRetries, backoffBase, backoffMax, etagCacheSize);
            Objects.requireNonNull(selfCheckPrefix, "selfCheckPrefix must not be null");
            if (selfCheckPrefix.isBlank() || selfCheckPrefix.length() > 512) {
                throw new IllegalArgumentException(
                        "selfCheckPrefix must be 1 to 512 non-blank characters but was '" + selfCheckPrefix + "'");
            }
            return new AzureBlobFenceConfig(this);
        }
    }
}
