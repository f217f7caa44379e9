package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;
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
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? (\\S+)");
    private static final Pattern METRIC_IN_QUERY = Pattern.compile("zkfence_[a-z_]+");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final List<Scrape> scrapes = Collections.synchronizedList(new ArrayList<>());
    private final List<String> timeline = Collections.synchronizedList(new ArrayList<>());
    private final long startNanos = System.nanoTime();
    private final AtomicLong timeouts = new AtomicLong();
    private String root;
    private EmbeddedEnsemble ensemble;
    private JdbcFence fence;

    /** One scrape: seconds since the start, and every sample line (name{labels} → value). */
    private record Scrape(double at, Map<String, Double> samples) {}

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

    private double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private void note(String event) {
        String line = String.format("%5.1f s  %s", now(), event);
        timeline.add(line);
        System.out.println(line);
    }

    private void run(Path out) {
        Set<String> queried = dashboardMetrics(out.resolve("zkfence-dashboard.json"));
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
                plan.add(at(script, 15 + 5 * i, () -> hungHolderLosesToMaxHold(script, hung[n], "hung-" + n)));
            }
            Lease[] stuckLease = new Lease[1];
            plan.add(at(
                    script,
                    32,
                    () -> stuckLease[0] =
                            holdAndHang(stuck, "stuck", "orders:1", "and hangs: waiters queue, acquires time out")));
            plan.add(at(script, 38, () -> forceRelease(script, operator, stuckLease[0])));
            plan.add(at(script, 48, () -> freezeHolder(script, frozen, proxy)));
            plan.add(at(script, RUN.toSeconds(), () -> stop.set(true)));
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
        checkDashboardMetrics(queried);
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

    private ScheduledFuture<?> at(ScheduledExecutorService script, double second, Runnable step) {
        long delay = Math.max(0, (long) ((second - now()) * 1000));
        return script.schedule(step, delay, TimeUnit.MILLISECONDS);
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

    // ---- scrapes and the dashboard's queries ----

    private void scrape() {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : registry.scrape().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.find()) {
                samples.put(m.group(1) + "{" + (m.group(3) == null ? "" : m.group(3)) + "}", parse(m.group(4)));
            }
        }
        scrapes.add(new Scrape(now(), samples));
    }

    private static double parse(String value) {
        return switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }

    private static Set<String> dashboardMetrics(Path dashboard) {
        Set<String> names = new TreeSet<>();
        try {
            JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
            root.findValues("expr").forEach(expr -> {
                Matcher m = METRIC_IN_QUERY.matcher(expr.asText());
                while (m.find()) {
                    names.add(m.group());
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard " + dashboard, e);
        }
        if (names.isEmpty()) {
            throw new IllegalStateException("no zkfence metric in the dashboard's queries: " + dashboard);
        }
        return names;
    }

    private void checkDashboardMetrics(Set<String> queried) {
        Set<String> scraped = new TreeSet<>();
        scrapes.get(scrapes.size() - 1).samples().keySet().forEach(k -> scraped.add(k.substring(0, k.indexOf('{'))));
        List<String> missing =
                queried.stream().filter(n -> !scraped.contains(n)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException(
                    "the dashboard queries metrics the meters do not publish: " + missing + "; published: " + scraped);
        }
        System.out.println("all " + queried.size() + " metrics the dashboard queries are in the scrape");
    }

    /** sum(metric{filter}) at each scrape, label filter as "key=\"value\"" substrings. */
    private double[] sum(String metric, String... filters) {
        double[] v = new double[scrapes.size()];
        for (int i = 0; i < v.length; i++) {
            double total = 0;
            for (Map.Entry<String, Double> e : scrapes.get(i).samples().entrySet()) {
                if (e.getKey().startsWith(metric + "{") && matches(e.getKey(), filters)) {
                    total += e.getValue();
                }
            }
            v[i] = total;
        }
        return v;
    }

    private static boolean matches(String key, String... filters) {
        for (String f : filters) {
            if (!key.contains(f)) {
                return false;
            }
        }
        return true;
    }

    /** rate(metric[WINDOW]) summed: per second over the window ending at each scrape. */
    private double[] rate(String metric, String... filters) {
        double[] total = sum(metric, filters);
        double[] r = new double[total.length];
        for (int i = 0; i < r.length; i++) {
            int j = Math.max(0, i - WINDOW_S);
            double dt = scrapes.get(i).at() - scrapes.get(j).at();
            r[i] = dt <= 0 ? 0 : Math.max(0, total[i] - total[j]) / dt;
        }
        return r;
    }

    /** histogram_quantile(q, sum by (le) (rate(bucket[WINDOW]))), in ms; NaN without events. */
    private double[] quantileMs(String bucketMetric, double q) {
        TreeMap<Double, double[]> byLe = new TreeMap<>();
        Pattern le = Pattern.compile("le=\"([^\"]+)\"");
        for (Scrape s : scrapes) {
            for (String key : s.samples().keySet()) {
                if (key.startsWith(bucketMetric + "{")) {
                    Matcher m = le.matcher(key);
                    if (m.find()) {
                        String bound = m.group(1);
                        byLe.computeIfAbsent(parse(bound), b -> rate(bucketMetric, "le=\"" + bound + "\""));
                    }
                }
            }
        }
        double[] result = new double[scrapes.size()];
        for (int i = 0; i < result.length; i++) {
            double count = byLe.isEmpty() ? 0 : byLe.lastEntry().getValue()[i];
            if (count <= 0) {
                result[i] = Double.NaN;
                continue;
            }
            double rank = q * count;
            double lowerBound = 0;
            double lowerCount = 0;
            result[i] = Double.NaN;
            for (Map.Entry<Double, double[]> b : byLe.entrySet()) {
                double c = b.getValue()[i];
                if (c >= rank) {
                    if (b.getKey().isInfinite()) {
                        result[i] = lowerBound * 1000; // Prometheus answers the highest finite bound
                    } else {
                        double upper = b.getKey();
                        result[i] = (lowerBound
                                        + (upper - lowerBound) * (rank - lowerCount) / Math.max(c - lowerCount, 1e-12))
                                * 1000;
                    }
                    break;
                }
                lowerBound = b.getKey();
                lowerCount = c;
            }
        }
        return result;
    }

    private void plot(Path png) {
        double[] t = scrapes.stream().mapToDouble(Scrape::at).toArray();
        String bucket = "zkfence_lock_acquire_seconds_bucket";
        XYChart latency = chart("Acquire latency (histogram_quantile, 5 s rate)", "ms");
        latency.getStyler().setYAxisLogarithmic(true);
        series(latency, "p50", t, positive(quantileMs(bucket, 0.5)));
        series(latency, "p95", t, positive(quantileMs(bucket, 0.95)));
        series(latency, "p99", t, positive(quantileMs(bucket, 0.99)));

        XYChart grants = chart("Grants and timeouts per second (5 s rate)", "grants per second");
        series(grants, "grants/s (left)", t, rate("zkfence_lock_grants_total"));
        series(grants, "timeouts/s (right)", t, rate("zkfence_lock_timeouts_total"))
                .setYAxisGroup(1);
        grants.setYAxisGroupTitle(1, "timeouts per second");
        grants.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);

        XYChart lost = chart("Leases lost by cause, forced releases, stale rejections (cumulative)", "count");
        for (String cause : List.of("max_hold", "node_deleted", "session_expired")) {
            series(lost, "lost: " + cause, t, sum("zkfence_lease_lost_total", "cause=\"" + cause + "\""));
        }
        series(lost, "suspect", t, sum("zkfence_lease_suspect_total")).setLineStyle(SeriesLines.DASH_DASH);
        series(lost, "forced (admin)", t, sum("zkfence_admin_force_releases_total", "outcome=\"released\""))
                .setLineStyle(SeriesLines.DASH_DASH);
        series(lost, "stale rejections (jdbc)", t, sum("zkfence_fence_writes_total", "outcome=\"stale\""))
                .setLineStyle(SeriesLines.DOT_DOT);

        XYChart queue = chart("Waiters and deepest queue", "count");
        series(queue, "waiters", t, sum("zkfence_lock_waiters"));
        series(queue, "deepest queue", t, max("zkfence_lock_queue_depth"));
        series(queue, "held", t, sum("zkfence_lock_held"));

        List<XYChart> charts = List.of(latency, grants, lost, queue);
        BufferedImage image = new BufferedImage(1400, 800, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            for (int i = 0; i < charts.size(); i++) {
                g.drawImage(BitmapEncoder.getBufferedImage(charts.get(i)), (i % 2) * 700, (i / 2) * 400, null);
            }
        } finally {
            g.dispose();
        }
        try {
            Files.createDirectories(png.getParent());
            ImageIO.write(image, "png", png.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
        System.out.println("wrote " + png);
    }

    private double[] max(String metric) {
        double[] v = new double[scrapes.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = scrapes.get(i).samples().entrySet().stream()
                    .filter(e -> e.getKey().startsWith(metric + "{"))
                    .mapToDouble(Map.Entry::getValue)
                    .max()
                    .orElse(0);
        }
        return v;
    }

    /** A log axis takes no zero: windows without a grant become gaps (NaN), as Grafana shows them. */
    private static double[] positive(double[] v) {
        double[] r = v.clone();
        for (int i = 0; i < r.length; i++) {
            if (!(r[i] > 0)) {
                r[i] = Double.NaN;
            }
        }
        return r;
    }

    private static XYChart chart(String title, String yTitle) {
        XYChart chart = new XYChartBuilder()
                .width(700)
                .height(400)
                .title(title)
                .xAxisTitle("seconds into the run")
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setMarkerSize(0);
        chart.getStyler().setDecimalPattern("#,##0.##");
        return chart;
    }

    private static XYSeries series(XYChart chart, String name, double[] x, double[] y) {
        XYSeries series = chart.addSeries(name, x, y);
        series.setMarker(SeriesMarkers.NONE);
        return series;
    }

    private void summary(Path txt) {
        Scrape last = scrapes.get(scrapes.size() - 1);
        StringBuilder sb = new StringBuilder();
        sb.append("zkfence metrics run: ")
                .append(WORKERS)
                .append(" workers on ")
                .append(LOCKS)
                .append(" locks, 3-server embedded ZooKeeper, embedded PostgreSQL; scraped every second (")
                .append(scrapes.size())
                .append(" scrapes). Made by io.zkfence.bench.MetricsRun.\n\nTimeline:\n");
        synchronized (timeline) {
            timeline.forEach(l -> sb.append("  ").append(l).append('\n'));
        }
        sb.append("\nTotals at the end (summed over clients):\n");
        Map<String, double[]> totals = new LinkedHashMap<>();
        totals.put("zkfence_lock_grants_total", sum("zkfence_lock_grants_total"));
        totals.put("zkfence_lock_timeouts_total", sum("zkfence_lock_timeouts_total"));
        totals.put("zkfence_lock_wakeups_total", sum("zkfence_lock_wakeups_total"));
        totals.put("zkfence_lock_wait_seconds_count", sum("zkfence_lock_wait_seconds_count"));
        totals.put("zkfence_lease_suspect_total", sum("zkfence_lease_suspect_total"));
        for (String cause : List.of("session_expired", "node_deleted", "max_hold", "other")) {
            totals.put(
                    "zkfence_lease_lost_total{cause=\"" + cause + "\"}",
                    sum("zkfence_lease_lost_total", "cause=\"" + cause + "\""));
        }
        totals.put(
                "zkfence_admin_force_releases_total{outcome=\"released\"}",
                sum("zkfence_admin_force_releases_total", "outcome=\"released\""));
        for (String outcome : List.of("accepted", "stale", "conflict")) {
            totals.put(
                    "zkfence_fence_writes_total{adapter=\"jdbc\",outcome=\"" + outcome + "\"}",
                    sum("zkfence_fence_writes_total", "adapter=\"jdbc\"", "outcome=\"" + outcome + "\""));
        }
        totals.forEach((k, v) -> sb.append(String.format("  %-62s %,.0f%n", k, v[v.length - 1])));
        sb.append(String.format("  (the workers themselves caught %,d AcquireTimeoutExceptions)%n", timeouts.get()));
        sb.append(String.format(
                "%nAcquire latency over the whole run: p50 %.1f ms, p99 %.1f ms (from the buckets)%n",
                wholeRunQuantile(last, 0.5), wholeRunQuantile(last, 0.99)));
        try {
            Files.writeString(txt, sb.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + txt, e);
        }
        System.out.print(sb);
    }

    private double wholeRunQuantile(Scrape last, double q) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        Pattern le = Pattern.compile("le=\"([^\"]+)\"");
        last.samples().forEach((k, v) -> {
            if (k.startsWith("zkfence_lock_acquire_seconds_bucket{")) {
                Matcher m = le.matcher(k);
                if (m.find()) {
                    buckets.merge(parse(m.group(1)), v, Double::sum);
                }
            }
        });
        double count = buckets.isEmpty() ? 0 : buckets.lastEntry().getValue();
        double rank = q * count;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> b : buckets.entrySet()) {
            if (b.getValue() >= rank) {
                if (b.getKey().isInfinite()) {
                    return lowerBound * 1000;
                }
                return (lowerBound
                                + (b.getKey() - lowerBound)
                                        * (rank - lowerCount)
                                        / Math.max(b.getValue() - lowerCount, 1e-12))
                        * 1000;
            }
            lowerBound = b.getKey();
            lowerCount = b.getValue();
        }
        return Double.NaN;
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
