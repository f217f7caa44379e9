package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;

/**
 * Workload 11 (section 9c): the lock service at scale. Many leases held at once, each renewed at
 * a third of its TTL, through two replicas that run as JVMs of their own on the bench ensemble, by
 * a driver JVM ({@link ScaleDriver}) that calls the real HTTP API; then waiters queued behind held
 * keys, and their drain; the same numbers of leases kept alive on etcd in the same run. Measured
 * at each level: renewals per second and their latency, the ZooKeeper writes and requests per
 * second, the CPU of every process, each replica's heap (after a full GC) and threads, the
 * ensemble's znodes and snapshot; and the ensemble's own write ceiling without the service. Then
 * the same levels again with every owner renewing all its leases in one batch call
 * ({@code POST /v1/leases/renew}): one ZooKeeper transaction per batch instead of one per lease.
 *
 * <p>Not part of {@code ./bench}: minutes long, it runs with {@code ./bench --only service-scale}.
 */
final class ServiceScaleBench implements Workload {

    static final String NAME = "service-scale";

    private static final int REPLICAS = 2;
    /** The replicas' {@code --root}. */
    private static final String ROOT = "/bench/scale";
    /** The replicas' heap: twice the Kubernetes manifests' (512 MiB limit, 70 % heap), room to see growth. */
    private static final List<String> REPLICA_JVM = List.of("-Xmx1g");

