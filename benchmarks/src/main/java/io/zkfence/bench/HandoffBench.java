package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.lock.LockStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Workload 3: hand-off latency, from the holder calling release to the next waiter's acquire
 * returning, with N waiters queued behind the holder ({@link HandoffRing}, on this checkout's
 * lock-core). Watch events, child-list reads and single-znode reads are counted on the client side
 * ({@code LockClient.stats()}, summed over every client); requests on the server.
 */
final class HandoffBench implements Workload {

    /** This checkout's lock-core, as the ring drives it. */
    static final HandoffRing.Build CURRENT = (session, root, owner) -> {
        LockClient client = LockClient.create(
                session,
                LockClientConfig.builder().rootPath(root).ownerId(owner).build());
        return new HandoffRing.Client() {
            @Override
            public HandoffRing.Lock lock(String name) {
                FencedLock lock = client.lock(name);
                return new HandoffRing.Lock() {
                    @Override
                    public HandoffRing.Held acquire() {
                        Lease lease = lock.acquire();
                        return new HandoffRing.Held() {
                            @Override
                            public String nodePath() {
                                return lease.nodePath();
                            }

                            @Override
                            public void release() {
                                lease.release();
                            }
                        };
                    }

                    @Override
                    public String path() {
                        return lock.path();
                    }
                };
            }

            @Override
            public HandoffRing.Counters counters() {
                LockStats s = client.stats();
                return new HandoffRing.Counters(s.wakeUps(), s.childrenReads(), s.queueChecks());
            }

            @Override
            public void close() {
                client.close();
            }
        };
    };

    @Override
    public String name() {
        return "handoff";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        List<HandoffRing.Result> levels = new ArrayList<>();
        for (int waiters : s.handoffWaiters()) {
            ctx.log()
                    .say("hand-off: %d waiters on %d sessions", waiters, Math.min(waiters + 1, s.handoffMaxSessions()));
            HandoffRing.Result level = HandoffRing.run(
                    CURRENT,
                    ctx.zk()::curator,
                    ctx.zk()::received,
                    "/bench/zkfence",
                    "handoff-" + waiters,
                    waiters,
                    s.handoffMaxSessions(),
                    s.handoffWarmup(),
                    s.handoffSamples());
            levels.add(level);
            String p = "handoff.waiters_" + waiters;
            r.latency(p, Latency.of(level.histogram()));
            r.figure(p + ".sessions", level.sessions());
            r.figure(p + ".watch_events_per_release", level.wakeUps());
            r.figure(p + ".children_reads_per_handoff", level.childrenReads());
            r.figure(p + ".queue_checks_per_handoff", level.queueChecks());
            r.figure(p + ".requests_per_handoff", level.requests());
        }
        HandoffRing.Result first = levels.get(0);
        HandoffRing.Result last = levels.get(levels.size() - 1);
        double ratio = Latency.of(last.histogram()).p50()
                / Latency.of(first.histogram()).p50();
        r.figure("handoff.ratio.p50_most_vs_fewest_waiters", ratio);
        StringBuilder perLevel = new StringBuilder();
        HandoffRing.Result worst = first;
        for (HandoffRing.Result l : levels) {
            perLevel.append(perLevel.isEmpty() ? "" : ", ")
                    .append(l.waiters())
                    .append(" waiters: ")
                    .append(Fmt.num(l.wakeUps()));
            if (Math.abs(l.wakeUps() - 1) > Math.abs(worst.wakeUps() - 1)) {
                worst = l;
            }
        }
        r.target(Target.atMost(
                "handoff_p50_flat",
                name(),
                "hand-off p50 with " + last.waiters() + " waiters ≤ 1.2 × with " + first.waiters(),
                ratio,
                1.2,
                "p50 " + Fmt.us(Latency.of(last.histogram()).p50()) + " with " + last.waiters() + " waiters, "
                        + Fmt.us(Latency.of(first.histogram()).p50()) + " with " + first.waiters()
                        + "; reads per hand-off with " + last.waiters() + ": child lists "
                        + Fmt.num(last.childrenReads()) + ", single znodes " + Fmt.num(last.queueChecks())));
        r.target(Target.exactly(
                "handoff_watch_events",
                name(),
                "watch events delivered per release = 1 (every waiter count)",
                worst.wakeUps(),
                1.0,
                "client-side count per release: " + perLevel));

        List<String> categories =
                levels.stream().map(l -> l.waiters() + " waiters").toList();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put(
                "p50", levels.stream().map(l -> Latency.of(l.histogram()).p50()).toList());
        series.put(
                "p99", levels.stream().map(l -> Latency.of(l.histogram()).p99()).toList());
        String plot = Plots.bars(
                ctx.out(),
                "handoff.png",
                "Hand-off: release by A → B holds",
                "queue",
                "latency (µs)",
                categories,
                series);
        StringBuilder md = new StringBuilder();
        md.append("The holder releases while N waiters are queued; timed from the holder calling `release()` to the "
                        + "next waiter's `acquire()` returning. The N+1 participants form a ring: once granted, each waits "
                        + "until the queue is full again, then releases and queues again at the tail, so every timed "
                        + "hand-off has exactly N waiters behind it and nothing else of the workload in flight. Waiters are "
                        + "spread over at most ")
                .append(s.handoffMaxSessions())
                .append(" sessions. ")
                .append(s.handoffWarmup())
                .append(" hand-offs of warm-up, then ")
                .append(s.handoffSamples())
                .append(" timed, per queue length. Watch events, child-list reads and single-znode reads (the release"
                        + " record and the waiter's own node, which a woken waiter of a queue longer than 16 reads instead"
                        + " of the child list) are counted by the clients (`stats().wakeUps()`, `childrenReads()`,"
                        + " `queueChecks()`; the reads include the ones of each re-queue: its pipelined child list and"
                        + " its predecessor's watch); requests by the server every client is on (pings of the sessions"
                        + " included, the harness's own polling of the queue taken off).\n\n");
        md.append("| waiters | sessions | samples | p50 | p99 | p99.9 | max | watch events per release"
                + " | child-list reads per hand-off | single-znode reads per hand-off | requests per hand-off |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (HandoffRing.Result l : levels) {
            Latency lat = Latency.of(l.histogram());
            md.append(Fmt.row(
                    l.waiters(),
                    l.sessions(),
                    lat.count(),
                    Fmt.us(lat.p50()),
                    Fmt.us(lat.p99()),
                    Fmt.us(lat.p999()),
                    Fmt.us(lat.max()),
                    Fmt.num(l.wakeUps()),
                    Fmt.num(l.childrenReads()),
                    Fmt.num(l.queueChecks()),
                    Fmt.num(l.requests())));
        }
        md.append("\np50 with ")
                .append(last.waiters())
                .append(" waiters ÷ p50 with ")
                .append(first.waiters())
                .append(": **")
                .append(Fmt.ratio(ratio))
                .append("**.\n\n![hand-off latency](")
                .append(plot)
                .append(")\n");
        return new Section("3. Hand-off latency", md.toString());
    }
}
