package io.zkfence.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceMetrics;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.ForcedRelease;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.lock.LockClientMetrics;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.FencedBucketMetrics;
import io.zkfence.s3.S3FenceConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The metrics run behind docs/grafana/: a short workload on a real 3-server ensemble and an
 * embedded PostgreSQL, with every client's {@link LockClientMetrics} and the fence's
 * {@link JdbcFenceMetrics} bound to one {@link PrometheusMeterRegistry}. The registry is scraped
 * every second, as Prometheus would; the plots evaluate the dashboard's queries on those scrapes
 * (rates and {@code histogram_quantile} over a 5 s window, the run being short). It fails if a
 * metric the dashboard queries is missing from the scrape.
 *
 * <p>The workload: six workers take three locks ({@code orders:0..2}) in turns, each turn one
 * fenced UPDATE on PostgreSQL. Then, one after the other: three hung holders lose their lease to
 * max-hold; a stuck holder is force-released through {@code LockAdmin}; a holder behind a
 * frozen connection loses its session. Each evicted holder tries its late write a second after
 * it lost the lease; by then the next holder has written, so the fence rejects it as stale.
 *
 * <pre>
 * ./mvnw -B -ntp -q -pl benchmarks -am -DskipTests package
 * java -Djava.awt.headless=true -cp "benchmarks/target/classes:$(cat benchmarks/target/bench.classpath)" \
 *     io.zkfence.bench.MetricsRun docs/grafana
 * </pre>
 */
public final class MetricsRun {

    private static final int WORKERS = 6;
    private static final int LOCKS = 3;
    private static final Duration RUN = Duration.ofSeconds(75);
    private static final int WINDOW_S = 5;

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final PromScrapes scrapes = new PromScrapes(WINDOW_S);
    private final RunTimeline timeline = new RunTimeline();
    private final AtomicLong timeouts = new AtomicLong();
    private String root;
    private EmbeddedEnsemble ensemble;
    private JdbcFence fence;

    private MetricsRun() {}

    /**
     * Runs the workload and writes {@code <out>/zkfence-metrics-run.png} and
     * {@code <out>/zkfence-metrics-run.txt}; the dashboard is read from {@code <out>/zkfence-dashboard.json}.
     *
     * @param args the output directory (default docs/grafana)
     */
    public static void main(String[] args) {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/grafana");
        new MetricsRun().run(out);
    }

    private void note(String event) {
        timeline.note(event);
    }

