package io.zkfence.bench;

import io.zkfence.lock.LockClient;
import io.zkfence.server.EmbeddedServer;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
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
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;

/**
 * The lock service's metrics run behind docs/grafana/zkfence-service-metrics-run.png: two replicas
 * of the service ({@link EmbeddedServer}, each with its own ZooKeeper client) over a real 3-server
 * ensemble, clients calling them over HTTP, and each replica's {@code GET /metrics} scraped every
 * second over HTTP as Prometheus scrapes it (each labelled with its {@code instance}). The plots
 * evaluate the dashboard's service-row queries on those scrapes (rates and
 * {@code histogram_quantile} over a 5 s window, the run being short). It fails if a
 * {@code zkfence_service_*} metric the dashboard queries is missing from the scrapes.
 *
 * <p>The workload: six workers take three keys ({@code orders:sku-0..2}) through either replica,
 * each acquire waiting at most 1.5 s, each grant held ~10 ms and released through the other
 * replica. Then, one after the other: a holder whose pod crashed (a 4 s lease never renewed)
 * expires, and renews too late when it comes back; five callers queued behind a long holder
 * close their connections; a stuck holder is force-released by an operator and its next renewal
 * is refused.
 *
 * <pre>
 * ./mvnw -B -ntp -q -pl benchmarks -am -DskipTests package
 * java -Djava.awt.headless=true -cp "benchmarks/target/classes:$(cat benchmarks/target/bench.classpath)" \
 *     io.zkfence.bench.ServiceMetricsRun docs/grafana
 * </pre>
 */
public final class ServiceMetricsRun {

    private static final int WORKERS = 6;
    private static final int KEYS = 3;
    private static final int LEAVERS = 5;
    private static final Duration RUN = Duration.ofSeconds(75);
    private static final int WINDOW_S = 5;
    private static final List<String> INSTANCES = List.of("replica-a", "replica-b");

    private final PromScrapes scrapes = new PromScrapes(WINDOW_S);
    private final RunTimeline timeline = new RunTimeline();
    private final AtomicLong granted = new AtomicLong();
    private final AtomicLong refused409 = new AtomicLong();
    private final AtomicLong otherAnswers = new AtomicLong();
    private final List<ServiceClient> replicas = new ArrayList<>();

    private ServiceMetricsRun() {}

    /**
     * Runs the workload and writes {@code <out>/zkfence-service-metrics-run.png} and
     * {@code <out>/zkfence-service-metrics-run.txt}; the dashboard is read from
     * {@code <out>/zkfence-dashboard.json}.
     *
     * @param args the output directory (default docs/grafana)
     */
    public static void main(String[] args) {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/grafana");
        new ServiceMetricsRun().run(out);
    }

    private void note(String event) {
        timeline.note(event);
    }

    private void run(Path out) {
        Set<String> queried = PromScrapes.dashboardMetrics(
                out.resolve("zkfence-dashboard.json"), name -> name.startsWith("zkfence_service_"));
        String root = "/service-metrics-run-" + ProcessHandle.current().pid();
        try (Closer closer = new Closer()) {
            EmbeddedEnsemble ensemble = closer.add(EmbeddedEnsemble.start());
            HttpClient http = ServiceClient.http();
            closer.add(http::close);
            for (int i = 0; i < INSTANCES.size(); i++) {
                CuratorFramework zk = closer.add(CuratorFrameworkFactory.newClient(
                        ensemble.connectString(), 15_000, 5_000, LockClient.defaultRetryPolicy()));
                zk.start();
                if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("replica " + INSTANCES.get(i) + ": no ZooKeeper connection");
                }
                replicas.add(new ServiceClient(
                        http, closer.add(EmbeddedServer.start(zk, root)).port()));
            }

            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            closer.add(sampler::shutdownNow);
            sampler.scheduleAtFixedRate(this::scrape, 0, 1, TimeUnit.SECONDS);

            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = closer.add(Executors.newVirtualThreadPerTaskExecutor());
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int i = 0; i < WORKERS; i++) {
                String owner = "worker-" + i;
                workers.add(CompletableFuture.runAsync(() -> work(owner, stop), pool));
            }
            note(WORKERS + " workers started on keys orders:sku-0.." + (KEYS - 1) + " through 2 replicas");

