package io.zkfence.bench;

import com.hazelcast.core.HazelcastInstance;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Workload 7: a hot lock, in the harness's JVM. Several clients (each its own ZooKeeper session and
 * Hazelcast client, standing in for a process) with several request threads each want one lock.
 * zkfence in cohort mode, zkfence without it, Curator (one {@code InterProcessMutex} per thread, as
 * Curator requires) and Hazelcast's CP FencedLock run in rotating rounds; every critical section
 * checks exclusion, and grants are counted per client for the fairness figure.
 *
 * <p>The clients share the JVM's threads and CPU, which real processes would not. The issue's
 * targets are judged on the same shape across real processes ({@link HotLockProcessesBench}); this
 * cheaper variant stays beside it for the per-client view without process boundaries.
 */
final class HotLockBench implements Workload {

    private static final List<String> IMPLS = List.of("zkfence-cohort", "zkfence", "curator", "hazelcast");

    /** Rounds of one implementation, summed. */
    private record Totals(long nanos, long[] perClient, Histogram[] waits) {

        static Totals of(LockRound.Result r) {
            return new Totals(r.nanos(), r.grants(), r.waits());
        }

        Totals plus(LockRound.Result r) {
            for (int i = 0; i < waits.length; i++) {
                waits[i].add(r.waits()[i]);
            }
            return new Totals(nanos + r.nanos(), Shares.plus(perClient, r.grants()), waits);
        }

        long grants() {
            long total = 0;
            for (long g : perClient) {
                total += g;
            }
            return total;
        }
    }

    @Override
    public String name() {
        return "hot-lock";
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
        Results r = ctx.results();
        int clients = s.smoke() ? 2 : 4;
        int threads = s.smoke() ? 2 : 8;
        Map<String, Totals> totals = new LinkedHashMap<>();
        long violations;
        try (Closer closer = new Closer()) {
            Map<String, List<List<Mutex>>> impls = new LinkedHashMap<>();
            IMPLS.forEach(impl -> impls.put(impl, new ArrayList<>()));
            for (int c = 0; c < clients; c++) {
                CuratorFramework session = closer.add(ctx.zk().curator());
                LockClient client = closer.add(LockClient.create(
                        session,
                        LockClientConfig.builder()
                                .rootPath("/bench/zkfence")
                                .ownerId("bench-hot-" + c)
                                .build()));
                FencedLock cohort = client.lock("hot-cohort").withCohort();
                FencedLock plain = client.lock("hot-plain");
                CuratorFramework curatorSession = closer.add(ctx.zk().curator());
                HazelcastInstance hz = ctx.hazelcast().client("bench-hot-" + c);
                AutoCloseable hzShutdown = hz::shutdown;
                closer.add(hzShutdown);
                com.hazelcast.cp.lock.FencedLock hzLock = hz.getCPSubsystem().getLock("hot");
                List<Mutex> cohortThreads = new ArrayList<>();
                List<Mutex> plainThreads = new ArrayList<>();
                List<Mutex> curatorThreads = new ArrayList<>();
                List<Mutex> hazelcastThreads = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    cohortThreads.add(Mutex.of(cohort));
                    plainThreads.add(Mutex.of(plain));
                    curatorThreads.add(Mutex.of(new InterProcessMutex(curatorSession, "/bench/curator/hot")));
                    hazelcastThreads.add(Mutex.of(hzLock));
                }
                impls.get("zkfence-cohort").add(cohortThreads);
                impls.get("zkfence").add(plainThreads);
                impls.get("curator").add(curatorThreads);
                impls.get("hazelcast").add(hazelcastThreads);
            }
            Exclusion exclusion = new Exclusion();
            ctx.log()
                    .say(
                            "hot lock: %d clients x %d threads, warm-up + %d rounds of %d ms per implementation",
                            clients,
                            threads,
                            s.contendedRounds(),
                            s.contendedRound().toMillis());
            for (String impl : IMPLS) {
                LockRound.run(impls.get(impl), s.contendedRound().toNanos() / 2, exclusion::criticalSection);
            }
            for (int i = 0; i < s.contendedRounds(); i++) {
                // Rotate the order each round, so drift hits every implementation alike.
                for (int k = 0; k < IMPLS.size(); k++) {
                    String impl = IMPLS.get((i + k) % IMPLS.size());
                    LockRound.Result round =
                            LockRound.run(impls.get(impl), s.contendedRound().toNanos(), exclusion::criticalSection);
                    totals.merge(impl, Totals.of(round), (a, b) -> a.plus(round));
                }
            }
            violations = exclusion.violations.get();
        }
        Map<String, Double> perSecond = new LinkedHashMap<>();
        StringBuilder rows = new StringBuilder();
        for (String impl : IMPLS) {
            Totals t = totals.get(impl);
            double gps = t.grants() / (t.nanos() / 1e9);
            perSecond.put(impl, gps);
            Histogram all = Latency.newHistogram();
            StringBuilder p99s = new StringBuilder();
            for (int c = 0; c < clients; c++) {
                all.add(t.waits()[c]);
                p99s.append(c == 0 ? "" : " / ")
                        .append(
                                t.waits()[c].getTotalCount() == 0
                                        ? "none"
                                        : Fmt.us(Latency.of(t.waits()[c]).p99()));
            }
            Latency wait = Latency.of(all);
            double worstShare = Shares.worstDeviation(t.perClient());
            r.figure("hot-lock." + impl + ".grants", t.grants());
            r.figure("hot-lock." + impl + ".grants_per_s", gps);
            r.figure("hot-lock." + impl + ".worst_share_deviation", worstShare);
            r.latency("hot-lock." + impl + ".acquire_wait", wait);
            rows.append(Fmt.row(
                    impl,
                    HazelcastCp.durabilityOf(impl),
                    t.grants(),
                    Fmt.num(gps),
                    Shares.list(t.perClient()),
                    Fmt.num(100 * worstShare) + " %",
                    Fmt.us(wait.p50()),
                    Fmt.us(wait.p99()),
                    p99s));
        }
        r.figure("hot-lock.violations", violations);
        if (violations != 0) {
            throw new IllegalStateException("mutual exclusion violated " + violations + " times");
        }
        double cohortVsCurator = perSecond.get("zkfence-cohort") / perSecond.get("curator");
        double cohortVsHazelcast = perSecond.get("zkfence-cohort") / perSecond.get("hazelcast");
        double plainVsCurator = perSecond.get("zkfence") / perSecond.get("curator");
        r.figure("hot-lock.ratio.cohort_vs_curator", cohortVsCurator);
        r.figure("hot-lock.ratio.cohort_vs_hazelcast", cohortVsHazelcast);
        r.figure("hot-lock.ratio.plain_vs_curator", plainVsCurator);

