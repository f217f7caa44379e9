package io.zkfence.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Section 9c of the report: the lock service at scale ({@link ServiceScaleBench}), with its plots. */
final class ScaleReport {

    private ScaleReport() {}

    static Section section(
            BenchContext ctx,
            boolean batchOnly,
            ScaleSettings s,
            ZkCeiling.Result ceiling,
            List<ServiceScaleBench.ServiceRow> rows,
            List<ServiceScaleBench.ServiceRow> batchRows,
            ServiceScaleBench.WaiterResult waiters,
            List<ServiceScaleBench.ReplicaState> idle,
            long idleSnapshot,
            List<ServiceScaleBench.EtcdRow> etcd,
            String etcdVersion,
            String etcdAbsent,
            Map<String, Map<String, Long>> renewErrors) {
        StringBuilder md = new StringBuilder();
        md.append("Leases held at once on the lock service, each renewed a third of its TTL after its grant and at that"
                        + " rate (TTL ")
                .append(s.ttl().toSeconds())
                .append(" s, a renewal every ")
                .append(s.renewEvery().toSeconds())
                .append(" s), through ")
                .append(idle.size())
                .append(" replicas, each a JVM of its own (`ServerCommand --zookeeper <all three servers> --no-auth`,"
                        + " `-Xmx1g`, warmed up) on the bench ensemble (3 servers in the harness JVM, fsync on). The"
                        + " clients are one driver JVM: `java.net.http` (HTTP/1.1 keep-alive connections, asynchronous"
                        + " sends, at most ")
                .append(ScaleFleet.MAX_IN_FLIGHT)
                .append(" calls in flight, the rest waiting in order: their wait is the *lateness*) calls the real API,"
                        + " 100 owners (`pod-0` … `pod-99`) spread over the leases; each level's new leases are"
                        + " acquired evenly over ")
                .append(s.ramp().toSeconds())
                .append(" s, then every lease renews once before a window of measurement. Renewals alternate between"
                        + " the replicas. CPU is each process's own (`/proc`): the replicas, the harness JVM (the three"
                        + " ZooKeeper servers and little else while the window runs) and the driver; heap is each"
                        + " replica's after a full GC (JMX through the attach API), threads its live Java threads (JMX)"
                        + " and the kernel's count; the snapshot is one the leader writes when asked (ZooKeeper's own"
                        + " `takeSnapshot`).\n\n");

        md.append("**The ensemble alone** (no service; ")
                .append(ceiling.sessions())
                .append(" sessions on the follower every client uses, ")
                .append(ceiling.outstanding())
                .append(" requests outstanding each, 200-byte znodes, ")
                .append(s.ceiling().toSeconds())
                .append(" s per shape): ")
                .append(Fmt.num(ceiling.writesPerSecond()))
                .append(" `setData` writes/s; ")
                .append(Fmt.num(ceiling.renewalsPerSecond()))
                .append(
                        " renewals' worth of requests/s (a `getData` and a versioned `setData`, what a renewal sends).\n\n");

        if (batchOnly) {
            md.append("**Renewed one by one**: not measured in this run (`")
                    .append(ServiceScaleBench.BATCH_ONLY)
                    .append("` was set: only the batch renewal's rows and etcd's); nor were the waiters.\n");
        } else {
            md.append(
                            "| leases held | renewals/s (due) | renew p50 | p99 | p99.9 | lateness p99 | lost | ZooKeeper writes/s"
                                    + " | writes per renewal | requests per renewal | CPU cores: replicas / ZooKeeper / driver |"
                                    + " replica CPU per renewal |\n")
                    .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
            for (ServiceScaleBench.ServiceRow row : rows) {
                md.append(serviceRow(row, s, false));
            }
            md.append(serviceRow(waiters.waiting(), s, false));
        }
        md.append("\n**Batch renewal** (`POST /v1/leases/renew`), in the same run after the leases above stopped"
                        + " being renewed: the same levels again, under keys of their own, acquired the same way; each"
                        + " of the 100 owners renews all the leases it holds together every ")
                .append(s.renewEvery().toSeconds())
                .append(" s (the owners' rounds spread evenly over that period), in batches of at most ")
                .append(String.format(Locale.ROOT, "%,d", s.batchMax()))
                .append(" leases sent at once to one replica (the next one each round). Each lease is decided as the"
                        + " single renewal decides it; the batch reads its entries pipelined and writes them all in one"
                        + " ZooKeeper multi: one transaction per batch. *renewals/s* counts leases renewed; the latency"
                        + " is an owner's round (its batches all answered); the leases of the one-by-one rows (expired,"
                        + " not yet reaped) are still in the ensemble's znodes.\n\n")
                .append(
                        "| leases held | renewals/s (due) | batch calls/s | round p50 | p99 | p99.9 | lateness p99 | lost"
                                + " | ZooKeeper writes/s | writes per renewal | requests per renewal | CPU cores: replicas /"
                                + " ZooKeeper / driver | replica CPU per renewal |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
        for (ServiceScaleBench.ServiceRow row : batchRows) {
            md.append(serviceRow(row, s, true));
        }
        md.append(writesByKind(rows, waiters, batchRows));
        md.append(renewErrors(renewErrors));
        md.append(
                        "\n| leases held | replica heap after GC (each) | Java threads (each) | OS threads (each) | RSS (each)"
                                + " | znodes | ZooKeeper data | snapshot | snapshot per lease |\n")
                .append("|---|---|---|---|---|---:|---:|---:|---:|\n");
        md.append(Fmt.row(
                "none (replicas idle)",
                each(idle, st -> mib(st.heapAfterGc())),
                each(idle, st -> Integer.toString(st.javaThreads())),
                each(idle, st -> Integer.toString(st.osThreads())),
                each(idle, st -> mib(st.rss())),
                "",
                "",
                bytes(idleSnapshot),
                ""));
        List<ServiceScaleBench.ServiceRow> all = new ArrayList<>(rows);
        if (waiters != null) {
            all.add(waiters.waiting());
        }
        all.addAll(batchRows);
        for (ServiceScaleBench.ServiceRow row : all) {
            md.append(Fmt.row(
                    label(row),
                    each(row.replicas(), st -> mib(st.heapAfterGc())),
                    each(row.replicas(), st -> Integer.toString(st.javaThreads())),
                    each(row.replicas(), st -> Integer.toString(st.osThreads())),
                    each(row.replicas(), st -> mib(st.rss())),
                    String.format(Locale.ROOT, "%,d", row.znodes()),
                    bytes(row.dataBytes()),
                    bytes(row.snapshotBytes()),
                    row.leases() == 0
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    "%,.0f B",
                                    (row.snapshotBytes() - idleSnapshot)
                                            / (double) (row.leases()
                                                    + (row.level().endsWith("+waiters") ? waiters.waiters() : 0)))));
        }

        if (waiters == null) {
            md.append("\n");
        } else {
            md.append("\n**Waiters.** ")
                    .append(String.format(Locale.ROOT, "%,d", waiters.waiters()))
                    .append(" waiting acquires (`wait: true`, each on a connection of its own), ")
                    .append(waiters.waiters() / Math.max(1, waiters.keys()))
                    .append(" behind each of ")
                    .append(String.format(Locale.ROOT, "%,d", waiters.keys()))
                    .append(" held keys: ")
                    .append(String.format(Locale.ROOT, "%,d", waiters.waitsOpen()))
                    .append(" counted by the replicas' `zkfence_service_waits_open` after ")
                    .append(String.format(Locale.ROOT, "%.1f", waiters.queuedSeconds()))
                    .append(
                            " s (row *+waiters* above: measured while they wait, the holders renewing). Then the holders"
                                    + " released, every key handed over to its waiters in turn, each releasing as soon as granted: ")
                    .append(String.format(Locale.ROOT, "%,d", waiters.granted()))
                    .append(" granted and released in ")
                    .append(String.format(Locale.ROOT, "%.1f", waiters.drainSeconds()))
                    .append(" s (")
                    .append(Fmt.num(waiters.granted() / Math.max(1e-9, waiters.drainSeconds())))
                    .append(" hand-offs/s), ")
                    .append(waiters.failed())
                    .append(" failed, ")
                    .append(waiters.grantedEarly())
                    .append(" granted before their holder released.\n\n");
        }

        if (etcd.isEmpty()) {
            md.append("**etcd**: no rows: ").append(etcdAbsent).append(".\n\n");
        } else {
            md.append("**etcd ")
                    .append(
                            etcdVersion == null
                                    ? ""
                                    : etcdVersion.replaceAll("[{}\"\\n]", "").strip())
                    .append("** (one member, fsync on, a process on the same machine), in the same run after the"
                            + " service's leases stopped being renewed: the same numbers of leases, each granted"
                            + " (`LeaseGrant`, TTL ")
                    .append(s.ttl().toSeconds())
                    .append(" s) with a key put under it, then kept alive every ")
                    .append(s.renewEvery().toSeconds())
                    .append(
                            " s by the same driver through etcd's gRPC API: one `LeaseKeepAlive` message per renewal on ")
                    .append(EtcdLeases.STREAMS)
                    .append(" bidirectional streams (etcd's clients keep one stream for all of a client's leases).\n\n")
                    .append("| leases held | keep-alives/s | p50 | p99 | p99.9 | lateness p99 | lost | etcd proposals"
                            + " committed/s | CPU cores: etcd / driver | etcd RSS | Go heap in use | goroutines |"
                            + " etcd db |\n")
                    .append("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
            for (ServiceScaleBench.EtcdRow row : etcd) {
                ServiceScaleBench.DriverWindow d = row.driver();
                List<Object> cells = new ArrayList<>();
                cells.add(String.format(Locale.ROOT, "%,d", row.leases()));
                cells.add(Fmt.num(d.perSecond()));
                cells.addAll(latencyCells(d));
                cells.addAll(List.of(
                        Fmt.num(row.proposalsPerSecond()),
                        cores(row.etcdCores()) + " / " + cores(d.cores()),
                        mib(row.rss()),
                        mib(row.heapInUse()),
                        row.goroutines(),
                        mib(row.dbBytes())));
                md.append(Fmt.row(cells.toArray()));
            }
            md.append('\n');
        }
        md.append(plots(ctx, rows, batchRows, etcd));
        return new Section("9c. The lock service at scale", md.toString());
    }

    /** The kinds of transaction that make up at least this share of a window's ZooKeeper writes are named. */
    private static final double KIND_SHARE = 0.01;

    /**
     * Each window's ZooKeeper writes by kind, from the pinned server's transaction log ({@link
     * TxnCensus}): the kinds of at least {@link #KIND_SHARE} of its transactions, per second.
     */
    private static String writesByKind(
            List<ServiceScaleBench.ServiceRow> rows,
            ServiceScaleBench.WaiterResult waiters,
            List<ServiceScaleBench.ServiceRow> batchRows) {
        List<ServiceScaleBench.ServiceRow> all = new ArrayList<>(rows);
        if (waiters != null) {
            all.add(waiters.waiting());
        }
        all.addAll(batchRows);
        StringBuilder md = new StringBuilder(
                "\n**ZooKeeper writes by kind**, per second in each window, read back from the transaction log of"
                        + " the server the clients use (a multi is one write; its operations are shown after `>`;"
                        + " a failed write takes a zxid too, logged as `error`; `<root>` is the service's; kinds"
                        + " under 1 % of a window's transactions left out; all of them in the figures"
                        + " `*.zk_txn_per_s.*`):\n\n");
        for (ServiceScaleBench.ServiceRow row : all) {
            long total = row.writesByKind().entrySet().stream()
                    .filter(e -> !e.getKey().startsWith("multi> "))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            double seconds = row.driver().seconds();
            List<String> kinds = new ArrayList<>();
            row.writesByKind().forEach((kind, n) -> {
                if (n >= KIND_SHARE * total) {
                    kinds.add(Fmt.num(n / seconds) + " `" + kind + "`");
                }
            });
            md.append("- ")
                    .append(label(row))
                    .append(": ")
                    .append(kinds.isEmpty() ? "none" : String.join(", ", kinds))
                    .append('\n');
        }
        return md.toString();
    }

    /** The driver's renewals that failed (not refused: failed), by phase and cause. */
    private static String renewErrors(Map<String, Map<String, Long>> byPhase) {
        StringBuilder md = new StringBuilder("\n**Renewals failed** (a lease's renewal that got no decision: its call"
                + " failed whole, or its result named an error other than a refusal), by the phase of the run they"
                + " failed in (a level's *ramp*, *settle*, measured *window*, and *after* it until the next phase)"
                + " and cause (status and the service's `error`, or the client's exception): ");
        if (byPhase.isEmpty()) {
            return md.append("none.\n\n").toString();
        }
        List<String> parts = new ArrayList<>();
        byPhase.forEach((phase, causes) ->
                causes.forEach((cause, n) -> parts.add(String.format(Locale.ROOT, "%,d in %s (%s)", n, phase, cause))));
        return md.append(String.join("; ", parts)).append(".\n\n").toString();
    }

    /** A row of the one-by-one table, or ({@code batched}) of the batch renewal's. */
    private static String serviceRow(ServiceScaleBench.ServiceRow row, ScaleSettings s, boolean batched) {
        double due = row.leases() / (double) s.renewEvery().toSeconds();
        ServiceScaleBench.DriverWindow d = row.driver();
        List<Object> cells = new ArrayList<>();
        cells.add(label(row));
        cells.add(Fmt.num(d.perSecond()) + " (" + Fmt.num(due) + ")");
        if (batched) {
            cells.add(Fmt.num(d.batchCallsPerSecond()));
        }
        cells.addAll(latencyCells(d));
        cells.add(Fmt.num(row.zkWritesPerSecond()));
        cells.add(
                batched ? String.format(Locale.ROOT, "%.4f", row.writesPerRenewal()) : Fmt.num(row.writesPerRenewal()));
        cells.add(
                batched
                        ? String.format(Locale.ROOT, "%.2f", row.requestsPerRenewal())
                        : Fmt.num(row.requestsPerRenewal()));
        cells.add(cores(row.replicaCoresTotal()) + " / " + cores(row.zkCores()) + " / " + cores(d.cores()));
        cells.add(d.perSecond() > 0 ? Fmt.us(row.replicaCoresTotal() * 1e6 / d.perSecond()) : "—");
        return Fmt.row(cells.toArray());
    }

    /** A window's latency columns: p50, p99, p99.9, lateness p99, lost. */
    private static List<Object> latencyCells(ServiceScaleBench.DriverWindow d) {
        return List.of(
                us(d.latency(), Latency::p50),
                us(d.latency(), Latency::p99),
                us(d.latency(), Latency::p999),
                ms(d.latenessP99Ms()),
                d.lost());
    }

    /** {@code pick} of {@code l}, in µs; "—" when none completed in the window. */
    private static String us(Latency l, ToDoubleFunction<Latency> pick) {
        return l == null ? "—" : Fmt.us(pick.applyAsDouble(l));
    }

    private static String label(ServiceScaleBench.ServiceRow row) {
        if (row.level().startsWith("B")) {
            return String.format(Locale.ROOT, "%,d batched", row.leases());
        }
        return row.level().endsWith("+waiters")
                ? String.format(Locale.ROOT, "%,d + waiters", row.leases())
                : String.format(Locale.ROOT, "%,d", row.leases());
    }

    private static String plots(
            BenchContext ctx,
            List<ServiceScaleBench.ServiceRow> rows,
            List<ServiceScaleBench.ServiceRow> batchRows,
            List<ServiceScaleBench.EtcdRow> etcd) {
        List<String> levels = new ArrayList<>();
        Map<String, List<Double>> latency = new LinkedHashMap<>();
        latency.put("service renew p50", new ArrayList<>());
        latency.put("service renew p99", new ArrayList<>());
        latency.put("service batch round p50", new ArrayList<>());
        latency.put("service batch round p99", new ArrayList<>());
        Map<String, List<Double>> load = new LinkedHashMap<>();
        load.put("renewals/s", new ArrayList<>());
        load.put("ZooKeeper writes/s", new ArrayList<>());
        load.put("renewals/s (batched)", new ArrayList<>());
        load.put("ZooKeeper writes/s (batched)", new ArrayList<>());
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        cpu.put("replicas", new ArrayList<>());
        cpu.put("ZooKeeper", new ArrayList<>());
        cpu.put("service driver", new ArrayList<>());
        cpu.put("replicas (batched)", new ArrayList<>());
        cpu.put("ZooKeeper (batched)", new ArrayList<>());
        if (!etcd.isEmpty()) {
            latency.put("etcd keep-alive p50", new ArrayList<>());
            latency.put("etcd keep-alive p99", new ArrayList<>());
            load.put("etcd keep-alives/s", new ArrayList<>());
            load.put("etcd proposals/s", new ArrayList<>());
            cpu.put("etcd", new ArrayList<>());
            cpu.put("etcd driver", new ArrayList<>());
        }
        for (int i = 0; i < batchRows.size(); i++) {
            levels.add(String.format(Locale.ROOT, "%,d leases", batchRows.get(i).leases()));
            if (rows.isEmpty()) {
                // A batch-only run: no one-by-one series (their plots would show zeros).
                latency.remove("service renew p50");
                latency.remove("service renew p99");
                load.remove("renewals/s");
                load.remove("ZooKeeper writes/s");
                cpu.remove("replicas");
                cpu.remove("ZooKeeper");
                cpu.remove("service driver");
            } else {
                ServiceScaleBench.ServiceRow row = rows.get(i);
                latency.get("service renew p50").add(positiveMs(row.driver().latency(), Latency::p50));
                latency.get("service renew p99").add(positiveMs(row.driver().latency(), Latency::p99));
                load.get("renewals/s").add(row.driver().perSecond());
                load.get("ZooKeeper writes/s").add(row.zkWritesPerSecond());
                cpu.get("replicas").add(row.replicaCoresTotal());
                cpu.get("ZooKeeper").add(row.zkCores());
                cpu.get("service driver").add(row.driver().cores());
            }
            ServiceScaleBench.ServiceRow b = batchRows.get(i);
            latency.get("service batch round p50").add(positiveMs(b.driver().latency(), Latency::p50));
            latency.get("service batch round p99").add(positiveMs(b.driver().latency(), Latency::p99));
            load.get("renewals/s (batched)").add(b.driver().perSecond());
            load.get("ZooKeeper writes/s (batched)").add(b.zkWritesPerSecond());
            cpu.get("replicas (batched)").add(b.replicaCoresTotal());
            cpu.get("ZooKeeper (batched)").add(b.zkCores());
            if (!etcd.isEmpty()) {
                ServiceScaleBench.EtcdRow e = etcd.get(i);
                latency.get("etcd keep-alive p50").add(positiveMs(e.driver().latency(), Latency::p50));
                latency.get("etcd keep-alive p99").add(positiveMs(e.driver().latency(), Latency::p99));
                load.get("etcd keep-alives/s").add(e.driver().perSecond());
                load.get("etcd proposals/s").add(e.proposalsPerSecond());
                cpu.get("etcd").add(e.etcdCores());
                cpu.get("etcd driver").add(e.driver().cores());
            }
        }
        String latencyPlot = Plots.bars(
                ctx.out(),
                "service-scale-latency.png",
                "Renewal latency by leases held (service: HTTP renew, batch round; etcd: LeaseKeepAlive)",
                "leases held",
                "ms (log)",
                levels,
                latency,
                true);
        String loadPlot = Plots.bars(
                ctx.out(),
                "service-scale-load.png",
                "Renewals and the writes they cost, per second",
                "leases held",
                "per second",
                levels,
                load);
        String cpuPlot =
                Plots.bars(ctx.out(), "service-scale-cpu.png", "CPU by process", "leases held", "cores", levels, cpu);
        return "![renewal latency](" + latencyPlot + ")\n\n![renewals and writes](" + loadPlot + ")\n\n![CPU]("
                + cpuPlot + ")\n";
    }

    /** {@link #positiveMs(double)} of {@code pick} of {@code l}, taken as 0 when none completed in the window. */
    private static double positiveMs(Latency l, ToDoubleFunction<Latency> pick) {
        return positiveMs(l == null ? 0 : pick.applyAsDouble(l));
    }

    /** Milliseconds, never 0 (the latency plot's axis is logarithmic). */
    private static double positiveMs(double micros) {
        return Math.max(micros, 1) / 1e3;
    }

    private static String each(
            List<ServiceScaleBench.ReplicaState> states,
            java.util.function.Function<ServiceScaleBench.ReplicaState, String> f) {
        return String.join(" / ", states.stream().map(f).toList());
    }

    private static String cores(double c) {
        return String.format(Locale.ROOT, "%.2f", c);
    }

    private static String ms(double ms) {
        return ms < 10 ? String.format(Locale.ROOT, "%.1f ms", ms) : String.format(Locale.ROOT, "%,.0f ms", ms);
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%,.1f MiB", bytes / 1048576.0);
    }

    static String bytes(long bytes) {
        return bytes < 1 << 20 ? String.format(Locale.ROOT, "%,.0f KiB", bytes / 1024.0) : mib(bytes);
    }
}
