package io.zkfence.spring.boot;

import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
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
        String bucket =
                PropertyCheck.required("zkfence.s3.bucket", p.getBucket(), "when any zkfence.s3.* property is set");
        PropertyCheck.check("zkfence.s3.bucket", bucket, () -> S3FenceConfig.of(bucket));
        S3FenceConfig config = ObjectStoreSettings.build(
                "zkfence.s3",
                () -> S3FenceConfig.builder(bucket),
                S3FenceConfig.Builder::build,
                new ObjectStoreSettings.Setters<>(
                        S3FenceConfig.Builder::tokenMetadataKey,
                        S3FenceConfig.Builder::maxConflictRetries,
                        S3FenceConfig.Builder::backoffBase,
                        S3FenceConfig.Builder::backoffMax,
                        S3FenceConfig.Builder::etagCacheSize),
                new ObjectStoreSettings.Values(
                        p.getTokenMetadataKey(),
                        p.getMaxConflictRetries(),
                        p.getBackoffBase(),
                        p.getBackoffMax(),
                        p.getEtagCacheSize()));
        FencedBucket fenced = FencedBucket.create(s3, config);
        if (p.isVerifyOnStartup()) {
            fenced.verifyConditionalWrites();
        }
        return fenced;
    }
}
