package io.zkfence.bench;

import com.hazelcast.core.HazelcastInstance;
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
 * Workload 2: clients (one session each) hammer one lock; each critical section checks exclusion
 * with a shared counter. zkfence, Curator and Hazelcast's CP FencedLock (the peer: its 3 CP members
 * in the harness JVM, a client each) run in rounds whose order rotates and reverses, so drift hits
 * all of them alike.
 */
final class ContendedBench implements Workload {

    private static final List<String> IMPLS = List.of("zkfence", "curator", "hazelcast");

    /** The critical section's shared state: who is inside, and a counter updated without atomics. */
    private static final class Exclusion {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicLong violations = new AtomicLong();
        long counter; // read and written only inside the lock; lost updates would show an overlap

        void criticalSection() {
            if (inside.incrementAndGet() != 1) {
                violations.incrementAndGet();
            }
            long c = counter;
            Thread.onSpinWait();
            counter = c + 1;
            inside.decrementAndGet();
        }
    }

    /** One implementation's rounds, summed; {@code requests} are what the pinned ZooKeeper server received (not reported for Hazelcast). */
    private record Totals(long grants, long nanos, long requests, Histogram waits) {}

    @Override
    public String name() {
        return "contended";
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
        int n = s.contendedClients();
        try (Closer closer = new Closer()) {
            Map<String, List<List<Mutex>>> impls = new LinkedHashMap<>();
            IMPLS.forEach(impl -> impls.put(impl, new ArrayList<>()));
            List<LockClient> zkClients = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                CuratorFramework session = closer.add(ctx.zk().curator());
                LockClient client = closer.add(LockClient.create(
                        session,
                        LockClientConfig.builder()
                                .rootPath("/bench/zkfence")
                                .ownerId("bench-contended-" + i)
                                .build()));
                zkClients.add(client);
                impls.get("zkfence").add(List.of(Mutex.of(client.lock("contended"))));
                InterProcessMutex mutex =
                        new InterProcessMutex(closer.add(ctx.zk().curator()), "/bench/curator/contended");
                impls.get("curator").add(List.of(Mutex.of(mutex)));
                HazelcastInstance hz = ctx.hazelcast().client("bench-contended-" + i);
                AutoCloseable hzShutdown = hz::shutdown;
                closer.add(hzShutdown);
                impls.get("hazelcast").add(List.of(Mutex.of(hz.getCPSubsystem().getLock("contended"))));
            }
            Exclusion exclusion = new Exclusion();
            ctx.log()
                    .say(
                            "contended: %d clients, warm-up + %d rounds of %d ms per implementation",
                            n, s.contendedRounds(), s.contendedRound().toMillis());
            for (String impl : IMPLS) {
                round(ctx, impls.get(impl), s.contendedRound().toNanos() / 2, exclusion);
            }
            Map<String, Totals> totals = new LinkedHashMap<>();
            long wakeUpsBefore =
                    zkClients.stream().mapToLong(c -> c.stats().wakeUps()).sum();
            long zkGrantsBefore =
                    zkClients.stream().mapToLong(c -> c.stats().grants()).sum();
            long readsBefore =
                    zkClients.stream().mapToLong(c -> c.stats().childrenReads()).sum();
            for (int i = 0; i < s.contendedRounds(); i++) {
                for (String impl : Interleaved.order(IMPLS, i)) {
                    Totals t = round(ctx, impls.get(impl), s.contendedRound().toNanos(), exclusion);
                    totals.merge(impl, t, (a, b) -> {
                        a.waits().add(b.waits());
                        return new Totals(
                                a.grants() + b.grants(), a.nanos() + b.nanos(), a.requests() + b.requests(), a.waits());
                    });
                }
            }
            long wakeUps =
                    zkClients.stream().mapToLong(c -> c.stats().wakeUps()).sum() - wakeUpsBefore;
            long zkGrants =
                    zkClients.stream().mapToLong(c -> c.stats().grants()).sum() - zkGrantsBefore;
            long reads =
                    zkClients.stream().mapToLong(c -> c.stats().childrenReads()).sum() - readsBefore;

            Map<String, Double> perSecond = new LinkedHashMap<>();
            Map<String, Latency> waits = new LinkedHashMap<>();
            for (String impl : IMPLS) {
                Totals t = totals.get(impl);
                double gps = t.grants() / (t.nanos() / 1e9);
                perSecond.put(impl, gps);
                waits.put(impl, Latency.of(t.waits()));
                r.figure("contended." + impl + ".grants", t.grants());
                r.figure("contended." + impl + ".seconds", t.nanos() / 1e9);
                r.figure("contended." + impl + ".grants_per_s", gps);
                if (!impl.equals("hazelcast")) {
                    r.figure("contended." + impl + ".requests_per_grant", t.requests() / (double) t.grants());
                }
                r.latency("contended." + impl + ".acquire_wait", waits.get(impl));
            }
            r.figure("contended.violations", exclusion.violations.get());
            long expected = totals.values().stream().mapToLong(Totals::grants).sum();
            r.figure("contended.counter_lost_updates", grantsSoFar - exclusion.counter);
            r.figure("contended.zkfence.watch_events_per_grant", zkGrants == 0 ? 0 : wakeUps / (double) zkGrants);
            r.figure("contended.zkfence.children_reads_per_grant", zkGrants == 0 ? 0 : reads / (double) zkGrants);
            double ratio = perSecond.get("zkfence") / perSecond.get("curator");
            double vsHazelcast = perSecond.get("zkfence") / perSecond.get("hazelcast");
            r.figure("contended.ratio.zkfence_vs_curator", ratio);
            r.figure("contended.ratio.zkfence_vs_hazelcast", vsHazelcast);
            if (exclusion.violations.get() != 0) {
                throw new IllegalStateException("mutual exclusion violated " + exclusion.violations.get() + " times");
            }
            String evidence = "zkfence " + Fmt.num(perSecond.get("zkfence")) + " grants/s, Curator "
                    + Fmt.num(perSecond.get("curator")) + " grants/s (Hazelcast CP, in memory: "
                    + Fmt.num(perSecond.get("hazelcast")) + "); requests per grant: zkfence "
                    + Fmt.num(r.figure("contended.zkfence.requests_per_grant")) + ", Curator "
                    + Fmt.num(r.figure("contended.curator.requests_per_grant")) + "; exclusion violations "
                    + exclusion.violations.get() + " in " + expected + " measured grants";
            r.target(Target.atLeast(
                    "contended_vs_curator",
                    name(),
                    n + " clients on one lock: grants/s ≥ 1.8 × Curator",
                    ratio,
                    1.8,
                    evidence));

            String plot = Plots.bars(
                    ctx.out(),
                    "contended.png",
                    n + " clients on one lock",
                    "implementation",
                    "grants per second",
                    List.of("grants/s"),
                    bars(perSecond));
            StringBuilder md = new StringBuilder();
            md.append(n)
                    .append(" clients, each with its own session, acquire one lock, run a critical section that "
                            + "checks exclusion (an atomic \"inside\" count and a counter updated without atomics), release, "
                            + "and go again. zkfence, Curator and Hazelcast's CP FencedLock (the peer: ")
                    .append(HazelcastCp.MEMBERS)
                    .append(" CP members in the harness JVM, each client a Hazelcast "
                            + "client with its own CP session) run in rounds of ")
                    .append(s.contendedRound().toMillis())
                    .append(" ms whose order rotates and reverses (")
                    .append(s.contendedRounds())
                    .append(" measured rounds each, after one warm-up round each).\n\n");
            md.append("| implementation | durability | grants | seconds | grants/s | requests per grant (server count) "
                    + "| acquire wait p50 | p99 | p99.9 | max |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            totals.forEach((impl, t) -> md.append(Fmt.row(
                    impl,
                    HazelcastCp.durabilityOf(impl),
                    t.grants(),
                    Fmt.num(t.nanos() / 1e9),
                    Fmt.num(perSecond.get(impl)),
                    impl.equals("hazelcast")
                            ? "— (not ZooKeeper)"
                            : Fmt.num(r.figure("contended." + impl + ".requests_per_grant")),
                    Fmt.us(waits.get(impl).p50()),
                    Fmt.us(waits.get(impl).p99()),
                    Fmt.us(waits.get(impl).p999()),
                    Fmt.us(waits.get(impl).max()))));
            md.append("\nzkfence ÷ Curator grants/s: **")
                    .append(Fmt.ratio(ratio))
                    .append("**; zkfence ÷ Hazelcast: **")
                    .append(Fmt.ratio(vsHazelcast))
                    .append("**. Exclusion violations: ")
                    .append(exclusion.violations.get())
                    .append("; lost counter updates: ")
                    .append(Fmt.num(r.figure("contended.counter_lost_updates")))
                    .append(". zkfence watch events per grant: ")
                    .append(Fmt.num(r.figure("contended.zkfence.watch_events_per_grant")))
                    .append("; child-list reads per grant: ")
                    .append(Fmt.num(r.figure("contended.zkfence.children_reads_per_grant")))
                    .append(". ")
                    .append(HazelcastCp.DURABILITY_NOTE)
                    .append("\n\n");
            md.append("![contended throughput](").append(plot).append(")\n");
            return new Section("2. Contended throughput", md.toString());
        }
    }

    /** Grants of every round, warm-up included: what the exclusion counter must equal. */
    private long grantsSoFar;

    private static Map<String, List<Double>> bars(Map<String, Double> perSecond) {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        perSecond.forEach((impl, gps) -> series.put(impl, List.of(gps)));
        return series;
    }

    /** One round: every client loops acquire → critical section → release until the deadline. */
    private Totals round(BenchContext ctx, List<List<Mutex>> clients, long nanos, Exclusion exclusion) {
        long before = ctx.zk().received();
        LockRound.Result result = LockRound.run(clients, nanos, exclusion::criticalSection);
        long requests = ctx.zk().received() - before;
        Histogram waits = Latency.newHistogram();
        for (Histogram h : result.waits()) {
            waits.add(h);
        }
        grantsSoFar += result.totalGrants();
        return new Totals(result.totalGrants(), result.nanos(), requests, waits);
    }
}
