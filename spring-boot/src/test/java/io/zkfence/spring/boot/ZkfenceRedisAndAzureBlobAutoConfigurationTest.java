package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import io.lettuce.core.RedisClient;
import io.zkfence.azure.blob.AzureBlobStaleTokenException;
import io.zkfence.azure.blob.FencedContainer;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.redis.LettuceConnector;
import io.zkfence.redis.RedisConnector;
import io.zkfence.redis.RedisFence;
import io.zkfence.redis.RedisFenceConfig;
import io.zkfence.redis.RedisFenceNotSeededException;
import io.zkfence.redis.RedisStaleTokenException;
import io.zkfence.redis.RedisWrite;
import io.zkfence.testing.AzuriteServer;
import io.zkfence.testing.RedisServer;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** RedisFence and FencedContainer beans beside the LockClient, on a real redis-server and Azurite. */
class ZkfenceRedisAndAzureBlobAutoConfigurationTest {

    private static EmbeddedEnsemble zk;
    private static RedisServer redis;

    @BeforeAll
    static void startServers() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
        redis = RedisServer.start(List.of());
    }

    @AfterAll
    static void stopServers() {
        redis.close();
        zk.close();
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ZkfenceCuratorAutoConfiguration.class,
                        ZkfenceAutoConfiguration.class,
                        ZkfenceRedisAutoConfiguration.class,
                        ZkfenceAzureBlobAutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=" + zk.connectString());
    }

    private static long acquireAndRelease(LockClient client, String lock) {
        try (Lease lease = client.lock(lock).acquire(Duration.ofSeconds(10))) {
            return lease.token();
        }
    }

    @Test
    void aRedisFenceOverTheUriSeedsByItselfFromTheLockClientAndFencesWithItsTokens() {
        runner().withPropertyValues(
                        "zkfence.redis.uri=" + redis.uri(),
                        "zkfence.redis.key-prefix=spring-" + UUID.randomUUID() + ":",
                        "zkfence.redis.auto-seed=true")
                .run(ctx -> {
                    RedisFence fence = ctx.getBean(RedisFence.class);
                    LockClient client = ctx.getBean(LockClient.class);
                    assertThat(ctx).hasSingleBean(RedisClient.class);
                    long before = acquireAndRelease(client, "inventory:{sku-9}");

                    // The floors are missing: the fence seeds them with a fresh grant's token, so the
                    // token from before is refused and the next grant's is accepted.
                    assertThrows(
                            RedisStaleTokenException.class,
                            () -> fence.write("inventory:{sku-9}", before, RedisWrite.set("stock:{sku-9}", "1")));
                    long after = acquireAndRelease(client, "inventory:{sku-9}");
                    fence.write("inventory:{sku-9}", after, RedisWrite.set("stock:{sku-9}", "2"));
                    assertThat(fence.token("inventory:{sku-9}")).hasValue(after);
                });
    }

    @Test
    void withoutAutoSeedAnUnseededServerIsReported() {
        runner().withPropertyValues(
                        "zkfence.redis.uri=" + redis.uri(),
                        "zkfence.redis.key-prefix=plain-" + UUID.randomUUID() + ":",
                        "zkfence.redis.restart-policy=trust-persistence")
                .run(ctx -> {
                    RedisFence fence = ctx.getBean(RedisFence.class);
                    assertThat(fence.config().restartPolicy())
                            .isEqualTo(RedisFenceConfig.RestartPolicy.TRUST_PERSISTENCE);
                    assertThat(fence.config().reseedFrom()).isNull();
                    assertThrows(RedisFenceNotSeededException.class, () -> fence.claim("f", 1));
                });
    }

    @Test
    void theApplicationsOwnConnectorIsUsedAndNoClientIsOpened() {
        RedisClient own = RedisClient.create(redis.uri());
        try {
            RedisConnector connector = LettuceConnector.of(own.connect());
            runner().withBean(RedisConnector.class, () -> connector)
                    .withPropertyValues("zkfence.redis.key-prefix=own:")
                    .run(ctx -> {
                        assertThat(ctx).hasSingleBean(RedisFence.class);
                        assertThat(ctx).doesNotHaveBean(RedisClient.class);
                    });
        } finally {
            own.shutdown();
        }
    }

    @Test
    void noRedisFenceWithoutRedisProperties() {
        runner().run(ctx -> {
            assertThat(ctx).hasSingleBean(LockClient.class);
            assertThat(ctx).doesNotHaveBean(RedisFence.class);
            assertThat(ctx).doesNotHaveBean(FencedContainer.class);
        });
    }

    @Test
    void aMissingUriOrABadRestartPolicyFailsStartupNamingTheProperty() {
        runner().withPropertyValues("zkfence.redis.key-prefix=x:").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("zkfence.redis.uri");
        });
        runner().withPropertyValues("zkfence.redis.uri=" + redis.uri(), "zkfence.redis.restart-policy=sometimes")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("zkfence.redis.restart-policy");
                });
        runner().withPropertyValues("zkfence.redis.uri=" + redis.uri(), "zkfence.redis.key-prefix=a{b")
                .run(ctx -> assertThat(ctx.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("zkfence.redis.key-prefix"));
    }

    private static BlobServiceClient azurite() {
        return new BlobServiceClientBuilder()
                .connectionString(AzuriteServer.shared().connectionString())
                .buildClient();
    }

    @Test
    void aFencedContainerOverTheBlobServiceClientFencesWritesWithTheLocksTokens() {
        BlobServiceClient blobs = azurite();
        String container = "c" + UUID.randomUUID().toString().replace("-", "");
        blobs.createBlobContainer(container);
        runner().withBean(BlobServiceClient.class, () -> blobs)
                .withPropertyValues(
                        "zkfence.azure-blob.container=" + container,
                        "zkfence.azure-blob.max-conflict-retries=3",
                        "zkfence.azure-blob.verify-on-startup=true")
                .run(ctx -> {
                    FencedContainer fenced = ctx.getBean(FencedContainer.class);
                    assertThat(fenced.containerName()).isEqualTo(container);
                    assertThat(fenced.config().maxConflictRetries()).isEqualTo(3);
                    LockClient client = ctx.getBean(LockClient.class);
                    long first = acquireAndRelease(client, "reports:daily");
                    fenced.put("daily.json", first, BinaryData.fromString("{\"v\":1}"));
                    long second = acquireAndRelease(client, "reports:daily");
                    fenced.put("daily.json", second, BinaryData.fromString("{\"v\":2}"));
                    assertThrows(
                            AzureBlobStaleTokenException.class,
                            () -> fenced.put("daily.json", first, BinaryData.fromString("{\"v\":\"late\"}")));
                });
    }

    @Test
    void aMissingContainerOrABadMetadataKeyFailsStartupNamingTheProperty() {
        BlobServiceClient blobs = azurite();
        runner().withBean(BlobServiceClient.class, () -> blobs)
                .withPropertyValues("zkfence.azure-blob.verify-on-startup=true")
                .run(ctx -> assertThat(ctx.getStartupFailure())
                        .rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("zkfence.azure-blob.container"));
        runner().withBean(BlobServiceClient.class, () -> blobs)
                .withPropertyValues(
                        "zkfence.azure-blob.container=c1", "zkfence.azure-blob.token-metadata-key=fence-token")
                .run(ctx -> assertThat(ctx.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("zkfence.azure-blob.token-metadata-key"));
    }
}
