package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The LockClient from zkfence.* properties, on a real ZooKeeper server. */
class ZkfenceAutoConfigurationTest {

    private static EmbeddedEnsemble zk;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(ZkfenceCuratorAutoConfiguration.class, ZkfenceAutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=" + zk.connectString());
    }

    @Test
    void lockClientComesFromThePropertiesAndGrantsFencedLocks() {
        runner().withPropertyValues(
                        "zkfence.root-path=/apps/inventory/locks",
                        "zkfence.owner-id=inventory-7",
                        "zkfence.operation-timeout=3s",
                        "zkfence.session-timeout=6s")
                .run(ctx -> {
                    LockClient client = ctx.getBean(LockClient.class);
                    LockClientConfig config = client.config();
                    assertThat(config.rootPath()).isEqualTo("/apps/inventory/locks");
                    assertThat(config.ownerId()).isEqualTo("inventory-7");
                    assertThat(config.operationTimeout()).isEqualTo(Duration.ofSeconds(3));
                    try (Lease lease = client.lock("inventory:sku:1").acquire(Duration.ofSeconds(10))) {
                        assertThat(lease.token()).isPositive();
                        assertThat(lease.nodePath()).startsWith("/apps/inventory/locks/");
                        assertThat(lease.ttl()).isEqualTo(Duration.ofSeconds(6));
                        assertThat(client.inspect("inventory:sku:1").holder())
                                .get()
                                .satisfies(h -> assertThat(h.ownerId()).isEqualTo("inventory-7"));
                    }
                });
    }

