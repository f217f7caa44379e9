package io.zkfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * docs/grafana/zkfence-dashboard.json queries only metrics the starter's binders publish, under
 * Prometheus's names: the three binders (lock client, JDBC fence, S3 bucket) in one Prometheus
 * registry register without a conflict (one name, one set of tag keys) and every metric the
 * dashboard names is in the scrape. The lock service's row ({@code zkfence_service_*}) is served
 * by zkfence-server, not by these binders: server-dist's {@code DistributionIT} checks it against
 * a running replica's {@code /metrics}.
 */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "zkfence-dashboard.json");
    private static final Pattern METRIC = Pattern.compile("zkfence_[a-z_]+");
    private static final String SERVICE_METRICS = "zkfence_service_";
    private static EmbeddedEnsemble zk;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    @Test
    void everyMetricTheDashboardQueriesIsPublishedAndNoMeterIsRefused() throws IOException {
        Set<String> queried = new TreeSet<>();
        Matcher m = METRIC.matcher(Files.readString(DASHBOARD));
        while (m.find()) {
            if (!m.group().startsWith(SERVICE_METRICS)) {
                queried.add(m.group());
            }
        }
        assertThat(queried)
                .contains(
                        "zkfence_lock_acquire_seconds_bucket",
                        "zkfence_lease_lost_total",
                        "zkfence_fence_writes_total");

        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:dashboard;DB_CLOSE_DELAY=-1");
        h2.setUser("sa");
        // Never called: the bucket's meters exist from its creation, which sends nothing.
        S3Client s3 = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:9"))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .build();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ZkfenceCuratorAutoConfiguration.class,
                        ZkfenceAutoConfiguration.class,
                        ZkfenceJdbcAutoConfiguration.class,
                        ZkfenceMetricsAutoConfiguration.class))
                .withBean(DataSource.class, () -> h2)
                .withBean(FencedBucket.class, () -> FencedBucket.create(s3, S3FenceConfig.of("dashboard")))
                .withPropertyValues(
                        "zkfence.connect-string=" + zk.connectString(), "zkfence.jdbc.create-if-missing=true")
                .run(ctx -> {
                    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                    List<String> refused = new CopyOnWriteArrayList<>();
                    registry.config().onMeterRegistrationFailed((id, reason) -> refused.add(id + ": " + reason));
                    ctx.getBeansOfType(MeterBinder.class).values().forEach(b -> b.bindTo(registry));
                    assertThat(ctx.getBeansOfType(MeterBinder.class))
                            .containsOnlyKeys("zkfenceMeterBinder", "zkfenceJdbcMeterBinder", "zkfenceS3MeterBinder");

                    Set<String> scraped = registry.scrape()
                            .lines()
                            .filter(l -> !l.startsWith("#") && !l.isBlank())
                            .map(l -> l.split("[{ ]", 2)[0])
                            .collect(Collectors.toCollection(TreeSet::new));
                    assertThat(refused).isEmpty();
                    assertThat(scraped).containsAll(queried);
                });
        s3.close();
    }
}