        String shape = clients + " clients × " + threads + " threads in one JVM, one lock";
        String plot = Plots.bars(
                ctx.out(),
                "hot-lock.png",
                shape,
                "implementation",
                "grants per second",
                List.of("grants/s"),
                bars(perSecond));
        StringBuilder md = new StringBuilder();
        md.append(clients)
                .append(" clients, each its own ZooKeeper session and Hazelcast client (standing in for a "
                        + "process; all in the harness's JVM), with ")
                .append(threads)
                .append(" threads each, want one lock; "
                        + "each critical section checks exclusion. zkfence in cohort mode (default batch: 32 turns / 20 ms), "
                        + "zkfence without it, Curator (one InterProcessMutex per thread) and Hazelcast's CP FencedLock "
                        + "(its 3 CP members in the harness JVM) run in rotating rounds of ")
                .append(s.contendedRound().toMillis())
                .append(" ms (")
                .append(s.contendedRounds())
                .append(
                        " measured rounds each). The clients share the JVM's threads and CPU, which real processes "
                                + "would not: the issue's targets are judged on the same shape across processes, in section 7b.\n\n");
        md.append(
                        "| implementation | durability | grants | grants/s | grants per client | worst deviation from a fair "
                                + "share | acquire wait p50 | p99 | p99 per client |\n|---|---|---:|---:|---|---:|---:|---:|---|\n")
                .append(rows);
        md.append("\nCohort ÷ Curator: **")
                .append(Fmt.ratio(cohortVsCurator))
                .append("**; cohort ÷ Hazelcast: **")
                .append(Fmt.ratio(cohortVsHazelcast))
                .append("**; zkfence (cohort off) ÷ Curator: **")
                .append(Fmt.ratio(plainVsCurator))
                .append("**. Exclusion violations: ")
                .append(violations)
                .append(". Tokens within a cohort are equal (see the token contract). ")
                .append(HazelcastCp.DURABILITY_NOTE)
                .append("\n\n");
        md.append("![hot lock throughput](").append(plot).append(")\n");
        return new Section("7. Hot lock in one JVM: cohort hand-off", md.toString());
    }

    private static Map<String, List<Double>> bars(Map<String, Double> perSecond) {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        perSecond.forEach((impl, gps) -> series.put(impl, List.of(gps)));
        return series;
    }

    /** The critical section's shared state: an overlap shows as a second thread inside. */
    private static final class Exclusion {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicLong violations = new AtomicLong();

        void criticalSection() {
            if (inside.incrementAndGet() != 1) {
                violations.incrementAndGet();
            }
            Thread.onSpinWait();
            inside.decrementAndGet();
        }
    }
}
