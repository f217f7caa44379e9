package io.zkfence.bench;

import io.zkfence.command.CommandLogging;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./bench-ab REV}: this checkout's lock-core against an earlier revision's, in one run on
 * one ensemble, with Curator beside both. The uncontended cycle runs in interleaved rounds (as
 * workload 1); the contended workload (8 sessions, one lock) and the hot lock (4 clients of 8
 * threads in cohort mode, one lock, as workload 7) alternate the variants round by round.
 * Workload 3's hand-off ring ({@link HandoffRing}) runs for each build at two or more queue
 * lengths, the builds alternating ring by ring. Same-run ratios are what a "no worse than before"
 * gate needs: they cancel the machine's drift between days, which separate runs do not.
 */
@Command(
        name = "bench-ab",
        mixinStandardHelpOptions = true,
        description = "This checkout's lock-core against an earlier build's, same run, same ensemble.")
public final class LockCoreAb implements Callable<Integer> {

    @Option(names = "--baseline-jar", required = true, description = "The earlier revision's lock-core jar")
    Path baselineJar;

    @Option(names = "--baseline-label", defaultValue = "baseline", description = "Its name in the report")
    String baselineLabel;

    @Option(
            names = "--rounds",
            defaultValue = "30",
            description = "Uncontended rounds (plus 5 warm-up). Default: ${DEFAULT-VALUE}")
    int rounds;

    @Option(
            names = "--contended-rounds",
            defaultValue = "6",
            description = "Contended and hot-lock rounds per variant. Default: ${DEFAULT-VALUE}")
    int contendedRounds;

    @Option(
            names = "--seconds",
            defaultValue = "5",
            description = "Seconds per contended or hot-lock round. Default: ${DEFAULT-VALUE}")
    int seconds;

    @Option(
            names = "--only",
            split = ",",
            paramLabel = "PART",
            description = "Run only these parts: uncontended, contended, hot, handoff. Default: all.")
    List<String> only = List.of();

    @Option(
            names = "--handoff-waiters",
            split = ",",
            defaultValue = "1,1000",
            description = "Hand-off: the queue lengths compared, the first against the last. Default: ${DEFAULT-VALUE}")
    List<Integer> handoffWaiters;

    @Option(
            names = "--handoff-rounds",
            defaultValue = "3",
            description =
                    "Hand-off: rings per build and queue length, alternating the builds. Default: ${DEFAULT-VALUE}")
    int handoffRounds;

    @Option(
            names = "--handoff-samples",
            defaultValue = "100",
            description = "Hand-off: timed hand-offs per ring (after 30 of warm-up). Default: ${DEFAULT-VALUE}")
    int handoffSamples;

    @Option(
            names = "--out",
            defaultValue = "target/bench-ab",
            description = "Where ab.md goes. Default: ${DEFAULT-VALUE}")
    Path out;

    private static final Set<String> PARTS = Set.of("uncontended", "contended", "hot", "handoff");
    private static final int HANDOFF_WARMUP = 30;
    private static final int HANDOFF_MAX_SESSIONS = 100;
    private static final int CONTENDERS = 8;
    private static final int HOT_CLIENTS = 4;
    private static final int HOT_THREADS = 8;

    /** Runs the comparison and exits with its code. */
    public static void main(String[] args) {
        System.exit(CommandLogging.execute(() -> new CommandLine(new LockCoreAb()), args));
    }

