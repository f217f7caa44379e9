package io.zkfence.spring.boot;

import com.azure.storage.blob.BlobServiceClient;
import io.zkfence.azure.blob.AzureBlobFenceConfig;
import io.zkfence.azure.blob.FencedContainer;
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
        String container = PropertyCheck.required(
                "zkfence.azure-blob.container", p.getContainer(), "when any zkfence.azure-blob.* property is set");
        AzureBlobFenceConfig config = ObjectStoreSettings.build(
                "zkfence.azure-blob",
                AzureBlobFenceConfig::builder,
                AzureBlobFenceConfig.Builder::build,
                new ObjectStoreSettings.Setters<>(
                        AzureBlobFenceConfig.Builder::tokenMetadataKey,
                        AzureBlobFenceConfig.Builder::maxConflictRetries,
                        AzureBlobFenceConfig.Builder::backoffBase,
                        AzureBlobFenceConfig.Builder::backoffMax,
                        AzureBlobFenceConfig.Builder::etagCacheSize),
                new ObjectStoreSettings.Values(
                        p.getTokenMetadataKey(),
                        p.getMaxConflictRetries(),
                        p.getBackoffBase(),
                        p.getBackoffMax(),
                        p.getEtagCacheSize()));
        FencedContainer fenced = FencedContainer.create(blobs.getBlobContainerClient(container), config);
        if (p.isVerifyOnStartup()) {
            fenced.verifyConditionalWrites();
        }
        return fenced;
    }
}
