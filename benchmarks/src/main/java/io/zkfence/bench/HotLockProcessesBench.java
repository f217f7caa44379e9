package io.zkfence.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Workload 7b: the hot lock across processes, the shape the targets name. Several worker
 * JVMs ({@link HotLockWorker}), each with several threads, want one lock; zkfence in cohort mode,
 * zkfence without it, Curator and Hazelcast's CP FencedLock run in rotating rounds that every
 * process starts at the same instant. Exclusion is checked across the processes through a shared
 * memory-mapped file ({@link SharedExclusion}); grants and acquire waits are counted per process.
 */
final class HotLockProcessesBench implements Workload {

    private static final List<String> IMPLS = HotLockWorker.IMPLS;
    private static final String P = "hot-lock-processes.";
    /** A worker's heap: fixed and small, like a service instance's; the JDK's default collector. */
    static final List<String> WORKER_HEAP = List.of("-Xms256m", "-Xmx256m");
    /** How far ahead of now a round's common start is set, so every process has the command in time. */
    private static final Duration START_LEAD = Duration.ofMillis(250);

    private static final Duration SETUP_TIMEOUT = Duration.ofMinutes(3);

    /**
     * One round as the harness saw it.
     *
     * @param nanos       the slowest process's time from the common start to its last release
     * @param grants      grants per process
     * @param waits       acquire waits per process
     * @param violations  holders that found another inside (the shared owner word)
     * @param lostUpdates grants the shared counter did not count
     */
    private record Round(long nanos, long[] grants, Histogram[] waits, long violations, long lostUpdates) {}

    /** One implementation's measured rounds, and the exclusion checks of all its rounds, warm-up included. */
    private static final class Totals {
        long nanos;
        long[] grants;
        final Histogram[] waits;
        long checkedGrants;
        long violations;
        long lostUpdates;

        Totals(int processes) {
            grants = new long[processes];
            waits = new Histogram[processes];
            for (int i = 0; i < processes; i++) {
                waits[i] = Latency.newHistogram();
            }
        }

        void check(Round r) {
            checkedGrants += total(r.grants());
            violations += r.violations();
            lostUpdates += r.lostUpdates();
        }

        void measure(Round r) {
            check(r);
            nanos += r.nanos();
            grants = Shares.plus(grants, r.grants());
            for (int i = 0; i < waits.length; i++) {
                waits[i].add(r.waits()[i]);
            }
        }

        long totalGrants() {
            return total(grants);
        }

        double perSecond() {
            return totalGrants() / (nanos / 1e9);
        }

        Latency allWaits() {
            Histogram all = Latency.newHistogram();
            for (Histogram h : waits) {
                all.add(h);
            }
            return Latency.of(all);
        }
    }

    @Override
    public String name() {
        return "hot-lock-processes";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public boolean needsHazelcast() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        int processes = s.smoke() ? 2 : 4;
        int threads = s.smoke() ? 2 : 8;
        Map<String, Totals> totals = new LinkedHashMap<>();
        IMPLS.forEach(impl -> totals.put(impl, new Totals(processes)));
        try (Closer closer = new Closer()) {
            SharedExclusion exclusion = closer.add(SharedExclusion.create(tempFile()));
            List<String> flags = new ArrayList<>(WORKER_HEAP);
            flags.addAll(HazelcastCp.jvmFlags());
            List<WorkerProcess> workers = new ArrayList<>();
            ctx.log().say("hot lock across processes: starting %d worker JVMs × %d threads", processes, threads);
            for (int p = 0; p < processes; p++) {
                workers.add(closer.add(WorkerProcess.start(
                        "hot-lock worker " + (p + 1),
                        flags,
                        HotLockWorker.class,
                        List.of(
                                String.valueOf(p),
                                String.valueOf(threads),
                                ctx.zk().connectString(),
                                ctx.hazelcast().clusterName(),
                                ctx.hazelcast().addresses(),
                                exclusion.file().toString()))));
            }
            for (WorkerProcess w : workers) {
                checkSharedClock(w, w.await(HotLockWorker.READY, HotLockWorker.FAILED, SETUP_TIMEOUT));
            }
            ctx.log()
                    .say(
                            "hot lock across processes: workers ready; warm-up + %d rounds of %d ms per implementation",
                            s.contendedRounds(), s.contendedRound().toMillis());
            for (String impl : IMPLS) {
                totals.get(impl).check(round(workers, impl, s.contendedRound().toNanos() / 2, exclusion));
            }
            for (int i = 0; i < s.contendedRounds(); i++) {
                // Rotate the order each round, so drift hits every implementation alike.
                for (int k = 0; k < IMPLS.size(); k++) {
                    String impl = IMPLS.get((i + k) % IMPLS.size());
                    totals.get(impl)
                            .measure(round(workers, impl, s.contendedRound().toNanos(), exclusion));
                }
            }
            for (WorkerProcess w : workers) {
                w.quit(HotLockWorker.QUIT);
            }
        }
        return report(ctx, processes, threads, totals);
    }