    @Override
    public Integer call() {
        if (!Files.isRegularFile(baselineJar) || rounds < 1 || contendedRounds < 1 || seconds < 1) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "need an existing --baseline-jar, --rounds >= 1, --contended-rounds >= 1 and --seconds >= 1");
        }
        if (!PARTS.containsAll(only)) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--only takes " + new TreeSet<>(PARTS) + ", not " + only);
        }
        if (handoffWaiters.size() < 2
                || handoffWaiters.stream().anyMatch(w -> w < 1)
                || handoffRounds < 1
                || handoffSamples < 1) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "need two or more --handoff-waiters of 1 or more, --handoff-rounds >= 1 and --handoff-samples >= 1");
        }
        List<ReflectiveLockCore> builds =
                List.of(ReflectiveLockCore.fromJar(baselineLabel, baselineJar), ReflectiveLockCore.current());
        StringBuilder md = new StringBuilder("# lock-core: this checkout against ")
                .append(baselineLabel)
                .append(", same run\n\n")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores; load average at" + " the start ")
                .append(MachineInfo.loadAverage())
                .append(".\n\n");
        // The clients close before the ensemble: closed after it, each would warn that it lost its server.
        try (ZkCluster zk = ZkCluster.start(true);
                Closer closer = new Closer()) {
            if (runs("uncontended")) {
                uncontended(zk, closer, builds, md);
            }
            if (runs("contended")) {
                contended(zk, closer, builds, md);
            }
            if (runs("hot")) {
                hot(zk, closer, builds, md);
            }
            if (runs("handoff")) {
                handoff(zk, builds, md);
            }
        }
        try {
            Files.createDirectories(out);
            Files.writeString(out.resolve("ab.md"), md);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(md);
        return 0;
    }

    private boolean runs(String part) {
        return only.isEmpty() || only.contains(part);
    }

    /**
     * Workload 3's ring ({@link HandoffRing}) for each build and queue length, in rings that
     * alternate the builds (ABBA...), each ring {@value #HANDOFF_WARMUP} hand-offs of warm-up and
     * {@link #handoffSamples} timed; the rings of one build and length are added up.
     */
    private void handoff(ZkCluster zk, List<ReflectiveLockCore> builds, StringBuilder md) {
        Map<String, Map<Integer, HandoffRing.Result>> results = new LinkedHashMap<>();
        builds.forEach(b -> results.put(b.label(), new LinkedHashMap<>()));
        List<String> labels = builds.stream().map(ReflectiveLockCore::label).toList();
        for (int waiters : handoffWaiters) {
            for (int round = 0; round < handoffRounds; round++) {
                for (String label : Interleaved.order(labels, round)) {
                    ReflectiveLockCore build = builds.get(labels.indexOf(label));
                    System.err.printf(
                            "bench-ab: hand-off, %s, %d waiters, ring %d of %d%n",
                            label, waiters, round + 1, handoffRounds);
                    HandoffRing.Result r = HandoffRing.run(
                            build.ring(),
                            zk::curator,
                            zk::received,
                            "/ab/" + label,
                            "handoff-" + waiters + "-" + round,
                            waiters,
                            HANDOFF_MAX_SESSIONS,
                            HANDOFF_WARMUP,
                            handoffSamples);
                    results.get(label).merge(waiters, r, HandoffRing.Result::plus);
                }
            }
        }
        int fewest = handoffWaiters.get(0);
        int most = handoffWaiters.get(handoffWaiters.size() - 1);
        md.append("\n## Hand-off behind a queue\n\n")
                .append("Workload 3's ring (docs/benchmarks/HOW.md): timed from the holder's `release()` to the next"
                        + " waiter's `acquire()` returning, with N waiters queued; waiters over at most ")
                .append(HANDOFF_MAX_SESSIONS)
                .append(" sessions. ")
                .append(handoffRounds)
                .append(" rings per build and queue length, the builds alternating, each ")
                .append(HANDOFF_WARMUP)
                .append(" hand-offs of warm-up and ")
                .append(handoffSamples)
                .append(" timed. Per hand-off: watch events, child-list reads and single-znode reads counted by the"
                        + " clients (a build without `LockStats.queueChecks()` counts none), requests by the server"
                        + " (sessions' pings included, the ring's polling taken off).\n\n")
                .append("| build | waiters | samples | p50 µs | p99 µs | watch events | child-list reads"
                        + " | single-znode reads | requests |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        results.forEach((label, byWaiters) -> byWaiters.forEach((waiters, r) -> {
            Latency l = Latency.of(r.histogram());
            md.append(Fmt.row(
                    label,
                    waiters,
                    l.count(),
                    Fmt.num(l.p50()),
                    Fmt.num(l.p99()),
                    Fmt.num(r.wakeUps()),
                    Fmt.num(r.childrenReads()),
                    Fmt.num(r.queueChecks()),
                    Fmt.num(r.requests())));
        }));
        md.append("\n| build | p50 with ")
                .append(most)
                .append(" ÷ with ")
                .append(fewest)
                .append(" |\n|---|---:|\n");
        results.forEach((label, byWaiters) -> md.append(Fmt.row(
                label,
                Fmt.ratio(Latency.of(byWaiters.get(most).histogram()).p50()
                        / Latency.of(byWaiters.get(fewest).histogram()).p50()))));
    }

    private void uncontended(ZkCluster zk, Closer closer, List<ReflectiveLockCore> builds, StringBuilder md) {
        List<Op> ops = new ArrayList<>();
        for (ReflectiveLockCore build : builds) {
            AutoCloseable client = closer.add(build.client(closer.add(zk.curator()), "/ab/" + build.label(), "ab"));
            ReflectiveLockCore.Cycle cycle = build.lock(client, "uncontended");
            ops.add(Op.of(build.label(), () -> cycle.run(() -> {})));
        }
        ops.add(new CuratorCycle(new InterProcessMutex(closer.add(zk.curator()), "/ab/curator/uncontended")));
        Map<String, Histogram> h = Interleaved.run(ops, 5, rounds, 50);
        md.append("## Uncontended acquire + release\n\n")
                .append(rounds)
                .append(" interleaved rounds of 50 cycles each"
                        + " (after 5 warm-up rounds), one session per variant, fsync on.\n\n")
                .append("| variant | p50 µs | p99 µs | p50 / ")
                .append(baselineLabel)
                .append(" | p50 / Curator |\n")
                .append("|---|---:|---:|---:|---:|\n");
        double base = h.get(baselineLabel).getValueAtPercentile(50);
        double curator = h.get("curator").getValueAtPercentile(50);
        h.forEach((name, hist) -> md.append(Fmt.row(
                name,
                Fmt.num(hist.getValueAtPercentile(50) / 1_000.0),
                Fmt.num(hist.getValueAtPercentile(99) / 1_000.0),
                Fmt.ratio(hist.getValueAtPercentile(50) / base),
                Fmt.ratio(hist.getValueAtPercentile(50) / curator))));
    }

    private void contended(ZkCluster zk, Closer closer, List<ReflectiveLockCore> builds, StringBuilder md) {
        Map<String, List<ReflectiveLockCore.Cycle>> variants = new LinkedHashMap<>();
        for (ReflectiveLockCore build : builds) {
            List<ReflectiveLockCore.Cycle> cycles = new ArrayList<>();
            for (int c = 0; c < CONTENDERS; c++) {
                AutoCloseable client =
                        closer.add(build.client(closer.add(zk.curator()), "/ab/" + build.label(), "ab-" + c));
                cycles.add(build.lock(client, "contended"));
            }
            variants.put(build.label(), cycles);
        }
        List<ReflectiveLockCore.Cycle> curator = new ArrayList<>();
        for (int c = 0; c < CONTENDERS; c++) {
            Mutex mutex = Mutex.of(new InterProcessMutex(closer.add(zk.curator()), "/ab/curator/contended"));
            curator.add(critical -> {
                try (Mutex.Held held = mutex.lock()) {
                    critical.run();
                }
                return 0;
            });
        }
        variants.put("curator", curator);
        Map<String, long[]> totals = alternate(variants);
        md.append("\n## Contended: ")
                .append(CONTENDERS)
                .append(" sessions, one lock\n\n")
                .append(contendedRounds)
                .append(" rounds of ")
                .append(seconds)
                .append(" s per variant, alternating (after one warm-up round)."
                        + " Every critical section checks exclusion.\n\n")
                .append("| variant | grants/s | / ")
                .append(baselineLabel)
                .append(" | / Curator | exclusion violations |\n")
                .append("|---|---:|---:|---:|---:|\n");
        double base = rate(totals.get(baselineLabel));
        double cur = rate(totals.get("curator"));
        totals.forEach((name, t) ->
                md.append(Fmt.row(name, Fmt.num(rate(t)), Fmt.ratio(rate(t) / base), Fmt.ratio(rate(t) / cur), t[2])));
    }

    /**
     * The hot lock, as workload 7: {@link #HOT_CLIENTS} clients (each its own session) with
     * {@link #HOT_THREADS} threads each take one lock in cohort mode (its default batch), so turns
     * pass between a client's threads under one queue node and the nodes queue behind each other;
     * Curator's mutex beside it, one {@code InterProcessMutex} per thread.
     */
    private void hot(ZkCluster zk, Closer closer, List<ReflectiveLockCore> builds, StringBuilder md) {
        Map<String, List<ReflectiveLockCore.Cycle>> variants = new LinkedHashMap<>();
        for (ReflectiveLockCore build : builds) {
            List<ReflectiveLockCore.Cycle> threads = new ArrayList<>();
            for (int c = 0; c < HOT_CLIENTS; c++) {
                AutoCloseable client =
                        closer.add(build.client(closer.add(zk.curator()), "/ab/" + build.label(), "ab-hot-" + c));
                threads.addAll(Collections.nCopies(HOT_THREADS, build.cohortLock(client, "hot")));
            }
            variants.put(build.label(), threads);
        }
        List<ReflectiveLockCore.Cycle> curator = new ArrayList<>();
        for (int c = 0; c < HOT_CLIENTS; c++) {
            CuratorFramework session = closer.add(zk.curator());
            for (int t = 0; t < HOT_THREADS; t++) {
                Mutex mutex = Mutex.of(new InterProcessMutex(session, "/ab/curator/hot"));
                curator.add(critical -> {
                    try (Mutex.Held held = mutex.lock()) {
                        critical.run();
                    }
                    return 0;
                });
            }
        }
        variants.put("curator", curator);
        Map<String, long[]> totals = alternate(variants);
        md.append("\n## Hot lock: ")
                .append(HOT_CLIENTS)
                .append(" clients × ")
                .append(HOT_THREADS)
                .append(" threads, one lock, cohort mode\n\n")
                .append(contendedRounds)
                .append(" rounds of ")
                .append(seconds)
                .append(" s per variant, alternating (after one warm-up round); Curator: one mutex per thread."
                        + " Every critical section checks exclusion.\n\n")
                .append("| variant | grants/s | / ")
                .append(baselineLabel)
                .append(" | / Curator | exclusion violations |\n")
                .append("|---|---:|---:|---:|---:|\n");
        double base = rate(totals.get(baselineLabel));
        double cur = rate(totals.get("curator"));
        totals.forEach((name, t) ->
                md.append(Fmt.row(name, Fmt.num(rate(t)), Fmt.ratio(rate(t) / base), Fmt.ratio(rate(t) / cur), t[2])));
    }

    /**
     * Runs one warm-up round and {@link #contendedRounds} measured rounds of every variant, in an
     * order that alternates round by round; {grants, nanos, violations} per variant.
     */
    private Map<String, long[]> alternate(Map<String, List<ReflectiveLockCore.Cycle>> variants) {
        Map<String, long[]> totals = new LinkedHashMap<>(); // {grants, nanos, violations}
        variants.keySet().forEach(k -> totals.put(k, new long[3]));
        List<String> names = new ArrayList<>(variants.keySet());
        for (int round = 0; round < contendedRounds + 1; round++) {
            for (String name : Interleaved.order(names, round)) {
                long[] r = contendedRound(variants.get(name));
                if (round > 0) { // round 0 warms up
                    long[] t = totals.get(name);
                    for (int i = 0; i < 3; i++) {
                        t[i] += r[i];
                    }
                }
            }
        }
        return totals;
    }

    private static double rate(long[] t) {
        return t[0] / (t[1] / 1e9);
    }

    /** One round: every contender loops on the lock for {@link #seconds}; {grants, nanos, violations}. */
    private long[] contendedRound(List<ReflectiveLockCore.Cycle> contenders) {
        AtomicInteger inside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicLong grants = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(contenders.size());
        long t0 = System.nanoTime();
        for (ReflectiveLockCore.Cycle cycle : contenders) {
            Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        cycle.run(() -> {
                            if (inside.incrementAndGet() != 1) {
                                violations.incrementAndGet();
                            }
                            inside.decrementAndGet();
                        });
                        grants.incrementAndGet();
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        try {
            Thread.sleep(Duration.ofSeconds(seconds));
            stop.set(true);
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return new long[] {grants.get(), System.nanoTime() - t0, violations.get()};
    }
}
