package io.zkfence.redis;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Immutable settings of a {@link RedisFence}. Build with {@link #builder()}; {@link Builder#build()}
 * checks every knob and fails naming it rather than correcting a value.
 *
 * <table>
 * <caption>Knobs</caption>
 * <tr><th>knob</th><th>default</th><th>bound</th><th>meaning</th></tr>
 * <tr><td>keyPrefix</td><td>{@code zkfence:}</td><td>1–64 printable characters, no '{', '}' or
 *     whitespace</td><td>prefix of the fence's own keys: fence records
 *     {@code <prefix>fence:...} and slot floors {@code <prefix>floor:{...}}; two fences with
 *     different prefixes on one server are independent</td></tr>
 * <tr><td>restartPolicy</td><td>{@link RestartPolicy#REFUSE_UNTIL_RESEEDED}</td><td></td>
 *     <td>what a fenced call does when the server restarted or failed over since its slot was
 *     seeded</td></tr>
 * <tr><td>reseedFrom</td><td>none</td><td></td><td>where the fence gets a fresh token to seed
 *     again by itself when it finds a slot unseeded or its server restarted; without it, such
 *     calls fail with {@link RedisFenceNotSeededException}</td></tr>
 * </table>
 */
public final class RedisFenceConfig {

    /** Default prefix of the fence's own keys. */
    public static final String DEFAULT_KEY_PREFIX = "zkfence:";

    /** What a fenced call does when the server restarted or failed over since its slot was seeded. */
    public enum RestartPolicy {
        /**
         * Refuse every fenced call in the slot ({@link RedisFenceNotSeededException}) until it is
         * seeded again: right whatever the server's persistence, since a server that restarted
         * may have come back with older fence records than it had accepted. Each call reads the
         * server's {@code run_id} ({@code INFO server}) inside its script.
         */
        REFUSE_UNTIL_RESEEDED,
        /**
         * Trust the records the server came back with. Right only when the server loses no
         * acknowledged write on a restart: one primary with {@code appendonly yes} and
         * {@code appendfsync always}, no failover to an asynchronous replica. A server that lost
         * everything (no persistence, {@code FLUSHALL}) is still caught: its floors are gone.
         */
        TRUST_PERSISTENCE
    }

    private final String keyPrefix;
    private final RestartPolicy restartPolicy;
    private final LongSupplier reseedFrom;

    private RedisFenceConfig(Builder b) {
        this.keyPrefix = b.keyPrefix;
        this.restartPolicy = b.restartPolicy;
        this.reseedFrom = b.reseedFrom;
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
    public static RedisFenceConfig defaults() {
        return builder().build();
    }

    /**
     * Prefix of the fence's own keys.
     *
     * @return the prefix
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * What a call does after a restart of the server.
     *
     * @return the policy
     */
    public RestartPolicy restartPolicy() {
        return restartPolicy;
    }

    /**
     * Where fresh tokens for seeding come from, when set.
     *
     * @return the supplier, or null
     */
    public LongSupplier reseedFrom() {
        return reseedFrom;
    }

    /**
     * A builder holding this config's values.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return builder().keyPrefix(keyPrefix).restartPolicy(restartPolicy).reseedFrom(reseedFrom);
    }

    @Override
    public String toString() {
        return "RedisFenceConfig{keyPrefix=" + keyPrefix + ", restartPolicy=" + restartPolicy + ", reseedFrom="
                + (reseedFrom == null ? "none" : "set") + "}";
    }

    /** Mutable builder; not thread-safe. See {@link RedisFenceConfig} for the knobs. */
    public static final class Builder {

        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private RestartPolicy restartPolicy = RestartPolicy.REFUSE_UNTIL_RESEEDED;
        private LongSupplier reseedFrom;

        private Builder() {}

        /**
         * Prefix of the fence's own keys.
         *
         * @param keyPrefix 1–64 printable characters without '{', '}' or whitespace
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * What a fenced call does after a restart or failover of the server.
         *
         * @param restartPolicy the policy
         * @return this builder
         */
        public Builder restartPolicy(RestartPolicy restartPolicy) {
            this.restartPolicy = restartPolicy;
            return this;
        }

        /**
         * Lets the fence seed again by itself when it finds a slot unseeded or its server
         * restarted: it asks {@code freshTokens} for a token and seeds every slot with it, then
         * decides the call again. The token must be issued after the loss, and higher than every
         * token issued before it: with lock-core, acquire and release any lock of the ensemble
         * and return its token (tokens rise across all the locks of an ensemble). The call that
         * found the loss is then refused as stale (its token is older), and so is every holder
         * that acquired before; they acquire again. {@code null} turns it off (the default).
         *
         * @param freshTokens a source of tokens issued after the moment it is called
         * @return this builder
         */
        public Builder reseedFrom(LongSupplier freshTokens) {
            this.reseedFrom = freshTokens;
            return this;
        }

        /**
         * Checks every knob and builds the config.
         *
         * @return the config
         * @throws IllegalArgumentException naming the knob out of bounds
         * @throws NullPointerException naming a knob set to null
         */
        public RedisFenceConfig build() {
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
            Objects.requireNonNull(restartPolicy, "restartPolicy must not be null");
            if (keyPrefix.isEmpty()
                    || keyPrefix.length() > 64
                    || keyPrefix.chars().anyMatch(c -> c == '{' || c == '}' || c < 0x21 || c == 0x7F)) {
                throw new IllegalArgumentException("keyPrefix must be 1 to 64 printable characters without '{', '}' or"
                        + " whitespace (a brace would change the hash slot of the fence's keys) but was '" + keyPrefix
                        + "'");
            }
            return new RedisFenceConfig(this);
        }
    }
}
