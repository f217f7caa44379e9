package io.zkfence.spring.boot;

import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A {@link FencedBucket} over the application's {@link S3Client}, when fencing-s3 is on the class
 * path and any {@code zkfence.s3.*} property is set ({@code zkfence.s3.bucket} is then required).
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "zkfence.enabled", matchIfMissing = true)
@ConditionalOnClass({FencedBucket.class, S3Client.class})
@ConditionalOnBean(S3Client.class)
@ConditionalOnAnyPropertyUnder("zkfence.s3")
@EnableConfigurationProperties(ZkfenceProperties.class)
public class ZkfenceS3AutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceS3AutoConfiguration() {}

    /**
     * The fenced bucket.
     *
     * @param s3         the application's S3 client
     * @param properties the {@code zkfence.*} settings
     * @return the bucket (its conditional writes checked first if asked to)
     */
    @Bean
    @ConditionalOnMissingBean(FencedBucket.class)
    public FencedBucket zkfenceFencedBucket(S3Client s3, ZkfenceProperties properties) {
        ZkfenceProperties.S3 p = properties.getS3();
        String bucket = p.getBucket();
        if (bucket == null || bucket.isBlank()) {
            throw PropertyCheck.invalid(
                    "zkfence.s3.bucket", bucket, "must be set when any zkfence.s3.* property is set");
        }
        PropertyCheck.check("zkfence.s3.bucket", bucket, () -> S3FenceConfig.of(bucket));
        S3FenceConfig.Builder b = S3FenceConfig.builder(bucket);
        set(
                bucket,
                b,
                "zkfence.s3.token-metadata-key",
                p.getTokenMetadataKey(),
                x -> x.tokenMetadataKey(p.getTokenMetadataKey()));
        set(
                bucket,
                b,
                "zkfence.s3.max-conflict-retries",
                p.getMaxConflictRetries(),
                x -> x.maxConflictRetries(p.getMaxConflictRetries()));
        // Each back-off is checked together with the other as configured: the rule is base <= max.
        set(
                bucket,
                b,
                "zkfence.s3.backoff-max",
                p.getBackoffMax(),
                x -> x.backoffBase(Duration.ZERO).backoffMax(p.getBackoffMax()));
        set(bucket, b, "zkfence.s3.backoff-base", p.getBackoffBase(), x -> {
            if (p.getBackoffMax() != null) {
                x.backoffMax(p.getBackoffMax());
            }
            return x.backoffBase(p.getBackoffBase());
        });
        set(bucket, b, "zkfence.s3.etag-cache-size", p.getEtagCacheSize(), x -> x.etagCacheSize(p.getEtagCacheSize()));
        S3FenceConfig config;
        try {
            config = b.build();
        } catch (IllegalArgumentException e) {
            // Only the default back-off base can fail here: above a configured backoff-max.
            throw PropertyCheck.invalid("zkfence.s3.backoff-base", "(default)", e.getMessage());
        }
        FencedBucket fenced = FencedBucket.create(s3, config);
        if (p.isVerifyOnStartup()) {
            fenced.verifyConditionalWrites();
        }
        return fenced;
    }

    private static void set(
            String bucket,
            S3FenceConfig.Builder b,
            String property,
            Object value,
            UnaryOperator<S3FenceConfig.Builder> apply) {
        if (value == null) {
            return;
        }
        PropertyCheck.check(
                property,
                value,
                () -> apply.apply(S3FenceConfig.builder(bucket)).build());
        apply.apply(b);
    }
}
