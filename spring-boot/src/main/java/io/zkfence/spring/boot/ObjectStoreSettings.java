package io.zkfence.spring.boot;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The settings the two object-store fences share (zkfence.s3.* and zkfence.azure-blob.*: token
 * metadata key, conflict retries, back-off, ETag cache), set on either's config builder. Each set
 * one is checked on a fresh builder first, alone, so that a bad value fails naming its property;
 * the two back-offs are checked together as configured, the rule being base &lt;= max.
 */
final class ObjectStoreSettings {

    private ObjectStoreSettings() {}

    /**
     * The configured values (null: the fence's default): {@link ZkfenceProperties.S3}'s and
     * {@link ZkfenceProperties.AzureBlob}'s getters of the same names.
     */
    interface Values {
        String getTokenMetadataKey();

        Integer getMaxConflictRetries();

        Duration getBackoffBase();

        Duration getBackoffMax();

        Integer getEtagCacheSize();
    }

    /**
     * The config builder's setter of each shared knob.
     *
     * @param <B> the builder
     */
    record Setters<B>(
            BiConsumer<B, String> tokenMetadataKey,
            BiConsumer<B, Integer> maxConflictRetries,
            BiConsumer<B, Duration> backoffBase,
            BiConsumer<B, Duration> backoffMax,
            BiConsumer<B, Integer> etagCacheSize) {}

    /**
     * Sets {@code values} on a builder from {@code fresh} and builds the config.
     *
     * @param prefix the properties' prefix, {@code zkfence.s3} or {@code zkfence.azure-blob}
     * @param fresh a new builder with the settings that come before these (the bucket)
     * @param build the builder's build, which throws {@link IllegalArgumentException} for a bad value
     * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
     *     naming the property whose value is out of bounds
     */
    static <B, C> C build(String prefix, Supplier<B> fresh, Function<B, C> build, Setters<B> set, Values values) {
        B b = fresh.get();
        set(
                prefix + ".token-metadata-key",
                values.getTokenMetadataKey(),
                b,
                fresh,
                build,
                x -> set.tokenMetadataKey().accept(x, values.getTokenMetadataKey()));
        set(
                prefix + ".max-conflict-retries",
                values.getMaxConflictRetries(),
                b,
                fresh,
                build,
                x -> set.maxConflictRetries().accept(x, values.getMaxConflictRetries()));
        // Each back-off is checked together with the other as configured: the rule is base <= max.
        set(prefix + ".backoff-max", values.getBackoffMax(), b, fresh, build, x -> {
            set.backoffBase().accept(x, Duration.ZERO);
            set.backoffMax().accept(x, values.getBackoffMax());
        });
        set(prefix + ".backoff-base", values.getBackoffBase(), b, fresh, build, x -> {
            if (values.getBackoffMax() != null) {
                set.backoffMax().accept(x, values.getBackoffMax());
            }
            set.backoffBase().accept(x, values.getBackoffBase());
        });
        set(
                prefix + ".etag-cache-size",
                values.getEtagCacheSize(),
                b,
                fresh,
                build,
                x -> set.etagCacheSize().accept(x, values.getEtagCacheSize()));
        try {
            return build.apply(b);
        } catch (IllegalArgumentException e) {
            // Only the default back-off base can fail here: above a configured backoff-max.
            throw PropertyCheck.invalid(prefix + ".backoff-base", "(default)", e.getMessage());
        }
    }

    private static <B, C> void set(
            String property, Object value, B b, Supplier<B> fresh, Function<B, C> build, Consumer<B> apply) {
        if (value == null) {
            return;
        }
        PropertyCheck.check(property, value, () -> {
            B alone = fresh.get();
            apply.accept(alone);
            build.apply(alone);
        });
        apply.accept(b);
    }
}