    /** One round: every process gets the same start and length, then answers with its counts. */
    private static Round round(List<WorkerProcess> workers, String impl, long nanos, SharedExclusion exclusion) {
        long counterBefore = exclusion.counter();
        long violationsBefore = exclusion.violations();
        long start = System.nanoTime() + START_LEAD.toNanos();
        for (WorkerProcess w : workers) {
            w.send(HotLockWorker.ROUND + impl + " " + start + " " + nanos);
        }
        Duration timeout = START_LEAD.plusNanos(nanos).plus(Duration.ofMinutes(2));
        long[] grants = new long[workers.size()];
        Histogram[] waits = new Histogram[workers.size()];
        long slowest = 0;
        for (int i = 0; i < workers.size(); i++) {
            String line = workers.get(i)
                    .await(RoundReport.PREFIX, HotLockWorker.FAILED, timeout)
                    .text()
                    .orElseThrow();
            RoundReport report = RoundReport.parse(line);
            if (!report.impl().equals(impl)) {
                throw new IllegalStateException(
                        workers.get(i).name() + " answered for " + report.impl() + ", not " + impl);
            }
            grants[i] = report.grants();
            waits[i] = report.waits();
            slowest = Math.max(slowest, report.nanos());
        }
        long counted = exclusion.counter() - counterBefore;
        return new Round(slowest, grants, waits, exclusion.violations() - violationsBefore, total(grants) - counted);
    }

    /**
     * The rounds' common start is a {@link System#nanoTime()} value, which is one clock for every
     * process only where the JVM reads the system's monotonic clock (Linux: CLOCK_MONOTONIC). A
     * worker's READY carries its clock; on a shared clock it was read shortly before the harness
     * received the line.
     */
    private static void checkSharedClock(WorkerProcess w, WorkerProcess.Line ready) {
        long workerClock = Long.parseLong(ready.text()
                .orElseThrow()
                .substring(HotLockWorker.READY.length())
                .trim());
        long lag = ready.receivedNanos() - workerClock;
        if (lag < 0 || lag > Duration.ofSeconds(10).toNanos()) {
            throw new IllegalStateException(w.name() + "'s System.nanoTime() is " + lag + " ns off the harness's: the "
                    + "processes do not share a monotonic clock (this workload needs one, as on Linux)");
        }
    }

    private Section report(BenchContext ctx, int processes, int threads, Map<String, Totals> totals) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        Map<String, Double> perSecond = new LinkedHashMap<>();
        StringBuilder rows = new StringBuilder();
        long violations = 0;
        long lost = 0;
        long checked = 0;
        for (String impl : IMPLS) {
            Totals t = totals.get(impl);
            double gps = t.perSecond();
            perSecond.put(impl, gps);
            Latency wait = t.allWaits();
            double worst = Shares.worstDeviation(t.grants);
            r.figure(P + impl + ".grants", t.totalGrants());
            r.figure(P + impl + ".grants_per_s", gps);
            r.figure(P + impl + ".worst_share_deviation", worst);
            r.figure(P + impl + ".violations", t.violations);
            r.figure(P + impl + ".lost_updates", t.lostUpdates);
            r.latency(P + impl + ".acquire_wait", wait);
            StringBuilder p99s = new StringBuilder();
            for (int i = 0; i < processes; i++) {
                r.figure(P + impl + ".process_" + (i + 1) + ".grants", t.grants[i]);
                String p99 = "none";
                if (t.waits[i].getTotalCount() > 0) {
                    Latency l = Latency.of(t.waits[i]);
                    r.figure(P + impl + ".process_" + (i + 1) + ".acquire_wait.p99_us", l.p99());
                    p99 = Fmt.us(l.p99());
                }
                p99s.append(i == 0 ? "" : " / ").append(p99);
            }
            violations += t.violations;
            lost += t.lostUpdates;
            checked += t.checkedGrants;
            rows.append(Fmt.row(
                    impl,
                    HazelcastCp.durabilityOf(impl),
                    t.totalGrants(),
                    Fmt.num(gps),
                    Shares.list(t.grants),
                    Fmt.num(100 * worst) + " %",
                    Fmt.us(wait.p50()),
                    Fmt.us(wait.p99()),
                    p99s,
                    t.violations + " / " + t.lostUpdates));
        }
        r.figure(P + "violations", violations);
        r.figure(P + "lost_updates", lost);
        r.figure(P + "checked_grants", checked);
        double cohortVsCurator = perSecond.get("zkfence-cohort") / perSecond.get("curator");
        double cohortVsHazelcast = perSecond.get("zkfence-cohort") / perSecond.get("hazelcast");
        double plainVsCurator = perSecond.get("zkfence") / perSecond.get("curator");
        r.figure(P + "ratio.cohort_vs_curator", cohortVsCurator);
        r.figure(P + "ratio.cohort_vs_hazelcast", cohortVsHazelcast);
        r.figure(P + "ratio.plain_vs_curator", plainVsCurator);

