package io.zkfence.bench;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Workload 1: acquire + release of a lock nobody else wants, against the ZooKeeper floor
 * (create + delete of an ephemeral-sequential node) and Curator's InterProcessMutex. Each variant
 * has its own session on the same server; the variants run interleaved.
 */
final class UncontendedBench implements Workload {

    @Override
    public String name() {
        return "uncontended";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        try (Closer closer = new Closer()) {
            CuratorFramework floorSession = closer.add(ctx.zk().curator());
            CuratorFramework zkfenceSession = closer.add(ctx.zk().curator());
            CuratorFramework curatorSession = closer.add(ctx.zk().curator());
            CuratorFramework asyncSession = closer.add(ctx.zk().curator());
            CuratorFramework wireSession = closer.add(ctx.zk().curator());
            LockClient client = closer.add(LockClient.create(
                    zkfenceSession,
                    LockClientConfig.builder()
                            .rootPath("/bench/zkfence")
                            .ownerId("bench-uncontended")
                            .build()));
            List<Op> variants = List.of(
                    new FloorCycle(floorSession, "/bench/floor/uncontended"),
                    new ZkfenceCycle(client.lock("uncontended")),
                    new CuratorCycle(new InterProcessMutex(curatorSession, "/bench/curator/uncontended")),
                    WireCycle.floorAsync(asyncSession, "/bench/floor/async"),
                    WireCycle.zkfenceWire(wireSession, "/bench/floor/wire"));

            ctx.log()
                    .say(
                            "uncontended: %d warm-up + %d rounds x %d cycles per variant",
                            s.lockWarmupRounds(), s.lockRounds(), s.lockOpsPerRound());
            Map<String, Histogram> hs =
                    Interleaved.run(variants, s.lockWarmupRounds(), s.lockRounds(), s.lockOpsPerRound());
            Map<String, Latency> lat = new LinkedHashMap<>();
            hs.forEach((name, h) -> {
                lat.put(name, Latency.of(h));
                r.latency("uncontended." + name, lat.get(name));
            });

            // Requests each cycle sends, counted by the server all sessions are on.
            Map<String, Double> requests = new LinkedHashMap<>();
            for (Op op : variants) {
                long before = ctx.zk().received();
                for (int i = 0; i < s.requestCountOps(); i++) {
                    op.run();
                }
                double perCycle = (ctx.zk().received() - before) / (double) s.requestCountOps();
                requests.put(op.name(), perCycle);
                r.figure("uncontended." + op.name() + ".requests_per_cycle", perCycle);
            }
            r.figure("uncontended.zkfence.creates", client.stats().creates());
            r.figure("uncontended.zkfence.children_reads", client.stats().childrenReads());

            Latency floor = lat.get("floor");
            Latency zkfence = lat.get("zkfence");
            Latency curator = lat.get("curator");
            double vsFloor = zkfence.p50() / floor.p50();
            double vsCurator = zkfence.p50() / curator.p50();
            r.figure("uncontended.ratio.zkfence_vs_floor.p50", vsFloor);
            r.figure("uncontended.ratio.zkfence_vs_curator.p50", vsCurator);
            r.figure("uncontended.ratio.curator_vs_floor.p50", curator.p50() / floor.p50());
            String evidence = "p50 zkfence " + Fmt.us(zkfence.p50()) + ", floor " + Fmt.us(floor.p50()) + ", Curator "
                    + Fmt.us(curator.p50()) + "; requests per cycle: floor " + Fmt.num(requests.get("floor"))
                    + ", zkfence " + Fmt.num(requests.get("zkfence")) + ", Curator " + Fmt.num(requests.get("curator"));
            r.target(Target.atMost(
                    "uncontended_vs_floor",
                    name(),
                    "uncontended acquire+release p50 ≤ 1.05 × ZooKeeper floor",
                    vsFloor,
                    1.05,
                    evidence));
            r.target(Target.atMost(
                    "uncontended_vs_curator",
                    name(),
                    "uncontended acquire+release p50 ≤ 0.85 × Curator",
                    vsCurator,
                    0.85,
                    evidence));

            String plot = Plots.bars(
                    ctx.out(),
                    "uncontended.png",
                    "Uncontended acquire + release",
                    "percentile",
                    "latency (µs)",
                    List.of("p50", "p99", "p99.9"),
                    series(lat));
            StringBuilder md = new StringBuilder();
            md.append("One client acquires and releases a lock nobody else wants, in a loop. The floor is the same "
                            + "client creating and deleting an ephemeral-sequential node (two quorum writes). Each variant has "
                            + "its own session on the same follower; the variants run interleaved in ")
                    .append(s.lockRounds())
                    .append(" rounds of ")
                    .append(s.lockOpsPerRound())
                    .append(" cycles each, after ")
                    .append(s.lockWarmupRounds())
                    .append(" warm-up rounds.\n\n");
            md.append(Fmt.LATENCY_HEADER).append('\n');
            lat.forEach((n, l) -> md.append(Fmt.latencyRow(n, l)).append('\n'));
            md.append(
                    "\n| variant | what it is | p50 ÷ floor p50 | p50 ÷ Curator p50 | requests per cycle (server count) |\n|---|---|---:|---:|---:|\n");
            lat.forEach((n, l) -> md.append(Fmt.row(
                    n,
                    WHAT.get(n),
                    Fmt.ratio(l.p50() / floor.p50()),
                    Fmt.ratio(l.p50() / curator.p50()),
                    Fmt.num(requests.get(n)))));
            md.append(
                    "\nThe two diagnostic variants split zkfence's distance from the floor: floor → floor-async is what "
                            + "waiting on ZooKeeper's asynchronous API costs for both requests (a callback on ZooKeeper's event "
                            + "thread, then a wake-up of the caller) instead of the synchronous one; floor → zkfence-wire is "
                            + "zkfence's request pattern (the create on the asynchronous API with the child-list read "
                            + "pipelined behind it, the delete on the synchronous API); zkfence-wire → zkfence is the cost of "
                            + "the lock's own code.\n");
            md.append("\n![uncontended latency](").append(plot).append(")\n");
            return new Section("1. Uncontended acquire + release", md.toString());
        }
    }

    private static final Map<String, String> WHAT = Map.of(
            "floor", "create + delete, synchronous API",
            "zkfence", "`lock.acquire()` + `lease.release()`",
            "curator", "`InterProcessMutex.acquire()` + `release()`",
            "floor-async", "diagnostic: the floor's two requests on the async API, caller waits on futures",
            "zkfence-wire",
                    "diagnostic: zkfence's requests as zkfence sends them (create ∥ getChildren on the async API, delete on the sync API), no lock code");

    static Map<String, List<Double>> series(Map<String, Latency> lat) {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        lat.forEach((n, l) -> series.put(n, List.of(l.p50(), l.p99(), l.p999())));
        return series;
    }
}
