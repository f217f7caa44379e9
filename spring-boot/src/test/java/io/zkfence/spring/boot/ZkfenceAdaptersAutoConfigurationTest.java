package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.FenceTableMissingException;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.s3.FencedBucket;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** JdbcFence and FencedBucket beans next to the LockClient. */
class ZkfenceAdaptersAutoConfigurationTest {

    private static EmbeddedEnsemble zk;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ZkfenceCuratorAutoConfiguration.class,
                        ZkfenceAutoConfiguration.class,
                        ZkfenceJdbcAutoConfiguration.class,
                        ZkfenceS3AutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=" + zk.connectString());
    }

    private static DataSource h2(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    /** Built for wiring only: no request is sent in these tests. */
    private static S3Client s3Client() {
        return S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:9"))
                .region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create())
                .forcePathStyle(true)
                .build();
    }

    @Test
    void aJdbcFenceOverTheDataSourceFencesWritesWithTheLocksTokens() {
        runner().withBean(DataSource.class, () -> h2("fenced"))
                .withPropertyValues("zkfence.jdbc.table=inventory_fence", "zkfence.jdbc.create-if-missing=true")
                .run(ctx -> {
                    JdbcFence fence = ctx.getBean(JdbcFence.class);
                    assertThat(fence.config().dialect()).isEqualTo(FenceDialect.H2);
                    assertThat(fence.config().table()).isEqualTo("inventory_fence");
                    LockClient client = ctx.getBean(LockClient.class);
                    long first;
                    try (Lease lease = client.lock("inventory:sku:9").acquire(Duration.ofSeconds(10))) {
                        first = lease.token();
                        fence.claim("inventory:sku:9", first);
                    }
                    try (Lease lease = client.lock("inventory:sku:9").acquire(Duration.ofSeconds(10))) {
                        fence.claim("inventory:sku:9", lease.token());
                    }
                    assertThrows(JdbcStaleTokenException.class, () -> fence.claim("inventory:sku:9", first));
                });
    }

    @Test
    void aServiceGetsTheLockClientAndTheFenceInjectedAndWritesFenced() {
        runner().withBean(DataSource.class, () -> h2("service"))
                .withPropertyValues("zkfence.jdbc.create-if-missing=true")
                .withBean(InventoryService.class)
                .run(ctx -> {
                    DataSource ds = ctx.getBean(DataSource.class);
                    try (Connection c = ds.getConnection();
                            Statement s = c.createStatement()) {
                        s.execute("create table stock (sku varchar(20) primary key, reserved int)");
                        s.execute("insert into stock values ('123', 0)");
                    }
                    ctx.getBean(InventoryService.class).reserve("123", 2);
                    ctx.getBean(InventoryService.class).reserve("123", 3);
                    try (Connection c = ds.getConnection();
                            Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("select reserved from stock where sku = '123'")) {
                        rs.next();
                        assertThat(rs.getInt(1)).isEqualTo(5);
                    }
                    assertThat(ctx.getBean(JdbcFence.class).currentToken("inventory:sku:123"))
                            .isPresent();
                });
    }

    @Test
    void theFenceTableIsNotCreatedUnlessAskedTo() {
        runner().withBean(DataSource.class, () -> h2("uncreated"))
                .withPropertyValues("zkfence.jdbc.dialect=h2")
                .run(ctx -> {
                    JdbcFence fence = ctx.getBean(JdbcFence.class);
                    assertThrows(FenceTableMissingException.class, () -> fence.claim("k", 1));
                });
    }

    @Test
    void noJdbcFenceWithoutJdbcProperties() {
        runner().withBean(DataSource.class, () -> h2("plain")).run(ctx -> {
            assertThat(ctx).hasSingleBean(LockClient.class);
            assertThat(ctx).doesNotHaveBean(JdbcFence.class);
        });
    }

    @Test
    void anInvalidFenceTableNameFailsStartupNamingTheProperty() {
        runner().withBean(DataSource.class, () -> h2("badname"))
                .withPropertyValues("zkfence.jdbc.table=fence; drop table x")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("zkfence.jdbc.table");
                });
    }

    @Test
    void anUnknownDialectFailsStartupNamingTheProperty() {
        runner().withBean(DataSource.class, () -> h2("dialect"))
                .withPropertyValues("zkfence.jdbc.dialect=oracle")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("zkfence.jdbc.dialect")
                            .hasMessageContaining("postgres");
                });
    }

    @Test
    void aFencedBucketOverTheS3ClientWhenS3PropertiesAreSet() {
        runner().withBean(S3Client.class, ZkfenceAdaptersAutoConfigurationTest::s3Client)
                .withPropertyValues(
                        "zkfence.s3.bucket=inventory-exports",
                        "zkfence.s3.token-metadata-key=lock-token",
                        "zkfence.s3.backoff-max=2s",
                        "zkfence.s3.backoff-base=1s")
                .run(ctx -> {
                    FencedBucket bucket = ctx.getBean(FencedBucket.class);
                    assertThat(bucket.config().bucket()).isEqualTo("inventory-exports");
                    assertThat(bucket.config().tokenMetadataKey()).isEqualTo("lock-token");
                    assertThat(bucket.config().backoffBase()).isEqualTo(Duration.ofSeconds(1));
                    assertThat(bucket.config().backoffMax()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void noFencedBucketWithoutS3Properties() {
        runner().withBean(S3Client.class, ZkfenceAdaptersAutoConfigurationTest::s3Client)
                .run(ctx -> assertThat(ctx).doesNotHaveBean(FencedBucket.class));
    }

    @Test
    void s3PropertiesWithoutABucketFailStartupNamingTheBucketProperty() {
        runner().withBean(S3Client.class, ZkfenceAdaptersAutoConfigurationTest::s3Client)
                .withPropertyValues("zkfence.s3.token-metadata-key=lock-token")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("zkfence.s3.bucket");
                });
    }

    @Test
    void anUppercaseMetadataKeyFailsStartupNamingTheProperty() {
        runner().withBean(S3Client.class, ZkfenceAdaptersAutoConfigurationTest::s3Client)
                .withPropertyValues("zkfence.s3.bucket=inventory-exports", "zkfence.s3.token-metadata-key=Token")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("zkfence.s3.token-metadata-key");
                });
    }

    @Test
    void aBackoffBaseAboveTheBackoffMaxFailsStartupNamingTheBase() {
        runner().withBean(S3Client.class, ZkfenceAdaptersAutoConfigurationTest::s3Client)
                .withPropertyValues(
                        "zkfence.s3.bucket=inventory-exports",
                        "zkfence.s3.backoff-base=3s",
                        "zkfence.s3.backoff-max=1s")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("zkfence.s3.backoff-base");
                });
    }
}
