package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator and the Micrometer meters, on a real ZooKeeper server (and H2 for the fence). */
class ZkfenceActuatorAutoConfigurationTest {

    private static EmbeddedEnsemble zk;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    private static ApplicationContextRunner runner(String connectString) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ZkfenceCuratorAutoConfiguration.class,
                        ZkfenceAutoConfiguration.class,
                        ZkfenceHealthAutoConfiguration.class,
                        ZkfenceMetricsAutoConfiguration.class))
                .withPropertyValues("zkfence.connect-string=" + connectString);
    }

    @Test
    void healthIsUpWithTheSessionAndDownWhileTheConnectionIsCutThenUpAgain() throws Exception {
        try (FreezableProxy proxy = new FreezableProxy(zk.servers().get(0).getPort())) {
            runner(proxy.connectString())
                    .withPropertyValues("zkfence.session-timeout=4s")
                    .run(ctx -> {
                        HealthIndicator health = ctx.getBean("zkfenceHealthIndicator", HealthIndicator.class);
                        Health up = health.health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails())
                                .containsKeys("sessionId", "sessionTimeoutMs", "connectString")
                                .containsEntry("rootPath", "/zkfence/locks");
                        assertThat((String) up.getDetails().get("sessionId")).startsWith("0x");

                        proxy.freeze();
                        Awaitility.await()
                                .atMost(Duration.ofSeconds(60))
                                .until(() -> health.health(true).getStatus().equals(Status.DOWN));
                        assertThat(health.health(true).getDetails().get("connectionState"))
                                .isIn("SUSPENDED", "LOST");

                        proxy.thaw();
                        Awaitility.await()
                                .atMost(Duration.ofSeconds(60))
                                .until(() -> health.health(true).getStatus().equals(Status.UP));
                    });
        }
    }

    @Test
    void healthIndicatorCanBeSwitchedOff() {
        runner(zk.connectString())
                .withPropertyValues("management.health.zkfence.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean("zkfenceHealthIndicator"));
    }

    @Test
    void theLockClientsMetersArePublished() {
        runner(zk.connectString()).run(ctx -> {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            ctx.getBean("zkfenceMeterBinder", MeterBinder.class).bindTo(registry);
            LockClient client = ctx.getBean(LockClient.class);
            try (Lease lease = client.lock("metered").acquire(Duration.ofSeconds(10))) {
                assertThat(lease.token()).isPositive();
            }
            try (Lease lease = client.lock("metered").acquire(Duration.ofSeconds(10))) {
                assertThat(lease.token()).isPositive();
            }
            assertThat(registry.get("zkfence.lock.grants").counter().count()).isEqualTo(2.0);
            assertThat(registry.get("zkfence.lock.acquire").timer().count()).isEqualTo(2);
            assertThat(registry.get("zkfence.lock.hold")
                            .tag("end", "released")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(registry.get("zkfence.lock.releases").functionCounter().count())
                    .isEqualTo(2.0);
            assertThat(registry.find("zkfence.lease.lost").counters())
                    .allSatisfy(c -> assertThat(c.count()).isZero());
            FunctionCounter creates = registry.get("zkfence.zk.creates")
                    .tag("owner", client.config().ownerId())
                    .functionCounter();
            assertThat(creates.count()).isGreaterThanOrEqualTo(2.0);
            assertThat(ctx).doesNotHaveBean("zkfenceJdbcMeterBinder").doesNotHaveBean("zkfenceS3MeterBinder");
        });
    }

    @Test
    void aJdbcFenceBeanGetsItsMetersToo() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:metered-fence;DB_CLOSE_DELAY=-1");
        ds.setUser("sa");
        runner(zk.connectString())
                .withConfiguration(AutoConfigurations.of(ZkfenceJdbcAutoConfiguration.class))
                .withBean(DataSource.class, () -> ds)
                .withPropertyValues("zkfence.jdbc.create-if-missing=true")
                .run(ctx -> {
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    ctx.getBean("zkfenceJdbcMeterBinder", MeterBinder.class).bindTo(registry);
                    JdbcFence fence = ctx.getBean(JdbcFence.class);
                    fence.claim("orders:1", 7);
                    assertThrows(JdbcStaleTokenException.class, () -> fence.claim("orders:1", 3));
                    assertThat(registry.get("zkfence.fence.writes")
                                    .tags("adapter", "jdbc", "outcome", "accepted")
                                    .tag("operation", "transaction")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("zkfence.fence.writes")
                                    .tags("outcome", "stale", "operation", "transaction")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                });
    }
}