    @Test
    void theStarterRegistersEveryAutoConfigurationWithSpringBoot() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
                        .getCandidates())
                .contains(
                        ZkfenceCuratorAutoConfiguration.class.getName(),
                        ZkfenceAutoConfiguration.class.getName(),
                        ZkfenceJdbcAutoConfiguration.class.getName(),
                        ZkfenceS3AutoConfiguration.class.getName(),
                        ZkfenceHealthAutoConfiguration.class.getName(),
                        ZkfenceMetricsAutoConfiguration.class.getName(),
                        ZkfenceFencedLockedAutoConfiguration.class.getName());
    }

    @Test
    void ownerIdDefaultsToTheHostName() {
        runner().run(ctx ->
                assertThat(ctx.getBean(LockClient.class).config().ownerId()).isEqualTo(LockClientSettings.hostName()));
    }

    @Test
    void closingTheContextReleasesTheLeasesAndClosesTheConnection() {
        Lease[] held = new Lease[1];
        CuratorFramework[] curator = new CuratorFramework[1];
        runner().run(ctx -> {
            held[0] = ctx.getBean(LockClient.class).lock("nightly-report").acquire(Duration.ofSeconds(10));
            curator[0] = ctx.getBean(CuratorFramework.class);
        });
        assertThat(held[0].state()).isEqualTo(LeaseState.RELEASED);
        assertThat(curator[0].getState()).isEqualTo(CuratorFrameworkState.STOPPED);
        try (LockClient other = LockClient.connect(zk.connectString())) {
            assertThat(other.lock("nightly-report").tryAcquire())
                    .isPresent()
                    .get()
                    .satisfies(l -> assertThat(l.token()).isGreaterThan(held[0].token()))
                    .satisfies(Lease::release);
        }
    }

    @Test
    void nothingIsConfiguredWithoutAConnectString() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(ZkfenceCuratorAutoConfiguration.class, ZkfenceAutoConfiguration.class))
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean(LockClient.class);
                    assertThat(ctx).doesNotHaveBean(CuratorFramework.class);
                });
    }

    @Test
    void zkfenceEnabledFalseSwitchesEverythingOff() {
        runner().withPropertyValues("zkfence.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(LockClient.class));
    }

    @Test
    void theApplicationsOwnCuratorFrameworkIsUsedAndLeftOpen() {
        try (CuratorFramework own = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100))) {
            own.start();
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            ZkfenceCuratorAutoConfiguration.class, ZkfenceAutoConfiguration.class))
                    .withBean(CuratorFramework.class, () -> own, d -> d.setDestroyMethodName(""))
                    .run(ctx -> {
                        assertThat(ctx).hasSingleBean(CuratorFramework.class);
                        try (Lease lease =
                                ctx.getBean(LockClient.class).lock("shared").acquire(Duration.ofSeconds(10))) {
                            assertThat(own.checkExists().forPath(lease.nodePath()))
                                    .isNotNull();
                        }
                    });
            assertThat(own.getState()).isEqualTo(CuratorFrameworkState.STARTED);
        }
    }

    @Test
    void aRelativeRootPathFailsStartupNamingTheProperty() {
        runner().withPropertyValues("zkfence.root-path=locks").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("zkfence.root-path")
                    .hasMessageContaining("locks");
        });
    }

    @Test
    void aZeroSessionTimeoutFailsStartupNamingThePropertyAndTheBound() {
        runner().withPropertyValues("zkfence.session-timeout=0s").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("zkfence.session-timeout")
                    .hasMessageContaining("between 1 ms and 10 min");
        });
    }

    @Test
    void aDurationThatDoesNotParseFailsStartupNamingTheProperty() {
        runner().withPropertyValues("zkfence.operation-timeout=soon").run(ctx -> {
            assertThat(ctx).hasFailed();
            BindException bind = causeOfType(ctx.getStartupFailure(), BindException.class);
            assertThat(bind.getProperty().getName()).hasToString("zkfence.operation-timeout");
            assertThat(bind.getProperty().getValue()).isEqualTo("soon");
        });
    }

    private static <T extends Throwable> T causeOfType(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + failure, failure);
    }

    @Test
    void aBlankOwnerIdFailsStartupNamingTheProperty() {
        runner().withPropertyValues("zkfence.owner-id= ").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("zkfence.owner-id");
        });
    }

    @Test
    void aMalformedChrootInTheConnectStringFailsStartupNamingTheProperty() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(ZkfenceCuratorAutoConfiguration.class, ZkfenceAutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=" + zk.connectString() + "/apps//locks")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("zkfence.connect-string");
                });
    }

    @Test
    void theCreatorAclWithoutCredentialsFailsStartupNamingTheProperty() {
        runner().withPropertyValues("zkfence.acl=creator").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("zkfence.acl")
                    .hasMessageContaining("zkfence.auth.username");
        });
    }

    @Test
    void aUserNameWithoutPasswordFailsStartupNamingThePassword() {
        runner().withPropertyValues("zkfence.auth.username=inventory").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("zkfence.auth.password");
        });
    }

    @Test
    void anUnreachableEnsembleFailsStartupAfterTheConnectionTimeout() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(ZkfenceCuratorAutoConfiguration.class, ZkfenceAutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=127.0.0.1:1", "zkfence.connection-timeout=500ms")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("zkfence.connect-string")
                            .hasMessageContaining("zkfence.connection-timeout");
                });
    }

    @Test
    void withDigestAuthAndTheCreatorAclOnlyTheSameIdentityCanReadTheLocks() {
        runner().withPropertyValues(
                        "zkfence.root-path=/secured/locks",
                        "zkfence.acl=creator",
                        "zkfence.auth.username=inventory",
                        "zkfence.auth.password=s3cret")
                .run(ctx -> {
                    try (Lease lease =
                            ctx.getBean(LockClient.class).lock("secured").acquire(Duration.ofSeconds(10))) {
                        String lockPath =
                                lease.nodePath().substring(0, lease.nodePath().lastIndexOf('/'));
                        try (CuratorFramework anonymous =
                                CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(100))) {
                            anonymous.start();
                            assertThrows(
                                    KeeperException.NoAuthException.class,
                                    () -> anonymous.getChildren().forPath(lockPath));
                        }
                        try (CuratorFramework sameIdentity = CuratorFrameworkFactory.builder()
                                .connectString(zk.connectString())
                                .retryPolicy(new RetryOneTime(100))
                                .authorization("digest", "inventory:s3cret".getBytes(StandardCharsets.UTF_8))
                                .build()) {
                            sameIdentity.start();
                            assertThat(sameIdentity.getChildren().forPath(lockPath))
                                    .hasSize(1);
                        }
                    }
                });
    }
}