    private static final List<String> DRIVER_JVM = List.of("-Xms512m", "-Xmx2g");
    private static final Duration ANSWER = Duration.ofMinutes(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Set (to anything) in the environment, the run measures only the batch renewal's levels and
     * etcd's, not the one-by-one renewals nor the waiters: for a rerun of those rows when the whole
     * workload (about 16 minutes) does not fit.
     */
    static final String BATCH_ONLY = "ZKFENCE_SCALE_BATCH_ONLY";

    static boolean batchOnly() {
        String v = System.getenv(BATCH_ONLY);
        return v != null && !v.isBlank();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public boolean optIn() {
        return true;
    }

    /** Counters of the whole system at one moment; a window is the difference of two. */
    private record Mark(
            long nanos, long zxid, long received, List<Long> replicaCpu, long harnessCpu, JsonNode driver) {}

    /** One replica's JVM after a window. */
    record ReplicaState(long heapAfterGc, long heapCommitted, int javaThreads, int osThreads, long rss) {}

    /**
     * The driver's side of a measured window, the same for the service's leases and etcd's: from its
     * statistics at the window's start and end.
     *
     * @param held the leases held at the end
     * @param lost the leases lost so far (a renewal refused: the lease had ended)
     * @param errors the renewals failed so far (transport, 5xx)
     * @param seconds the window's length
     * @param calls the renewals (keep-alives on etcd) answered in the window
     * @param perSecond those per second
     * @param latency their latency, null when none completed in the window
     * @param latenessP99Ms p99 of how late a renewal was sent, in ms
     * @param cores the driver's CPU, in cores
     * @param batchCallsPerSecond batch renewal calls per second (0 when the leases renew one by one);
     *     the latency is then a whole owner's round (its batches sent at once, all answered)
     */
    record DriverWindow(
            long held,
            long lost,
            long errors,
            double seconds,
            long calls,
            double perSecond,
            Latency latency,
            double latenessP99Ms,
            double cores,
            double batchCallsPerSecond) {

        static DriverWindow of(JsonNode a, JsonNode b, double seconds) {
            long calls = b.path("renewOk").asLong() - a.path("renewOk").asLong();
            Histogram latency = Histograms.decode(b.path("renewLatency").asText());
            Histogram late = Histograms.decode(b.path("lateness").asText());
            return new DriverWindow(
                    b.path("held").asLong(),
                    b.path("renewLost").asLong(),
                    b.path("renewErrors").asLong(),
                    seconds,
                    calls,
                    calls / seconds,
                    latency.getTotalCount() == 0 ? null : Latency.of(latency),
                    late.getTotalCount() == 0 ? 0 : late.getValueAtPercentile(99) / 1e6,
                    (b.path("cpuNanos").asLong() - a.path("cpuNanos").asLong()) / 1e9 / seconds,
                    (b.path("batchCalls").asLong() - a.path("batchCalls").asLong()) / seconds);
        }

        /** This window with its leases lost and renewals failed counted from {@code base} (a driver's statistics) on. */
        DriverWindow since(JsonNode base) {
            return new DriverWindow(
                    held,
                    lost - base.path("renewLost").asLong(),
                    errors - base.path("renewErrors").asLong(),
                    seconds,
                    calls,
                    perSecond,
                    latency,
                    latenessP99Ms,
                    cores,
                    batchCallsPerSecond);
        }

        /** "p50 x, p99 y" of the latency, "-" for each when none completed in the window. */
        String p50p99() {
            return "p50 " + (latency == null ? "-" : Fmt.us(latency.p50())) + ", p99 "
                    + (latency == null ? "-" : Fmt.us(latency.p99()));
        }
    }

    /** A measured window of service leases. */
    record ServiceRow(
            String level,
            int leases,
            DriverWindow driver,
            double zkWritesPerSecond,
            double zkRequestsPerSecond,
            double writesPerRenewal,
            double requestsPerRenewal,
            List<Double> replicaCores,
            double zkCores,
            List<ReplicaState> replicas,
            long znodes,
            long dataBytes,
            long snapshotBytes,
            Map<String, Long> writesByKind) {

        double replicaCoresTotal() {
            return replicaCores.stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    /** A measured window of etcd leases. */
    record EtcdRow(
            int leases,
            DriverWindow driver,
            double proposalsPerSecond,
            double etcdCores,
            long rss,
            long heapInUse,
            long goroutines,
            long dbBytes) {}

    @Override
    public Section run(BenchContext ctx) {
        ScaleSettings s = ctx.settings().smoke() ? ScaleSettings.smoke() : ScaleSettings.full();
        Results r = ctx.results();
        try (Closer closer = new Closer()) {
            List<CuratorFramework> sessions = new ArrayList<>();
            for (int i = 0; i < ZkCeiling.SESSIONS; i++) {
                sessions.add(closer.add(ctx.zk().curator()));
            }
            ctx.log()
                    .say(
                            "service-scale: the ensemble's own ceiling, %d sessions x %d outstanding, %d s per shape",
                            ZkCeiling.SESSIONS,
                            ZkCeiling.OUTSTANDING,
                            s.ceiling().toSeconds());
            ZkCeiling.Result ceiling = ZkCeiling.measure(sessions, s.ceiling());
            r.figure("service_scale.ceiling.writes_per_s", ceiling.writesPerSecond());
            r.figure("service_scale.ceiling.renewals_per_s", ceiling.renewalsPerSecond());
            ctx.log()
                    .say(
                            "service-scale: %.0f writes/s, %.0f read+write renewals/s",
                            ceiling.writesPerSecond(), ceiling.renewalsPerSecond());

            List<ColdReplica> replicas = new ArrayList<>();
            List<ProcessProbe> probes = new ArrayList<>();
            for (int i = 0; i < REPLICAS; i++) {
                ColdReplica replica = closer.add(ColdReplica.start(
                        ctx.zk().connectStringAll(),
                        ROOT,
                        REPLICA_JVM,
                        List.of("--warm-up-cycles", Integer.toString(s.replicaWarmUp()))));
                replicas.add(replica);
                probes.add(closer.add(new ProcessProbe(replica.pid())));
                ctx.log()
                        .say(
                                "service-scale: replica %d (pid %d) ready on port %d in %d ms",
                                i,
                                replica.pid(),
                                replica.port(),
                                replica.timeToReady().toMillis());
            }
            ProcessProbe harness =
                    closer.add(new ProcessProbe(ProcessHandle.current().pid()));
            List<ReplicaState> idle = replicaStates(probes);
            long idleSnapshot = ctx.zk().snapshotBytes();
            long idleZnodes = Long.parseLong(ctx.zk().mntr().getOrDefault("zk_znode_count", "0"));

            WorkerProcess driver =
                    closer.add(WorkerProcess.start("scale-driver", DRIVER_JVM, ScaleDriver.class, List.of()));
            driver.await(ScaleDriver.READY, ScaleDriver.FAILED, Duration.ofSeconds(60));
            ask(
                    driver,
                    "SERVICE "
                            + String.join(
                                    ",",
                                    replicas.stream()
                                            .map(p -> Integer.toString(p.port()))
                                            .toList()),
                    "OK");

            List<ServiceRow> rows = new ArrayList<>();
            WaiterResult waiters = null;
            boolean batchOnly = batchOnly();
            if (batchOnly) {
                ctx.log().say("service-scale: %s is set: only the batch renewal's rows and etcd's", BATCH_ONLY);
            } else {
                Levels service =
                        new Levels(s.levels(), "L", (prefix, count) -> hold(ctx, driver, "HOLD", "", prefix, count, s));
                // The first level, then waiters queued behind its holders, then the next levels.
                String first = service.hold(0);
                rows.add(levelWindow(ctx, s, driver, probes, harness, first, 0, null));
                waiters = waiters(ctx, s, driver, probes, harness, replicas, first);
                service.released(s.waiterKeys());
                for (int i = 1; i < s.levels().size(); i++) {
                    String prefix = service.hold(i);
                    rows.add(levelWindow(ctx, s, driver, probes, harness, prefix, i, null));
                }
                figures(r, rows, waiters, idle, idleSnapshot, idleZnodes);
            }

            // The same levels, renewed in batches: one call per owner (100 owners) and round.
            ask(driver, "STOP", "STOPPED ");
            // Its rows count the leases lost and renewals failed from here, not the one-by-one levels'.
            JsonNode batchStart = stats(driver, "STATS");
            List<ServiceRow> batchRows = new ArrayList<>();
            Levels batched = new Levels(
                    s.levels(), "B", (prefix, count) -> hold(ctx, driver, "BHOLD", "batched ", prefix, count, s));
            for (int i = 0; i < s.levels().size(); i++) {
                String prefix = batched.hold(i);
                batchRows.add(levelWindow(ctx, s, driver, probes, harness, prefix, i, batchStart));
            }
            for (ServiceRow row : batchRows) {
                rowFigures(r, row);
                r.figure(
                        "service_scale." + row.level() + ".batch_calls_per_s",
                        row.driver().batchCallsPerSecond());
            }

            List<EtcdRow> etcdRows = new ArrayList<>();
            Optional<Path> binary = EtcdServer.binary();
            String etcdVersion = null;
            String etcdAbsent = null;
            if (binary.isEmpty()) {
                etcdAbsent = "etcd is not installed (no `etcd` on PATH; Debian's etcd-server package, which ./bench"
                        + " installs when it can)";
                ctx.log().say("service-scale: etcd rows skipped: %s", etcdAbsent);
            } else {
                // The service's leases are no longer renewed (they expire; nothing reads them again), so
                // its replicas and the ensemble sit idle while etcd is measured.
                ask(driver, "STOP", "STOPPED ");
                EtcdServer etcd = closer.add(EtcdServer.start(binary.get()));
                etcdVersion = etcd.version();
                ProcessProbe etcdProbe = closer.add(new ProcessProbe(etcd.pid()));
                ask(driver, "ETCD " + etcd.endpoint().replace("http://", ""), "OK");
                Levels etcdLevels = new Levels(
                        s.levels(), "E", (prefix, count) -> hold(ctx, driver, "EHOLD", "etcd ", prefix, count, s));
                for (int i = 0; i < s.levels().size(); i++) {
                    etcdLevels.hold(i);
                    etcdRows.add(etcdWindow(
                            ctx,
                            s,
                            driver,
                            etcd,
                            etcdProbe,
                            s.levels().get(i),
                            s.etcdWindows().get(i)));
                }
                etcdFigures(r, etcdRows);
            }
            Map<String, Map<String, Long>> renewErrors = renewErrorsBy(stats(driver, "STATS"));
            renewErrors.forEach((phase, causes) ->
                    causes.forEach((cause, n) -> r.figure("service_scale.renew_errors_by." + phase + "." + cause, n)));
            driver.quit(ScaleDriver.QUIT);
            return ScaleReport.section(
                    ctx,
                    batchOnly,
                    s,
                    ceiling,
                    rows,
                    batchRows,
                    waiters,
                    idle,
                    idleSnapshot,
                    etcdRows,
                    etcdVersion,
                    etcdAbsent,
                    renewErrors);
        }
    }

    /** The driver's renewals failed, by phase ({@code <level>.ramp|settle|window|after}) and cause, in order. */
    private static Map<String, Map<String, Long>> renewErrorsBy(JsonNode stats) {
        Map<String, Map<String, Long>> byPhase = new LinkedHashMap<>();
        stats.path("renewErrorsBy").properties().forEach(phase -> {
            Map<String, Long> causes = new LinkedHashMap<>();
            phase.getValue()
                    .properties()
                    .forEach(c -> causes.put(c.getKey(), c.getValue().asLong()));
            byPhase.put(phase.getKey(), causes);
        });
        return byPhase;
    }

    /**
     * The leases held through one level sequence: each level tops them up to its count, under a
     * prefix of its own ({@code letter} and the level).
     */
    private static final class Levels {

        /** Acquires {@code count} leases under {@code prefix}, returns how many were granted. */
        interface Hold {
            long hold(String prefix, int count);
        }

        private final List<Integer> levels;
        private final String letter;
        private final Hold hold;
        private long held;

        Levels(List<Integer> levels, String letter, Hold hold) {
            this.levels = levels;
            this.letter = letter;
            this.hold = hold;
        }

        /** Tops the leases held up to level {@code i}; returns its prefix. */
        String hold(int i) {
            int level = levels.get(i);
            String prefix = letter + level;
            held += hold.hold(prefix, (int) (level - held));
            return prefix;
        }

        /** {@code count} of the leases held were released. */
        void released(int count) {
            held -= count;
        }
    }

    /**
     * Acquires {@code count} leases under {@code prefix} (ramped) by the driver's {@code command}
     * ({@code HOLD} on the service, {@code BHOLD} on the service renewed in batches, {@code EHOLD}
     * on etcd), returns how many were granted.
     */
    private static long hold(
            BenchContext ctx,
            WorkerProcess driver,
            String command,
            String store,
            String prefix,
            int count,
            ScaleSettings s) {
        ctx.log()
                .say(
                        "service-scale: %s%s: acquiring %d leases over %d s (TTL %d s, renewed every %d s)",
                        store,
                        prefix,
                        count,
                        s.ramp().toSeconds(),
                        s.ttl().toSeconds(),
                        s.renewEvery().toSeconds());
        boolean service = !command.equals("EHOLD");
        long zxid0 = 0;
        if (service) {
            ask(driver, "PHASE " + prefix + ".ramp", "OK");
            zxid0 = ctx.zk().zxid();
        }
        String[] held = ask(
                        driver,
                        command + " " + prefix + " " + count + " " + s.ttl().toMillis() + " "
                                + s.renewEvery().toMillis() + " " + s.ramp().toMillis()
                                + (command.equals("BHOLD") ? " " + s.batchMax() : ""),
                        "HELD ")
                .split(" ");
        ctx.log()
                .say(
                        "service-scale: %s%s: %s granted, %s refused or failed in %s ms",
                        store, prefix, held[1], held[2], held[3]);
        if (service) {
            ctx.log()
                    .say(
                            "service-scale: %s%s: transactions while acquiring: %s",
                            store, prefix, census(ctx).count(zxid0, ctx.zk().zxid()));
        }
        return Long.parseLong(held[1]);
    }

    /** {@link #window} of level {@code i} (its leases and its window's length), held under {@code prefix}. */
    private ServiceRow levelWindow(
            BenchContext ctx,
            ScaleSettings s,
            WorkerProcess driver,
            List<ProcessProbe> probes,
            ProcessProbe harness,
            String prefix,
            int i,
            JsonNode since) {
        return window(
                ctx,
                s,
                driver,
                probes,
                harness,
                prefix,
                s.levels().get(i),
                s.windows().get(i),
                since);
    }

    /** Settles, then measures one window of the service's leases. */
    private ServiceRow window(
            BenchContext ctx,
            ScaleSettings s,
            WorkerProcess driver,
            List<ProcessProbe> probes,
            ProcessProbe harness,
            String level,
            int leases,
            Duration length,
            JsonNode since) {
        ctx.log()
                .say(
                        "service-scale: %s: settling %d s, then measuring %d s",
                        level, s.settle().toSeconds(), length.toSeconds());
        ask(driver, "PHASE " + level + ".settle", "OK");
        pause(s.settle());
        ask(driver, "PHASE " + level + ".window", "OK");
        Mark start = mark(ctx, driver, probes, harness);
        pause(length);
        Mark end = mark(ctx, driver, probes, harness);
        ask(driver, "PHASE " + level + ".after", "OK");
        ServiceRow row = row(ctx, level, leases, start, end, probes, since);
        // No latency ("-") when none completed in the window: the ensemble is past its ceiling, a row to record.
        ctx.log()
                .say(
                        "service-scale: %s: %d held, %.0f renewals/s (%s), %.0f ZooKeeper writes/s, %d lost",
                        level,
                        row.driver().held(),
                        row.driver().perSecond(),
                        row.driver().p50p99(),
                        row.zkWritesPerSecond(),
                        row.driver().lost());
        ctx.log().say("service-scale: %s: transactions in the window: %s", level, row.writesByKind());
        return row;
    }

    private ServiceRow row(
            BenchContext ctx,
            String level,
            int leases,
            Mark start,
            Mark end,
            List<ProcessProbe> probes,
            JsonNode since) {
        double seconds = (end.nanos() - start.nanos()) / 1e9;
        DriverWindow window = DriverWindow.of(start.driver(), end.driver(), seconds);
        DriverWindow d = since == null ? window : window.since(since);
        long renewals = d.calls();
        List<Double> replicaCores = new ArrayList<>();
        for (int i = 0; i < end.replicaCpu().size(); i++) {
            replicaCores.add((end.replicaCpu().get(i) - start.replicaCpu().get(i)) / 1e9 / seconds);
        }
        long writes = end.zxid() - start.zxid();
        long requests = end.received() - start.received();
        List<ReplicaState> states = replicaStates(probes);
        Map<String, String> mntr = ctx.zk().mntr();
        long snapshot = ctx.zk().snapshotBytes();
        return new ServiceRow(
                level,
                leases,
                d,
                writes / seconds,
                requests / seconds,
                renewals == 0 ? 0 : writes / (double) renewals,
                renewals == 0 ? 0 : requests / (double) renewals,
                replicaCores,
                (end.harnessCpu() - start.harnessCpu()) / 1e9 / seconds,
                states,
                Long.parseLong(mntr.getOrDefault("zk_znode_count", "0")),
                Long.parseLong(mntr.getOrDefault("zk_approximate_data_size", "0")),
                snapshot,
                census(ctx).count(start.zxid(), end.zxid()));
    }

    /** What the pinned server's transaction log says was written. */
    private static TxnCensus census(BenchContext ctx) {
        return new TxnCensus(ctx.zk().dataDirectory(), ROOT);
    }

    /** What the waiters' level measured. */
    record WaiterResult(
            int waiters,
            int keys,
            double queuedSeconds,
            long waitsOpen,
            ServiceRow waiting,
            long granted,
            long failed,
            long grantedEarly,
            double drainSeconds) {}

    /**
     * Queues waiters behind the first level's holders, measures a window while they wait (the
     * holders renew), then releases the holders: each key hands over to its waiters in turn, each
     * released as soon as granted.
     */
    private WaiterResult waiters(
            BenchContext ctx,
            ScaleSettings s,
            WorkerProcess driver,
            List<ProcessProbe> probes,
            ProcessProbe harness,
            List<ColdReplica> replicas,
            String prefix) {
        int keys = s.waiterKeys();
        int total = keys * s.waitersPerKey();
        ctx.log().say("service-scale: queueing %d waiters, %d on each of %d held keys", total, s.waitersPerKey(), keys);
        long t0 = System.nanoTime();
        ask(
                driver,
                "WAIT " + prefix + " " + keys + " " + s.waitersPerKey() + " "
                        + s.waitFor().toMillis() + " " + s.ramp().toMillis(),
                "SENT ");
        // Queued once the replicas count every one as an open wait (the gauge the dashboard shows).
        // Not longer than leaves the first ones waiting through the window: a level where fewer queued
        // is measured with those, and the report says how many.
        Duration patience =
                s.waitFor().minus(s.settle()).minus(s.waiterWindow()).dividedBy(2);
        long deadline = t0 + patience.toNanos();
        long open = waitsOpen(replicas);
        while (open < total && System.nanoTime() < deadline) {
            pause(Duration.ofMillis(200));
            open = waitsOpen(replicas);
        }
        double queued = (System.nanoTime() - t0) / 1e9;
        ctx.log().say("service-scale: %d of %d waiting after %.1f s", open, total, queued);
        ServiceRow waiting = window(
                ctx, s, driver, probes, harness, prefix + "+waiters", s.levels().getFirst(), s.waiterWindow(), null);
        ctx.log().say("service-scale: releasing the %d holders; each waiter releases when granted", keys);
        String[] drained = ask(
                        driver,
                        "DRAIN " + prefix + " " + keys + " " + s.waitFor().toMillis(),
                        "DRAINED ")
                .split(" ");
        JsonNode after = stats(driver, "STATS");
        WaiterResult result = new WaiterResult(
                total,
                keys,
                queued,
                open,
                waiting,
                Long.parseLong(drained[1]),
                Long.parseLong(drained[2]),
                after.path("waitersGrantedEarly").asLong(),
                Long.parseLong(drained[3]) / 1e3);
        ctx.log()
                .say(
                        "service-scale: %d waiters granted and released in %.1f s (%.0f grants/s), %d failed;"
                                + " %d holders' releases failed",
                        result.granted(),
                        result.drainSeconds(),
                        result.granted() / result.drainSeconds(),
                        result.failed(),
                        after.path("holderReleasesFailed").asLong());
        return result;
    }

    /** Acquires waiting in the replicas now, by their own gauge. */
    private static long waitsOpen(List<ColdReplica> replicas) {
        double open = 0;
        for (ColdReplica replica : replicas) {
            open += PromText.scrape("http://127.0.0.1:" + replica.port() + "/metrics")
                    .sum("zkfence_service_waits_open");
        }
        return Math.round(open);
    }

    /** Settles, then measures one window of etcd's leases. */
    private EtcdRow etcdWindow(
            BenchContext ctx,
            ScaleSettings s,
            WorkerProcess driver,
            EtcdServer etcd,
            ProcessProbe probe,
            int leases,
            Duration length) {
        ctx.log()
                .say(
                        "service-scale: etcd %d leases: settling %d s, then measuring %d s",
                        leases, s.settle().toSeconds(), length.toSeconds());
        pause(s.settle());
        String metrics = etcd.endpoint() + "/metrics";
        JsonNode a = stats(driver, "ESTATS");
        long cpu0 = probe.cpuNanos();
        double proposals0 = PromText.scrape(metrics).sum("etcd_server_proposals_committed_total");
        long t0 = System.nanoTime();
        pause(length);
        JsonNode b = stats(driver, "ESTATS");
        long cpu1 = probe.cpuNanos();
        PromText m = PromText.scrape(metrics);
        double seconds = (System.nanoTime() - t0) / 1e9;
        EtcdRow row = new EtcdRow(
                leases,
                DriverWindow.of(a, b, seconds),
                (m.sum("etcd_server_proposals_committed_total") - proposals0) / seconds,
                (cpu1 - cpu0) / 1e9 / seconds,
                probe.rssBytes(),
                (long) m.sum("go_memstats_heap_inuse_bytes"),
                (long) m.sum("go_goroutines"),
                (long) m.sum("etcd_mvcc_db_total_size_in_bytes"));
        ctx.log()
                .say(
                        "service-scale: etcd %d leases: %d held, %.0f keep-alives/s (%s), %.1f proposals/s, %d lost",
                        leases,
                        row.driver().held(),
                        row.driver().perSecond(),
                        row.driver().p50p99(),
                        row.proposalsPerSecond(),
                        row.driver().lost());
        return row;
    }

    private static void figures(
            Results r,
            List<ServiceRow> rows,
            WaiterResult waiters,
            List<ReplicaState> idle,
            long idleSnapshot,
            long idleZnodes) {
        List<ServiceRow> all = new ArrayList<>(rows);
        all.add(waiters.waiting());
        r.figure("service_scale.idle.snapshot_bytes", idleSnapshot);
        r.figure("service_scale.idle.znodes", idleZnodes);
        for (int i = 0; i < idle.size(); i++) {
            r.figure(
                    "service_scale.idle.replica_" + i + ".heap_after_gc_bytes",
                    idle.get(i).heapAfterGc());
        }
        for (ServiceRow row : all) {
            rowFigures(r, row);
        }
        r.figure("service_scale.waiters.count", waiters.waiters());
        r.figure("service_scale.waiters.keys", waiters.keys());
        r.figure("service_scale.waiters.queued_s", waiters.queuedSeconds());
        r.figure("service_scale.waiters.waits_open", waiters.waitsOpen());
        r.figure("service_scale.waiters.drain.granted", waiters.granted());
        r.figure("service_scale.waiters.drain.failed", waiters.failed());
        r.figure("service_scale.waiters.granted_early", waiters.grantedEarly());
        r.figure("service_scale.waiters.drain.seconds", waiters.drainSeconds());
        if (waiters.drainSeconds() > 0) {
            r.figure("service_scale.waiters.drain.grants_per_s", waiters.granted() / waiters.drainSeconds());
        }
    }

    /** One measured window's figures, under {@code service_scale.<level>}. */
    private static void rowFigures(Results r, ServiceRow row) {
        String p = "service_scale." + row.level().replace('+', '_');
        r.figure(p + ".leases", row.leases());
        driverFigures(r, p, row.driver(), "renew", "renewals");
        r.figure(p + ".zk_writes_per_s", row.zkWritesPerSecond());
        r.figure(p + ".zk_requests_per_s", row.zkRequestsPerSecond());
        r.figure(p + ".zk_writes_per_renewal", row.writesPerRenewal());
        r.figure(p + ".zk_requests_per_renewal", row.requestsPerRenewal());
        r.figure(p + ".replica_cores", row.replicaCoresTotal());
        r.figure(p + ".zk_cores", row.zkCores());
        r.figure(p + ".driver_cores", row.driver().cores());
        if (row.driver().perSecond() > 0) {
            r.figure(
                    p + ".replica_cpu_us_per_renewal",
                    row.replicaCoresTotal() * 1e6 / row.driver().perSecond());
        }
        if (row.zkWritesPerSecond() > 0) {
            r.figure(p + ".zk_cpu_us_per_write", row.zkCores() * 1e6 / row.zkWritesPerSecond());
        }
        for (int i = 0; i < row.replicas().size(); i++) {
            ReplicaState st = row.replicas().get(i);
            String q = p + ".replica_" + i;
            r.figure(q + ".heap_after_gc_bytes", st.heapAfterGc());
            r.figure(q + ".heap_committed_bytes", st.heapCommitted());
            r.figure(q + ".java_threads", st.javaThreads());
            r.figure(q + ".os_threads", st.osThreads());
            r.figure(q + ".rss_bytes", st.rss());
            r.figure(q + ".cores", row.replicaCores().get(i));
        }
        r.figure(p + ".znodes", row.znodes());
        r.figure(p + ".zk_data_bytes", row.dataBytes());
        r.figure(p + ".snapshot_bytes", row.snapshotBytes());
        double seconds = row.driver().seconds();
        row.writesByKind().forEach((kind, n) -> r.figure(p + ".zk_txn_per_s." + kind, n / seconds));
    }

    private static void etcdFigures(Results r, List<EtcdRow> rows) {
        for (EtcdRow row : rows) {
            String p = "service_scale.etcd_" + row.leases();
            driverFigures(r, p, row.driver(), "keep_alive", "keep_alives");
            r.figure(p + ".proposals_per_s", row.proposalsPerSecond());
            r.figure(p + ".etcd_cores", row.etcdCores());
            r.figure(p + ".driver_cores", row.driver().cores());
            r.figure(p + ".rss_bytes", row.rss());
            r.figure(p + ".heap_in_use_bytes", row.heapInUse());
            r.figure(p + ".goroutines", row.goroutines());
            r.figure(p + ".db_bytes", row.dbBytes());
        }
    }

    /**
     * A window's driver figures under {@code p}: {@code call} names one renewal ({@code renew},
     * {@code keep_alive}), {@code calls} several.
     */
    private static void driverFigures(Results r, String p, DriverWindow d, String call, String calls) {
        r.figure(p + ".held", d.held());
        r.figure(p + ".lost", d.lost());
        r.figure(p + "." + call + "_errors", d.errors());
        r.figure(p + "." + calls + "_per_s", d.perSecond());
        if (d.latency() != null) {
            r.latency(p + "." + call, d.latency());
        }
        r.figure(p + ".lateness_p99_ms", d.latenessP99Ms());
    }

    private static Mark mark(BenchContext ctx, WorkerProcess driver, List<ProcessProbe> probes, ProcessProbe harness) {
        JsonNode stats = stats(driver, "STATS");
        List<Long> cpu = new ArrayList<>();
        for (ProcessProbe p : probes) {
            cpu.add(p.cpuNanos());
        }
        return new Mark(System.nanoTime(), ctx.zk().zxid(), ctx.zk().receivedByAll(), cpu, harness.cpuNanos(), stats);
    }

    private static List<ReplicaState> replicaStates(List<ProcessProbe> probes) {
        List<ReplicaState> states = new ArrayList<>();
        for (ProcessProbe p : probes) {
            ProcessProbe.Jvm jvm = p.jvm();
            states.add(new ReplicaState(
                    jvm.heapUsedAfterGc(), jvm.heapCommitted(), jvm.threads(), p.osThreads(), p.rssBytes()));
        }
        return states;
    }

    private static JsonNode stats(WorkerProcess driver, String command) {
        String line = ask(driver, command, "STATS ");
        try {
            return JSON.readTree(line.substring("STATS ".length()));
        } catch (IOException e) {
            throw new IllegalStateException("the driver's statistics are not JSON: " + line, e);
        }
    }

    private static String ask(WorkerProcess driver, String command, String answer) {
        driver.send(command);
        return driver.await(answer, ScaleDriver.FAILED, ANSWER).text().orElseThrow();
    }

    /** A measured pause: the workload's windows, not synchronisation. */
    private static void pause(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        for (long left = d.toNanos(); left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left); // may return early: park again for what is left
        }
    }
}