        String shape = processes + " processes (JVMs) × " + threads + " threads, one lock";
        String rates = "cohort " + Fmt.num(perSecond.get("zkfence-cohort")) + ", Curator "
                + Fmt.num(perSecond.get("curator")) + ", Hazelcast " + Fmt.num(perSecond.get("hazelcast"))
                + ", zkfence without cohort " + Fmt.num(perSecond.get("zkfence")) + " grants/s";
        r.target(Target.atLeast(
                "hot_lock_cohort_vs_curator",
                name(),
                shape + ", cohort on: grants/s ≥ 10 × Curator",
                cohortVsCurator,
                10,
                rates));
        r.target(Target.atLeast(
                "hot_lock_cohort_vs_hazelcast",
                name(),
                shape + ", cohort on: grants/s ≥ 1 × Hazelcast CP FencedLock (in memory, no fsync)",
                cohortVsHazelcast,
                1,
                rates));
        r.target(Target.exactly(
                "hot_lock_violations",
                name(),
                shape + ": exclusion violations across processes "
                        + "(overlaps seen + lost counter updates), every implementation",
                violations + lost,
                0,
                violations + " overlaps, " + lost + " lost updates in " + checked
                        + " grants checked (warm-up included)"));
        Totals cohort = totals.get("zkfence-cohort");
        r.target(Target.atMost(
                "hot_lock_cohort_fairness",
                name(),
                shape + ", cohort on: every process's share of grants within ±25 % of a fair share",
                r.figure(P + "zkfence-cohort.worst_share_deviation"),
                0.25,
                "worst process's deviation from a fair share; grants per process " + Shares.list(cohort.grants)));
        r.target(Target.atLeast(
                "hot_lock_plain_vs_curator",
                name(),
                shape + ", cohort off: grants/s ≥ Curator",
                plainVsCurator,
                1,
                "zkfence " + Fmt.num(perSecond.get("zkfence")) + " grants/s, Curator "
                        + Fmt.num(perSecond.get("curator")) + " grants/s"));

        String plot = plot(ctx, shape, processes, totals);
        StringBuilder md = new StringBuilder();
        md.append(processes)
                .append(" processes, each a JVM of its own (`")
                .append(String.join(" ", WORKER_HEAP))
                .append("`, the harness's JDK and class path), with ")
                .append(threads)
                .append(" threads each, want "
                        + "one lock. Each process has one zkfence `LockClient` (one ZooKeeper session; cohort mode on one "
                        + "lock name, with the default batch of 32 turns / 20 ms, and off on another), one Curator session "
                        + "(one `InterProcessMutex` per thread, as Curator requires) and one Hazelcast client (its own CP "
                        + "session, one `FencedLock` proxy for all its threads) connected to the ")
                .append(HazelcastCp.MEMBERS)
                .append(" CP members in the harness JVM. The harness tells every "
                        + "process which implementation a round runs and when it starts, on the machine's monotonic clock "
                        + "that all processes share; rounds of ")
                .append(s.contendedRound().toMillis())
                .append(" ms rotate the order (a warm-up round and ")
                .append(s.contendedRounds())
                .append(" measured rounds per implementation). The worker JVMs, the ZooKeeper servers and the "
                        + "Hazelcast members share the machine's cores.\n\n");
        md.append("Every critical section goes through a file all processes map: an owner word set and cleared "
                + "with compare-and-set (a holder that finds it taken counts a violation) and a counter updated "
                + "without atomics (an overlap would lose updates), checked against the grants after every round, "
                + "warm-up included.\n\n");
        md.append("| implementation | durability | grants | grants/s | grants per process | worst deviation from a "
                        + "fair share | acquire wait p50 | p99 | p99 per process | violations / lost updates |\n"
                        + "|---|---|---:|---:|---|---:|---:|---:|---|---:|\n")
                .append(rows);
        md.append("\nCohort ÷ Curator: **")
                .append(Fmt.ratio(cohortVsCurator))
                .append("**; cohort ÷ Hazelcast: **")
                .append(Fmt.ratio(cohortVsHazelcast))
                .append("**; zkfence (cohort off) ÷ Curator: **")
                .append(Fmt.ratio(plainVsCurator))
                .append("**. ")
                .append(HazelcastCp.DURABILITY_NOTE)
                .append("\n\n");
        md.append("![hot lock across processes](").append(plot).append(")\n");
        return new Section("7b. Hot lock across processes", md.toString());
    }

    private String plot(BenchContext ctx, String shape, int processes, Map<String, Totals> totals) {
        List<String> categories = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            categories.add("process " + (i + 1));
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        totals.forEach((impl, t) -> {
            List<Double> rates = new ArrayList<>();
            for (long g : t.grants) {
                // A log axis cannot show 0; a starved process shows as the axis' floor of 1 grant/s.
                rates.add(Math.max(1.0, g / (t.nanos / 1e9)));
            }
            series.put(impl, rates);
        });
        return Plots.bars(
                ctx.out(),
                "hot-lock-processes.png",
                shape + " (log scale)",
                "process",
                "grants per second",
                categories,
                series,
                true);
    }

    private static long total(long[] grants) {
        long sum = 0;
        for (long g : grants) {
            sum += g;
        }
        return sum;
    }

    private static Path tempFile() {
        try {
            return Files.createTempFile("zkfence-hot-lock-", ".exclusion");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the shared exclusion file", e);
        }
    }
}
