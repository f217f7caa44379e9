package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Workload 8: aggregate throughput over many locks. Many threads each pick a random lock out of
 * many and run acquire + release cycles, through one client and through four (one session each),
 * against the ZooKeeper floor (create + delete pairs at the same concurrency, on the same number
 * of parents) and Curator's mutex, in rotating rounds.
 */
final class AggregateBench implements Workload {

    private static final String[] IMPLS = {"floor", "zkfence", "curator"};

    /** One cycle on lock {@code k}. */
    private interface Cycle {
        void run(int k);
    }

    @Override
    public String name() {
        return "aggregate";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        int threads = s.smoke() ? 8 : 64;
        int locks = s.smoke() ? 20 : 1_000;
        StringBuilder rows = new StringBuilder();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        List<String> layouts = List.of("1 client", "4 clients");
        try (Closer closer = new Closer()) {
            for (String layout : layouts) {
                int clients = layout.startsWith("1") ? 1 : 4;
                Map<String, List<Cycle>> impls = new LinkedHashMap<>();
                for (String impl : IMPLS) {
                    impls.put(impl, new ArrayList<>());
                }
                for (int c = 0; c < clients; c++) {
                    CuratorFramework floorSession = closer.add(ctx.zk().curator());
                    List<FloorCycle> floors = new ArrayList<>();
                    for (int k = 0; k < locks; k++) {
                        floors.add(new FloorCycle(floorSession, "/bench/floor-agg/lock-" + k));
                    }
                    impls.get("floor").add(k -> floors.get(k).run());
                    LockClient client = closer.add(LockClient.create(
                            closer.add(ctx.zk().curator()),
                            LockClientConfig.builder()
                                    .rootPath("/bench/zkfence-agg")
                                    .ownerId("bench-agg-" + c)
                                    .build()));
                    IntFunction<FencedLock> lockOf = k -> client.lock("lock-" + k);
                    impls.get("zkfence").add(k -> {
                        Lease lease = lockOf.apply(k).acquire();
                        lease.release();
                    });
                    CuratorFramework curatorSession = closer.add(ctx.zk().curator());
                    Map<Integer, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
                    impls.get("curator").add(k -> {
                        InterProcessMutex m = mutexes.computeIfAbsent(
                                k, x -> new InterProcessMutex(curatorSession, "/bench/curator-agg/lock-" + x));
                        try {
                            m.acquire();
                            m.release();
                        } catch (Exception e) {
                            throw new IllegalStateException("InterProcessMutex cycle failed", e);
                        }
                    });
                }
                ctx.log()
                        .say(
                                "aggregate: %d threads over %d locks through %s, warm-up + %d rounds of %d ms each",
                                threads,
                                locks,
                                layout,
                                s.contendedRounds(),
                                s.contendedRound().toMillis());
                for (String impl : IMPLS) {
                    round(impls.get(impl), threads, locks, s.contendedRound().toNanos() / 2);
                }
                Map<String, long[]> totals = new LinkedHashMap<>();
                for (int i = 0; i < s.contendedRounds(); i++) {
                    for (int k = 0; k < IMPLS.length; k++) {
                        String impl = IMPLS[(i + k) % IMPLS.length];
                        long[] t = round(
                                impls.get(impl),
                                threads,
                                locks,
                                s.contendedRound().toNanos());
                        totals.merge(impl, t, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
                    }
                }
                String key = clients == 1 ? "one_client" : "four_clients";
                Map<String, Double> perSecond = new LinkedHashMap<>();
                for (String impl : IMPLS) {
                    long[] t = totals.get(impl);
                    double cps = t[0] / (t[1] / 1e9);
                    perSecond.put(impl, cps);
                    r.figure("aggregate." + key + "." + impl + ".cycles_per_s", cps);
                    series.computeIfAbsent(impl, x -> new ArrayList<>()).add(cps);
                }
                double vsFloor = perSecond.get("zkfence") / perSecond.get("floor");
                double vsCurator = perSecond.get("zkfence") / perSecond.get("curator");
                r.figure("aggregate." + key + ".ratio.zkfence_vs_floor", vsFloor);
                r.figure("aggregate." + key + ".ratio.zkfence_vs_curator", vsCurator);
                String shape = threads + " threads over " + locks + " locks through " + layout;
                String evidence =
                        "zkfence " + Fmt.num(perSecond.get("zkfence")) + ", floor " + Fmt.num(perSecond.get("floor"))
                                + ", Curator " + Fmt.num(perSecond.get("curator")) + " cycles/s";
                r.target(Target.atLeast(
                        "aggregate_" + key + "_vs_floor",
                        name(),
                        shape + ": cycles/s ≥ 0.9 × the floor",
                        vsFloor,
                        0.9,
                        evidence));
                r.target(Target.atLeast(
                        "aggregate_" + key + "_vs_curator",
                        name(),
                        shape + ": cycles/s ≥ 1.2 × Curator",
                        vsCurator,
                        1.2,
                        evidence));
                rows.append(Fmt.row(
                        layout,
                        Fmt.num(perSecond.get("floor")),
                        Fmt.num(perSecond.get("zkfence")),
                        Fmt.num(perSecond.get("curator")),
                        Fmt.ratio(vsFloor),
                        Fmt.ratio(vsCurator)));
            }
        }
        String plot = Plots.bars(
                ctx.out(),
                "aggregate.png",
                threads + " threads over " + locks + " locks",
                "layout",
                "cycles per second",
                layouts,
                series);
        StringBuilder md = new StringBuilder();
        md.append(threads)
                .append(" threads each pick a random lock out of ")
                .append(locks)
                .append(
                        " and run acquire + release cycles, through one client (one session) and through four. The floor"
                                + " is an ephemeral-sequential create + delete pair under one of as many parents, on the same"
                                + " sessions layout; Curator is its InterProcessMutex. Rotating rounds of ")
                .append(s.contendedRound().toMillis())
                .append(" ms.\n\n");
        md.append(
                        "| layout | floor pairs/s | zkfence cycles/s | Curator cycles/s | zkfence ÷ floor | zkfence ÷ Curator |\n"
                                + "|---|---:|---:|---:|---:|---:|\n")
                .append(rows);
        md.append("\n![aggregate throughput](").append(plot).append(")\n");
        return new Section("8. Aggregate throughput over many locks", md.toString());
    }

    /** One round: {@code threads} threads spread over the clients run cycles on random locks. Returns {cycles, nanos}. */
    private static long[] round(List<Cycle> clients, int threads, int locks, long nanos) {
        AtomicLong cycles = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Cycle cycle = clients.get(t % clients.size());
            workers.add(Thread.ofPlatform().name("aggregate-worker").start(() -> {
                try {
                    start.await();
                    long deadline = System.nanoTime() + nanos;
                    while (System.nanoTime() < deadline && failure.get() == null) {
                        cycle.run(ThreadLocalRandom.current().nextInt(locks));
                        cycles.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
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
            throw new IllegalStateException("an aggregate worker failed", failure.get());
        }
        return new long[] {cycles.get(), elapsed};
    }
}
