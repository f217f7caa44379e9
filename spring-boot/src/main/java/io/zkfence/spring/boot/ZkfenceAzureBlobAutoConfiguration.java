package io.zkfence.spring.boot;

import com.azure.storage.blob.BlobServiceClient;
import io.zkfence.azure.blob.AzureBlobFenceConfig;
import io.zkfence.azure.blob.FencedContainer;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link FencedContainer} over the application's {@link BlobServiceClient}, when
 * fencing-azure-blob is on the class path and any {@code zkfence.azure-blob.*} property is set
 * ({@code zkfence.azure-blob.container} is then required).
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "zkfence.enabled", matchIfMissing = true)
@ConditionalOnClass({FencedContainer.class, BlobServiceClient.class})
@ConditionalOnBean(BlobServiceClient.class)
@ConditionalOnAnyPropertyUnder("zkfence.azure-blob")
@EnableConfigurationProperties(ZkfenceProperties.class)
public class ZkfenceAzureBlobAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceAzureBlobAutoConfiguration() {}

    /**
     * The fenced container.
     *
     * @param blobs the application's Blob service client
     * @param properties the {@code zkfence.*} settings
     * @return the fenced container (its conditional writes checked first if asked to)
     */
    @Bean
    @ConditionalOnMissingBean(FencedContainer.class)
    public FencedContainer zkfenceFencedContainer(BlobServiceClient blobs, ZkfenceProperties properties) {
        ZkfenceProperties.AzureBlob p = properties.getAzureBlob();
        String container = p.getContainer();
        if (container == null || container.isBlank()) {
            throw PropertyCheck.invalid(
                    "zkfence.azure-blob.container",
                    container,
                    "must be set when any zkfence.azure-blob.* property is set");
        }
        AzureBlobFenceConfig.Builder b = AzureBlobFenceConfig.builder();
        set(
                b,
                "zkfence.azure-blob.token-metadata-key",
                p.getTokenMetadataKey(),
                x -> x.tokenMetadataKey(p.getTokenMetadataKey()));
        set(
                b,
                "zkfence.azure-blob.max-conflict-retries",
                p.getMaxConflictRetries(),
                x -> x.maxConflictRetries(p.getMaxConflictRetries()));
        // Each back-off is checked together with the other as configured: the rule is base <= max.
        set(
                b,
                "zkfence.azure-blob.backoff-max",
                p.getBackoffMax(),
                x -> x.backoffBase(Duration.ZERO).backoffMax(p.getBackoffMax()));
        set(b, "zkfence.azure-blob.backoff-base", p.getBackoffBase(), x -> {
            if (p.getBackoffMax() != null) {
                x.backoffMax(p.getBackoffMax());
            }
            return x.backoffBase(p.getBackoffBase());
        });
        set(b, "zkfence.azure-blob.etag-cache-size", p.getEtagCacheSize(), x -> x.etagCacheSize(p.getEtagCacheSize()));
        AzureBlobFenceConfig config;
        try {
            config = b.build();
        } catch (IllegalArgumentException e) {
            // Only the default back-off base can fail here: above a configured backoff-max.
            throw PropertyCheck.invalid("zkfence.azure-blob.backoff-base", "(default)", e.getMessage());
        }
        FencedContainer fenced = FencedContainer.create(blobs.getBlobContainerClient(container), config);
        if (p.isVerifyOnStartup()) {
            fenced.verifyConditionalWrites();
        }
        return fenced;
    }

    private static void set(
            AzureBlobFenceConfig.Builder b,
            String property,
            Object value,
            UnaryOperator<AzureBlobFenceConfig.Builder> apply) {
        if (value == null) {
            return;
        }
        PropertyCheck.check(
                property,
                value,
                () -> apply.apply(AzureBlobFenceConfig.builder()).build());
        apply.apply(b);
    }
}