    private void run(Path out) {
        // The library's meters; the lock service's row (zkfence_service_*) is ServiceMetricsRun's.
        Set<String> queried = PromScrapes.dashboardMetrics(
                out.resolve("zkfence-dashboard.json"), name -> !name.startsWith("zkfence_service_"));
        root = "/metrics-run-" + ProcessHandle.current().pid();
        try (Closer closer = new Closer()) {
            ensemble = closer.add(EmbeddedEnsemble.start());
            EmbeddedPostgres pg = start(closer);
            HikariDataSource db = closer.add(pool(pg));
            fence = JdbcFence.create(db);
            fence.createIfMissing();
            prepare(db);
            JdbcFenceMetrics.of(fence).bindTo(registry);
            // No S3 traffic in this run: the bucket's meters are registered (at zero) so the
            // dashboard's fencing-s3 queries are checked against real names too.
            S3Client s3 = closer.add(S3Client.builder()
                    .endpointOverride(URI.create("http://127.0.0.1:9"))
                    .forcePathStyle(true)
                    .region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                    .build());
            FencedBucketMetrics.of(FencedBucket.create(s3, S3FenceConfig.of("not-used-in-this-run")))
                    .bindTo(registry);

            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            closer.add(sampler::shutdownNow);
            sampler.scheduleAtFixedRate(this::scrape, 0, 1, TimeUnit.SECONDS);

            // The clients of the scripted incidents, made up front on this thread.
            LockClient[] hung = new LockClient[3];
            for (int i = 0; i < hung.length; i++) {
                hung[i] = closer.add(client("hung-" + i, ensemble.connectString(), Duration.ofSeconds(10)));
            }
            LockClient stuck = closer.add(client("stuck", ensemble.connectString(), Duration.ofSeconds(10)));
            LockClient operator = closer.add(client("operator", ensemble.connectString(), Duration.ofSeconds(10)));
            FreezableProxy proxy = closer.add(proxy(ensemble.servers().get(0).getPort()));
            LockClient frozen = closer.add(throughProxy(closer, "frozen", proxy));

            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = closer.add(Executors.newVirtualThreadPerTaskExecutor());
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int i = 0; i < WORKERS; i++) {
                LockClient client = closer.add(client("worker-" + i, ensemble.connectString(), Duration.ofSeconds(10)));
                workers.add(CompletableFuture.runAsync(() -> work(client, stop), pool));
            }
            note(WORKERS + " workers started on locks orders:0.." + (LOCKS - 1));

            // The incidents, on the run's clock (a timer, not waits): each evicted holder tries its
            // late write one second after it lost its lease, like a paused holder waking up.
            ScheduledExecutorService script = closer.add(Executors.newSingleThreadScheduledExecutor());
            List<ScheduledFuture<?>> plan = new ArrayList<>();
            for (int i = 0; i < hung.length; i++) {
                int n = i;
                plan.add(timeline.at(script, 15 + 5 * i, () -> hungHolderLosesToMaxHold(script, hung[n], "hung-" + n)));
            }
            Lease[] stuckLease = new Lease[1];
            plan.add(timeline.at(
                    script,
                    32,
                    () -> stuckLease[0] =
                            holdAndHang(stuck, "stuck", "orders:1", "and hangs: waiters queue, acquires time out")));
            plan.add(timeline.at(script, 38, () -> forceRelease(script, operator, stuckLease[0])));
            plan.add(timeline.at(script, 48, () -> freezeHolder(script, frozen, proxy)));
            plan.add(timeline.at(script, RUN.toSeconds(), () -> stop.set(true)));
            for (ScheduledFuture<?> step : plan) {
                step.get(RUN.toSeconds() + 60, TimeUnit.SECONDS);
            }
            for (CompletableFuture<Void> w : workers) {
                w.get(60, TimeUnit.SECONDS);
            }
            note("workers stopped");
            scrape();
            sampler.shutdownNow();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the metrics run failed", e);
        }
        scrapes.checkPublished(queried);
        plot(out.resolve("zkfence-metrics-run.png"));
        summary(out.resolve("zkfence-metrics-run.txt"));
    }

    private LockClient client(String owner, String connectString, Duration session) {
        LockClient client = LockClient.connect(
                connectString,
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId(owner)
                        .sessionTimeout(session)
                        .build());
        LockClientMetrics.of(client).bindTo(registry);
        return client;
    }

    /** A worker's loop: one lock at random, one fenced UPDATE while holding it. */
    private void work(LockClient client, AtomicBoolean stop) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            String name = "orders:" + random.nextInt(LOCKS);
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(2))) {
                write(name, lease.token());
            } catch (AcquireTimeoutException timedOut) {
                timeouts.incrementAndGet(); // zkfence.lock.timeouts counts it too; the summary compares
            }
        }
    }

    private void write(String name, long token) {
        fence.inTransaction(name, token, c -> {
            try (PreparedStatement update = c.prepareStatement(
                    "update metrics_orders set writes = writes + 1, last_token = ? where name = ?")) {
                update.setLong(1, token);
                update.setString(2, name);
                return update.executeUpdate();
            }
        });
    }

    /** A holder acquires with a 1 s max-hold and hangs; once LOST, its late write is tried. */
    private void hungHolderLosesToMaxHold(ScheduledExecutorService script, LockClient client, String who) {
        Lease lease = client.lock("orders:0").withMaxHold(Duration.ofSeconds(1)).acquire(Duration.ofSeconds(30));
        note(who + " holds orders:0 (token " + lease.token() + ", max-hold 1 s) and stops");
        lateWriteWhenLost(script, who, lease);
    }

    private Lease holdAndHang(LockClient client, String who, String name, String what) {
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(30));
        note(who + " holds " + name + " (token " + lease.token() + ") " + what);
        return lease;
    }

    /** An operator force-releases the stuck holder through LockAdmin. */
    private void forceRelease(ScheduledExecutorService script, LockClient operator, Lease stuck) {
        ForcedRelease done = operator.admin(
                        "/metrics-run-audit-" + ProcessHandle.current().pid(), 100)
                .forceRelease(stuck.lockName(), "hung holder (metrics run)");
        note("operator force-released " + stuck.lockName() + ": " + done.outcome());
        lateWriteWhenLost(script, "stuck", stuck);
    }

    /** The holder behind the proxy takes orders:2, then its connection freezes: SUSPECT, session expiry. */
    private void freezeHolder(ScheduledExecutorService script, LockClient frozen, FreezableProxy proxy) {
        Lease lease = holdAndHang(frozen, "frozen", "orders:2", "- its connection freezes (4 s session)");
        proxy.freeze();
        lease.ended().thenRun(proxy::thaw);
        lateWriteWhenLost(script, "frozen", lease);
    }

    private void lateWriteWhenLost(ScheduledExecutorService script, String who, Lease lease) {
        lease.ended().thenRun(() -> {
            note(who + " lease " + lease.state() + ": " + lease.endReason().orElse(""));
            script.schedule(() -> lateWrite(who, lease.lockName(), lease.token()), 1, TimeUnit.SECONDS);
        });
    }

    private static FreezableProxy proxy(int port) {
        try {
            return new FreezableProxy(port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the proxy", e);
        }
    }

    /** A client whose only way to ZooKeeper is the proxy (no ensemble tracker to route around it). */
    private LockClient throughProxy(Closer closer, String owner, FreezableProxy proxy) {
        CuratorFramework curator = closer.add(CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .ensembleTracker(false)
                .sessionTimeoutMs(4_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 500))
                .build());
        curator.start();
        LockClient client = LockClient.create(
                curator,
                LockClientConfig.builder().rootPath(root).ownerId(owner).build());
        LockClientMetrics.of(client).bindTo(registry);
        return client;
    }

    private void lateWrite(String who, String name, long token) {
        try {
            write(name, token);
            note(who + "'s late write with token " + token + " was ACCEPTED (no newer holder had written yet)");
        } catch (JdbcStaleTokenException e) {
            note(who + "'s late write with token " + token + " rejected as stale (stored " + e.storedToken() + ")");
        }
    }

    // ---- scrapes, plots and the summary ----

    private void scrape() {
        scrapes.add(timeline.now(), Map.of("", registry.scrape()));
    }

    private void plot(Path png) {
        double[] t = scrapes.times();
        String bucket = "zkfence_lock_acquire_seconds_bucket";
        XYChart latency = Charts.chart("Acquire latency (histogram_quantile, 5 s rate)", "ms");
        latency.getStyler().setYAxisLogarithmic(true);
        Charts.series(latency, "p50", t, Charts.positive(scrapes.quantileMs(bucket, 0.5)));
        Charts.series(latency, "p95", t, Charts.positive(scrapes.quantileMs(bucket, 0.95)));
        Charts.series(latency, "p99", t, Charts.positive(scrapes.quantileMs(bucket, 0.99)));

        XYChart grants = Charts.chart("Grants and timeouts per second (5 s rate)", "grants per second");
        Charts.series(grants, "grants/s (left)", t, scrapes.rate("zkfence_lock_grants_total"));
        Charts.series(grants, "timeouts/s (right)", t, scrapes.rate("zkfence_lock_timeouts_total"))
                .setYAxisGroup(1);
        grants.setYAxisGroupTitle(1, "timeouts per second");
        grants.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);

        XYChart lost = Charts.chart("Leases lost by cause, forced releases, stale rejections (cumulative)", "count");
        for (String cause : List.of("max_hold", "node_deleted", "session_expired")) {
            Charts.series(
                    lost, "lost: " + cause, t, scrapes.sum("zkfence_lease_lost_total", "cause=\"" + cause + "\""));
        }
        Charts.series(lost, "suspect", t, scrapes.sum("zkfence_lease_suspect_total"))
                .setLineStyle(SeriesLines.DASH_DASH);
        Charts.series(
                        lost,
                        "forced (admin)",
                        t,
                        scrapes.sum("zkfence_admin_force_releases_total", "outcome=\"released\""))
                .setLineStyle(SeriesLines.DASH_DASH);
        Charts.series(
                        lost,
                        "stale rejections (jdbc)",
                        t,
                        scrapes.sum("zkfence_fence_writes_total", "outcome=\"stale\""))
                .setLineStyle(SeriesLines.DOT_DOT);

        XYChart queue = Charts.chart("Waiters and deepest queue", "count");
        Charts.series(queue, "waiters", t, scrapes.sum("zkfence_lock_waiters"));
        Charts.series(queue, "deepest queue", t, scrapes.max("zkfence_lock_queue_depth"));
        Charts.series(queue, "held", t, scrapes.sum("zkfence_lock_held"));

        Charts.write(List.of(latency, grants, lost, queue), png);
    }

    private void summary(Path txt) {
        StringBuilder sb = new StringBuilder();
        sb.append("zkfence metrics run: ")
                .append(WORKERS)
                .append(" workers on ")
                .append(LOCKS)
                .append(" locks, 3-server embedded ZooKeeper, embedded PostgreSQL; scraped every second (")
                .append(scrapes.size())
                .append(" scrapes). Made by io.zkfence.bench.MetricsRun.\n\nTimeline:\n");
        timeline.appendTo(sb);
        sb.append("\nTotals at the end (summed over clients):\n");
        Map<String, double[]> totals = new LinkedHashMap<>();
        totals.put("zkfence_lock_grants_total", scrapes.sum("zkfence_lock_grants_total"));
        totals.put("zkfence_lock_timeouts_total", scrapes.sum("zkfence_lock_timeouts_total"));
        totals.put("zkfence_lock_wakeups_total", scrapes.sum("zkfence_lock_wakeups_total"));
        totals.put("zkfence_lock_wait_seconds_count", scrapes.sum("zkfence_lock_wait_seconds_count"));
        totals.put("zkfence_lease_suspect_total", scrapes.sum("zkfence_lease_suspect_total"));
        for (String cause : List.of("session_expired", "node_deleted", "max_hold", "other")) {
            totals.put(
                    "zkfence_lease_lost_total{cause=\"" + cause + "\"}",
                    scrapes.sum("zkfence_lease_lost_total", "cause=\"" + cause + "\""));
        }
        totals.put(
                "zkfence_admin_force_releases_total{outcome=\"released\"}",
                scrapes.sum("zkfence_admin_force_releases_total", "outcome=\"released\""));
        for (String outcome : List.of("accepted", "stale", "conflict")) {
            totals.put(
                    "zkfence_fence_writes_total{adapter=\"jdbc\",outcome=\"" + outcome + "\"}",
                    scrapes.sum("zkfence_fence_writes_total", "adapter=\"jdbc\"", "outcome=\"" + outcome + "\""));
        }
        totals.forEach((k, v) -> sb.append(String.format("  %-62s %,.0f%n", k, v[v.length - 1])));
        sb.append(String.format("  (the workers themselves caught %,d AcquireTimeoutExceptions)%n", timeouts.get()));
        sb.append(String.format(
                "%nAcquire latency over the whole run: p50 %.1f ms, p99 %.1f ms (from the buckets)%n",
                scrapes.wholeRunQuantileMs("zkfence_lock_acquire_seconds_bucket", 0.5),
                scrapes.wholeRunQuantileMs("zkfence_lock_acquire_seconds_bucket", 0.99)));
        try {
            Files.writeString(txt, sb.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + txt, e);
        }
        System.out.print(sb);
    }

    // ---- PostgreSQL ----

    private static EmbeddedPostgres start(Closer closer) {
        try {
            return closer.add(EmbeddedPostgres.builder()
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
        }
    }

    private static HikariDataSource pool(EmbeddedPostgres pg) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
        config.setUsername("postgres");
        config.setMaximumPoolSize(WORKERS + 2);
        return new HikariDataSource(config);
    }

    private static void prepare(HikariDataSource db) {
        try (var c = db.getConnection();
                Statement s = c.createStatement()) {
            s.execute("create table if not exists metrics_orders (name varchar(64) primary key, writes bigint not null,"
                    + " last_token bigint)");
            for (int i = 0; i < LOCKS; i++) {
                s.execute("insert into metrics_orders values ('orders:" + i + "', 0, null) on conflict do nothing");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare the table", e);
        }
    }
}
