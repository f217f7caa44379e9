package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Workload 7: a hot lock. Several clients (each its own ZooKeeper session, standing in for a
 * process) with several request threads each want one lock. zkfence in cohort mode, zkfence
 * without it, and Curator (one {@code InterProcessMutex} per thread, as Curator requires) run in
 * alternating rounds; every critical section checks exclusion, and grants are counted per client
 * for the fairness figure.
 *
 * <p>All clients live in the benchmark's JVM, on separate sessions: ZooKeeper sees separate
 * processes, the JVM's threads and CPU are shared (the report says so).
 */
final class HotLockBench implements Workload {

    private static final String[] IMPLS = {"zkfence-cohort", "zkfence", "curator"};

    /** One thread's lock, as the worker loop sees it. */
    private interface Mutex {
        AutoCloseable lock();
    }

    private record Totals(long grants, long nanos, long[] perClient, Histogram waits) {}

    @Override
    public String name() {
        return "hot-lock";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        int clients = s.smoke() ? 2 : 4;
        int threads = s.smoke() ? 2 : 8;
        try (Closer closer = new Closer()) {
            Map<String, List<List<Mutex>>> impls = new LinkedHashMap<>();
            for (String impl : IMPLS) {
                impls.put(impl, new ArrayList<>());
            }
            for (int c = 0; c < clients; c++) {
                CuratorFramework session = closer.add(ctx.zk().curator());
                LockClient client = closer.add(LockClient.create(session,
                        LockClientConfig.builder().rootPath("/bench/zkfence").ownerId("bench-hot-" + c).build()));
                FencedLock cohort = client.lock("hot-cohort").withCohort();
                FencedLock plain = client.lock("hot-plain");
                CuratorFramework curatorSession = closer.add(ctx.zk().curator());
                List<Mutex> cohortThreads = new ArrayList<>();
                List<Mutex> plainThreads = new ArrayList<>();
                List<Mutex> curatorThreads = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    cohortThreads.add(leaseOf(cohort::acquire));
                    plainThreads.add(leaseOf(plain::acquire));
                    InterProcessMutex mutex = new InterProcessMutex(curatorSession, "/bench/curator/hot");
                    curatorThreads.add(() -> {
                        acquire(mutex);
                        return mutex::release;
                    });
                }
                impls.get("zkfence-cohort").add(cohortThreads);
                impls.get("zkfence").add(plainThreads);
                impls.get("curator").add(curatorThreads);
            }
            ContendedExclusion exclusion = new ContendedExclusion();
            ctx.log().say("hot lock: %d clients x %d threads, warm-up + %d rounds of %d ms per implementation", clients,
                    threads, s.contendedRounds(), s.contendedRound().toMillis());
            for (String impl : IMPLS) {
                round(impls.get(impl), s.contendedRound().toNanos() / 2, exclusion);
            }
            Map<String, Totals> totals = new LinkedHashMap<>();
            for (int i = 0; i < s.contendedRounds(); i++) {
                // Rotate the order each round, so drift hits every implementation alike.
                for (int k = 0; k < IMPLS.length; k++) {
                    String impl = IMPLS[(i + k) % IMPLS.length];
                    Totals t = round(impls.get(impl), s.contendedRound().toNanos(), exclusion);
                    totals.merge(impl, t, HotLockBench::add);
                }
            }
            Map<String, Double> perSecond = new LinkedHashMap<>();
            StringBuilder rows = new StringBuilder();
            for (String impl : IMPLS) {
                Totals t = totals.get(impl);
                double gps = t.grants() / (t.nanos() / 1e9);
                perSecond.put(impl, gps);
                Latency wait = Latency.of(t.waits());
                double fair = t.grants() / (double) clients;
                double worstShare = 0;
                for (long g : t.perClient()) {
                    worstShare = Math.max(worstShare, Math.abs(g - fair) / fair);
                }
                r.figure("hot-lock." + impl + ".grants", t.grants());
                r.figure("hot-lock." + impl + ".grants_per_s", gps);
                r.figure("hot-lock." + impl + ".worst_share_deviation", worstShare);
                r.latency("hot-lock." + impl + ".acquire_wait", wait);
                rows.append("| ").append(impl).append(" | ").append(t.grants()).append(" | ").append(Fmt.num(gps))
                        .append(" | ").append(shares(t.perClient())).append(" | ")
                        .append(Fmt.num(100 * worstShare)).append(" % | ").append(Fmt.us(wait.p50())).append(" | ")
                        .append(Fmt.us(wait.p99())).append(" |\n");
            }
            r.figure("hot-lock.violations", exclusion.violations.get());
            if (exclusion.violations.get() != 0) {
                throw new IllegalStateException("mutual exclusion violated " + exclusion.violations.get() + " times");
            }
            double cohortVsCurator = perSecond.get("zkfence-cohort") / perSecond.get("curator");
            double plainVsCurator = perSecond.get("zkfence") / perSecond.get("curator");
            r.figure("hot-lock.ratio.cohort_vs_curator", cohortVsCurator);
            r.figure("hot-lock.ratio.plain_vs_curator", plainVsCurator);
            String shape = clients + " clients × " + threads + " threads, one lock";
            r.target(Target.atLeast("hot_lock_cohort_vs_curator", name(), shape + ", cohort on: grants/s ≥ 10 × Curator",
                    cohortVsCurator, 10, "cohort " + Fmt.num(perSecond.get("zkfence-cohort")) + " grants/s, Curator "
                            + Fmt.num(perSecond.get("curator")) + " grants/s"));
            r.target(Target.atLeast("hot_lock_plain_vs_curator", name(), shape + ", cohort off: grants/s ≥ Curator",
                    plainVsCurator, 1, "zkfence " + Fmt.num(perSecond.get("zkfence")) + " grants/s, Curator "
                            + Fmt.num(perSecond.get("curator")) + " grants/s"));
            r.target(Target.atMost("hot_lock_cohort_fairness", name(), shape
                    + ", cohort on: every client's share of grants within ±25 % of a fair share",
                    r.figure("hot-lock.zkfence-cohort.worst_share_deviation"), 0.25,
                    "worst client's deviation from a fair share; shares " + shares(totals.get("zkfence-cohort").perClient())));

            String plot = Plots.bars(ctx.out(), "hot-lock.png", shape, "implementation", "grants per second",
                    List.of("grants/s"), bars(perSecond));
            StringBuilder md = new StringBuilder();
            md.append(clients).append(" clients, each its own ZooKeeper session (standing in for a process; all in the "
                    + "benchmark's JVM), with ").append(threads).append(" threads each, want one lock; each critical "
                    + "section checks exclusion. zkfence in cohort mode (default batch: 32 turns / 20 ms), zkfence "
                    + "without it, and Curator (one InterProcessMutex per thread) run in rotating rounds of ")
                    .append(s.contendedRound().toMillis()).append(" ms (").append(s.contendedRounds())
                    .append(" measured rounds each).\n\n");
            md.append("| implementation | grants | grants/s | grants per client | worst deviation from a fair share "
                    + "| acquire wait p50 | p99 |\n|---|---:|---:|---|---:|---:|---:|\n").append(rows);
            md.append("\nCohort ÷ Curator: **").append(Fmt.ratio(cohortVsCurator)).append("**; zkfence (cohort off) ÷ "
                    + "Curator: **").append(Fmt.ratio(plainVsCurator)).append("**. Exclusion violations: ")
                    .append(exclusion.violations.get()).append(". Tokens within a cohort are equal (see the token "
                    + "contract).\n\n");
            md.append("![hot lock throughput](").append(plot).append(")\n");
            return new Section("7. Hot lock: cohort hand-off", md.toString());
        }
    }

    private static Mutex leaseOf(Supplier<Lease> acquire) {
        return () -> {
            Lease lease = acquire.get();
            return lease::release;
        };
    }

    private static Totals add(Totals a, Totals b) {
        a.waits().add(b.waits());
        long[] per = a.perClient().clone();
        for (int i = 0; i < per.length; i++) {
            per[i] += b.perClient()[i];
        }
        return new Totals(a.grants() + b.grants(), a.nanos() + b.nanos(), per, a.waits());
    }

    private static String shares(long[] perClient) {
        StringBuilder sb = new StringBuilder();
        for (long g : perClient) {
            sb.append(sb.isEmpty() ? "" : " / ").append(g);
        }
        return sb.toString();
    }

    private static Map<String, List<Double>> bars(Map<String, Double> perSecond) {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        perSecond.forEach((impl, gps) -> series.put(impl, List.of(gps)));
        return series;
    }

    /** The critical section's shared state: an overlap shows as a second thread inside. */
    private static final class ContendedExclusion {
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

    /** One round: every thread of every client loops acquire → critical section → release until the deadline. */
    private static Totals round(List<List<Mutex>> clients, long nanos, ContendedExclusion exclusion) {
        Histogram wait = Latency.newHistogram();
        AtomicLongArray perClient = new AtomicLongArray(clients.size());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            int client = c;
            for (Mutex m : clients.get(c)) {
                workers.add(Thread.ofPlatform().name("hot-lock-worker").start(() -> {
                    Histogram mine = Latency.newHistogram();
                    try {
                        start.await();
                        long deadline = System.nanoTime() + nanos;
                        while (System.nanoTime() < deadline && failure.get() == null) {
                            long t0 = System.nanoTime();
                            try (AutoCloseable held = m.lock()) {
                                Latency.record(mine, System.nanoTime() - t0);
                                exclusion.criticalSection();
                            }
                            perClient.incrementAndGet(client);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        synchronized (wait) {
                            wait.add(mine);
                        }
                    }
                }));
            }
        }
        long t0 = System.nanoTime();
        start.countDown();
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for a worker", e);
            }
        }
        long elapsed = System.nanoTime() - t0;
        if (failure.get() != null) {
            throw new IllegalStateException("a hot-lock worker failed", failure.get());
        }
        long[] per = new long[clients.size()];
        long total = 0;
        for (int i = 0; i < per.length; i++) {
            per[i] = perClient.get(i);
            total += per[i];
        }
        return new Totals(total, elapsed, per, wait);
    }

    private static void acquire(InterProcessMutex mutex) {
        try {
            mutex.acquire();
        } catch (Exception e) {
            throw new IllegalStateException("InterProcessMutex.acquire failed", e);
        }
    }
}
