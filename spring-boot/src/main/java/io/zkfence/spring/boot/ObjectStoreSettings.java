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

    /** The configured values (null: the fence's default). */
    record Values(
            String tokenMetadataKey,
            Integer maxConflictRetries,
            Duration backoffBase,
            Duration backoffMax,
            Integer etagCacheSize) {}

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
                values.tokenMetadataKey(),
                b,
                fresh,
                build,
                x -> set.tokenMetadataKey().accept(x, values.tokenMetadataKey()));
        set(
                prefix + ".max-conflict-retries",
                values.maxConflictRetries(),
                b,
                fresh,
                build,
                x -> set.maxConflictRetries().accept(x, values.maxConflictRetries()));
        // Each back-off is checked together with the other as configured: the rule is base <= max.
        set(prefix + ".backoff-max", values.backoffMax(), b, fresh, build, x -> {
            set.backoffBase().accept(x, Duration.ZERO);
            set.backoffMax().accept(x, values.backoffMax());
        });
        set(prefix + ".backoff-base", values.backoffBase(), b, fresh, build, x -> {
            if (values.backoffMax() != null) {
                set.backoffMax().accept(x, values.backoffMax());
            }
            set.backoffBase().accept(x, values.backoffBase());
        });
        set(
                prefix + ".etag-cache-size",
                values.etagCacheSize(),
                b,
                fresh,
                build,
                x -> set.etagCacheSize().accept(x, values.etagCacheSize()));
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