            ScheduledExecutorService script = closer.add(Executors.newSingleThreadScheduledExecutor());
            List<ScheduledFuture<?>> plan = new ArrayList<>();
            String[] crashed = new String[1];
            plan.add(timeline.at(script, 15, () -> crashed[0] = crashedHolder()));
            plan.add(timeline.at(
                    script, 23, () -> renewTooLate("crashed", "orders:sku-0", crashed[0], replicas.get(1))));
            String[] hog = new String[1];
            plan.add(timeline.at(script, 30, () -> hog[0] = hold("hog", "orders:sku-1", 30_000, "for 7 s")));
            List<Socket> leavers = Collections.synchronizedList(new ArrayList<>());
            plan.add(timeline.at(script, 31, () -> queueLeavers(leavers)));
            plan.add(timeline.at(script, 34, () -> leave(leavers)));
            plan.add(timeline.at(script, 37, () -> release("hog", "orders:sku-1", hog[0])));
            String[] stuck = new String[1];
            plan.add(timeline.at(script, 45, () -> stuck[0] = hold("stuck", "orders:sku-2", 60_000, "and hangs")));
            plan.add(timeline.at(script, 51, this::operatorForceReleases));
            plan.add(timeline.at(script, 52, () -> renewTooLate("stuck", "orders:sku-2", stuck[0], replicas.get(0))));
            plan.add(timeline.at(script, RUN.toSeconds(), () -> stop.set(true)));
            for (ScheduledFuture<?> step : plan) {
                step.get(RUN.toSeconds() + 60, TimeUnit.SECONDS);
            }
            for (CompletableFuture<Void> w : workers) {
                w.get(60, TimeUnit.SECONDS);
            }
            note("workers stopped");
            sampler.shutdownNow();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
            scrape();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the service metrics run failed", e);
        }
        scrapes.checkPublished(queried);
        plot(out.resolve("zkfence-service-metrics-run.png"));
        summary(out.resolve("zkfence-service-metrics-run.txt"));
    }

    private void scrape() {
        Map<String, String> texts = new LinkedHashMap<>();
        for (int i = 0; i < replicas.size(); i++) {
            texts.put(INSTANCES.get(i), replicas.get(i).metrics());
        }
        scrapes.add(timeline.now(), texts);
    }

    /** A worker's loop: a key at random, through a replica at random; release through the other. */
    private void work(String owner, AtomicBoolean stop) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            String key = "orders:sku-" + random.nextInt(KEYS);
            int via = random.nextInt(replicas.size());
            ServiceClient.Answer a = replicas.get(via)
                    .acquire(key, owner, 5_000, 1_500, UUID.randomUUID().toString());
            if (a.status() == 200) {
                granted.incrementAndGet();
                pause(Duration.ofMillis(5 + random.nextInt(10))); // the work done under the lock
                ServiceClient.Answer r = replicas.get(1 - via).release(key, owner, a.lockToken());
                if (r.status() != 200) {
                    otherAnswers.incrementAndGet();
                    note(owner + ": release answered " + r.status() + " " + r.body());
                }
            } else if (a.status() == 409) {
                refused409.incrementAndGet();
            } else {
                otherAnswers.incrementAndGet();
                note(owner + ": acquire answered " + a.status() + " " + a.body());
            }
        }
    }

    /** A pod takes orders:sku-0 with a 4 s lease and crashes: nobody renews or releases it. */
    private String crashedHolder() {
        ServiceClient.Answer a = replicas.get(0).acquire("orders:sku-0", "crashed", 4_000, 10_000, "crashed-1");
        note("crashed holds orders:sku-0 (fencing token "
                + a.body().path("fencingToken").asLong() + ", 4 s lease) and its pod dies: no renewal, no release");
        return a.lockToken();
    }

    private String hold(String who, String key, long ttlMillis, String what) {
        ServiceClient.Answer a = replicas.get(0).acquire(key, who, ttlMillis, 10_000, who + "-1");
        note(who + " holds " + key + " (fencing token "
                + a.body().path("fencingToken").asLong() + ") " + what);
        return a.lockToken();
    }

    private void release(String who, String key, String lockToken) {
        ServiceClient.Answer r = replicas.get(0).release(key, who, lockToken);
        note(who + " releases " + key + ": " + r.status() + " "
                + r.body().path("status").asText());
    }

    /** A holder that lost its lease renews: the replica refuses (a renew failure on its meter). */
    private void renewTooLate(String who, String key, String lockToken, ServiceClient via) {
        ServiceClient.Answer r = via.renew(key, who, lockToken, 10_000);
        note(who + " renews " + key + " too late: " + r.status() + " "
                + r.body().path("error").asText());
    }

    /** Callers queue behind the hog on replica b with long waits, each on its own connection. */
    private void queueLeavers(List<Socket> leavers) {
        for (int i = 0; i < LEAVERS; i++) {
            leavers.add(replicas.get(1).waitOnRawSocket("orders:sku-1", "leaver-" + i, 20_000));
        }
        note(LEAVERS + " callers queue on orders:sku-1 through replica-b (20 s waits)");
    }

    /** They give up: their connections close while they wait. */
    private void leave(List<Socket> leavers) {
        synchronized (leavers) {
            for (Socket s : leavers) {
                try {
                    s.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot close a waiting caller's connection", e);
                }
            }
        }
        note(LEAVERS + " waiting callers close their connections");
    }

    private void operatorForceReleases() {
        ServiceClient.Answer r = replicas.get(1).forceRelease("orders:sku-2", "stuck holder (metrics run)");
        note("operator force-releases orders:sku-2: " + r.status() + " "
                + r.body().path("status").asText());
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    // ---- plots and the summary ----

    private void plot(Path png) {
        double[] t = scrapes.times();
        String acquire = "zkfence_service_acquire_seconds_bucket";
        XYChart latency = Charts.chart("Service acquire latency by outcome (histogram_quantile, 5 s)", "ms");
        latency.getStyler().setYAxisLogarithmic(true);
        Charts.series(latency, "p50 granted", t, Charts.positive(scrapes.quantileMs(acquire, 0.5, granted())));
        Charts.series(latency, "p99 granted", t, Charts.positive(scrapes.quantileMs(acquire, 0.99, granted())));
        Charts.series(
                latency, "p99 conflict", t, Charts.positive(scrapes.quantileMs(acquire, 0.99, outcome("conflict"))));
        Charts.series(
                latency, "p50 abandoned", t, Charts.positive(scrapes.quantileMs(acquire, 0.5, outcome("abandoned"))));

        String count = "zkfence_service_acquire_seconds_count";
        XYChart perSecond = Charts.chart("Service acquires per second by outcome (5 s rate)", "granted per second");
        Charts.series(perSecond, "granted (left)", t, scrapes.rate(count, granted()));
        Charts.series(perSecond, "conflict (right)", t, scrapes.rate(count, outcome("conflict")))
                .setYAxisGroup(1);
        Charts.series(perSecond, "abandoned (right)", t, scrapes.rate(count, outcome("abandoned")))
                .setYAxisGroup(1);
        perSecond.setYAxisGroupTitle(1, "conflict, abandoned per second");
        perSecond.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);

        XYChart waits = Charts.chart("Waits open now, waits abandoned (cumulative)", "count");
        Charts.series(waits, "waiting now (both replicas)", t, scrapes.sum("zkfence_service_waits_open"));
        Charts.series(waits, "abandoned", t, scrapes.sum("zkfence_service_waits_abandoned_total"))
                .setLineStyle(SeriesLines.DASH_DASH);

        XYChart ends = Charts.chart("Expiries, renew failures, forced releases (cumulative)", "count");
        Charts.series(ends, "expired", t, scrapes.sum("zkfence_service_expiries_total"));
        for (String error : List.of("LOCK_EXPIRED", "NOT_LOCK_OWNER")) {
            Charts.series(
                            ends,
                            "renew refused: " + error,
                            t,
                            scrapes.sum("zkfence_service_renew_failures_total", "error=\"" + error + "\""))
                    .setLineStyle(SeriesLines.DASH_DASH);
        }
        Charts.series(
                        ends,
                        "forced: released",
                        t,
                        scrapes.sum("zkfence_service_force_releases_total", "outcome=\"released\""))
                .setLineStyle(SeriesLines.DOT_DOT);

        XYChart times = Charts.chart("Service wait and hold time (histogram_quantile, 5 s)", "ms");
        times.getStyler().setYAxisLogarithmic(true);
        Charts.series(
                times, "wait p50", t, Charts.positive(scrapes.quantileMs("zkfence_service_wait_seconds_bucket", 0.5)));
        Charts.series(
                times, "wait p99", t, Charts.positive(scrapes.quantileMs("zkfence_service_wait_seconds_bucket", 0.99)));
        Charts.series(
                times, "hold p50", t, Charts.positive(scrapes.quantileMs("zkfence_service_hold_seconds_bucket", 0.5)));
        Charts.series(
                times, "hold p99", t, Charts.positive(scrapes.quantileMs("zkfence_service_hold_seconds_bucket", 0.99)));

        XYChart byReplica = Charts.chart("Grants per second by replica (5 s rate)", "grants per second");
        for (String instance : INSTANCES) {
            Charts.series(
                    byReplica,
                    instance,
                    t,
                    scrapes.rate("zkfence_service_grants_total", "instance=\"" + instance + "\""));
        }

        Charts.write(List.of(latency, perSecond, waits, ends, times, byReplica), png);
    }

    private static String granted() {
        return outcome("granted");
    }

    private static String outcome(String outcome) {
        return "outcome=\"" + outcome + "\"";
    }

    private void summary(Path txt) {
        StringBuilder sb = new StringBuilder();
        sb.append("zkfence service metrics run: ")
                .append(WORKERS)
                .append(" workers on ")
                .append(KEYS)
                .append(" keys through 2 replicas of the HTTP lock service, 3-server embedded ZooKeeper; each"
                        + " replica's GET /metrics scraped every second (")
                .append(scrapes.size())
                .append(" scrapes). Made by io.zkfence.bench.ServiceMetricsRun.\n\nTimeline:\n");
        timeline.appendTo(sb);
        sb.append("\nTotals at the end (summed over both replicas):\n");
        Map<String, double[]> totals = new LinkedHashMap<>();
        for (String outcome : List.of("granted", "conflict", "abandoned", "refused")) {
            totals.put(
                    "zkfence_service_acquire_seconds_count{outcome=\"" + outcome + "\"}",
                    scrapes.sum("zkfence_service_acquire_seconds_count", outcome(outcome)));
        }
        for (String name : List.of(
                "zkfence_service_grants_total",
                "zkfence_service_conflicts_total",
                "zkfence_service_waits_abandoned_total",
                "zkfence_service_expiries_total",
                "zkfence_service_wait_seconds_count",
                "zkfence_service_hold_seconds_count")) {
            totals.put(name, scrapes.sum(name));
        }
        for (String error : List.of("LOCK_EXPIRED", "NOT_LOCK_OWNER")) {
            totals.put(
                    "zkfence_service_renew_failures_total{error=\"" + error + "\"}",
                    scrapes.sum("zkfence_service_renew_failures_total", "error=\"" + error + "\""));
        }
        totals.put(
                "zkfence_service_force_releases_total{outcome=\"released\"}",
                scrapes.sum("zkfence_service_force_releases_total", "outcome=\"released\""));
        totals.forEach((k, v) -> sb.append(String.format("  %-64s %,.0f%n", k, v[v.length - 1])));
        sb.append(String.format(
                "  (the clients themselves counted %,d grants, %,d answers 409 and %,d other answers; the"
                        + " incident script's calls and the %d leavers are not in these)%n",
                granted.get(), refused409.get(), otherAnswers.get(), LEAVERS));
        String acquire = "zkfence_service_acquire_seconds_bucket";
        sb.append(String.format(
                "%nGranted acquire latency over the whole run: p50 %.1f ms, p99 %.1f ms (from the buckets)%n",
                scrapes.wholeRunQuantileMs(acquire, 0.5, granted()),
                scrapes.wholeRunQuantileMs(acquire, 0.99, granted())));
        try {
            Files.writeString(txt, sb.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + txt, e);
        }
        System.out.print(sb);
    }
}
