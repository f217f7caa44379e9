package io.zkfence.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.recipes.cache.CacheRebuild;
import io.zkfence.recipes.cache.CachedValue;
import io.zkfence.recipes.cache.JdbcCacheStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Workload 6: a cache stampede. N callers spread over several simulated pods (a lock client, i.e.
 * a ZooKeeper session, each) hit one expired key at the same moment, once per expiry. Three ways:
 * the {@code CacheRebuild} recipe with a stale value it may serve, the recipe with a value too
 * stale to serve (everyone waits), and a plain read-through cache with no lock. Measures the
 * loader calls per expiry and the callers' latency. The cache lives in an embedded PostgreSQL
 * ({@code JdbcCacheStore}); the loader stands in for an expensive query by parking its thread.
 */
final class CacheRebuildBench implements Workload {

    static final int PODS = 4;
    static final Duration LOADER_COST = Duration.ofMillis(50);
    private static final Duration FRESH_FOR = Duration.ofHours(1);
    private static final Duration MAX_STALENESS = Duration.ofHours(1);

    private enum Scenario {
        STALE("recipe, stale value served", FRESH_FOR.plusMinutes(1)),
        WAIT("recipe, too stale: callers wait", FRESH_FOR.plus(MAX_STALENESS).plusMinutes(1)),
        NO_LOCK("no lock (read-through cache)", FRESH_FOR.plusMinutes(1));

        final String what;
        final Duration expireBy;

        Scenario(String what, Duration expireBy) {
            this.what = what;
            this.expireBy = expireBy;
        }

        String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Override
    public String name() {
        return "cache-rebuild";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        int callersPerPod = s.smoke() ? 5 : 25;
        int expiries = s.smoke() ? 2 : 20;
        int callers = PODS * callersPerPod;
        ctx.log()
                .say(
                        "cache rebuild: %d callers on %d pods, %d expiries per scenario; starting embedded PostgreSQL",
                        callers, PODS, expiries);
        try (Closer closer = new Closer()) {
            EmbeddedPostgres pg = closer.add(EmbeddedPostgres.builder()
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start());
            HikariDataSource db = closer.add(pool(pg, callers));
            JdbcCacheStore<String> store = JdbcCacheStore.create(
                    db, JdbcFence.create(db), "bench_cache", Function.identity(), Function.identity());
            store.createTableIfMissing();
            List<LockClient> pods = new ArrayList<>();
            for (int i = 0; i < PODS; i++) {
                pods.add(closer.add(LockClient.create(
                        closer.add(ctx.zk().curator()),
                        LockClientConfig.builder()
                                .rootPath("/bench/cache")
                                .ownerId("bench-cache-pod-" + i)
                                .build())));
            }
            ExecutorService threads = Executors.newFixedThreadPool(callers);
            closer.add(threads::shutdownNow);

            Map<Scenario, Histogram> latency = new LinkedHashMap<>();
            Map<Scenario, List<Integer>> loads = new LinkedHashMap<>();
            for (Scenario sc : Scenario.values()) {
                latency.put(sc, Latency.newHistogram());
                loads.put(sc, new ArrayList<>());
                runScenario(sc, pods, store, threads, callersPerPod, expiries, latency.get(sc), loads.get(sc));
                ctx.log().say("cache rebuild: %s: loader calls per expiry %s", sc.what, loads.get(sc));
            }
            return report(ctx, r, latency, loads, callers, expiries);
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL", e);
        }
    }

    private static void runScenario(
            Scenario sc,
            List<LockClient> pods,
            JdbcCacheStore<String> store,
            ExecutorService threads,
            int callersPerPod,
            int expiries,
            Histogram latency,
            List<Integer> loadsPerExpiry) {
        String key = "product-list-" + sc.id();
        ManualClock clock = new ManualClock();
        AtomicInteger loads = new AtomicInteger();
        Supplier<String> loader = () -> {
            int n = loads.incrementAndGet();
            LockSupport.parkNanos(LOADER_COST.toNanos());
            return "products as of load " + n;
        };
        List<Getter> getters = new ArrayList<>();
        for (LockClient pod : pods) {
            CacheRebuild<String> cache = CacheRebuild.builder(pod, store)
                    .clock(clock)
                    .freshFor(FRESH_FOR)
                    .maxStaleness(MAX_STALENESS)
                    .waitTimeout(Duration.ofSeconds(60))
                    .failureBackoff(Duration.ZERO)
                    .build();
            getters.add(
                    sc == Scenario.NO_LOCK
                            ? () -> readThrough(store, clock, key, loader)
                            : () -> cache.get(key, loader));
        }
        getters.get(0).get(); // the first value
        for (int e = 0; e < expiries; e++) {
            clock.advance(sc.expireBy);
            int before = loads.get();
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> calls = new ArrayList<>();
            for (Getter g : getters) {
                for (int c = 0; c < callersPerPod; c++) {
                    calls.add(threads.submit(() -> {
                        await(go);
                        long t0 = System.nanoTime();
                        g.get();
                        long took = System.nanoTime() - t0;
                        synchronized (latency) {
                            Latency.record(latency, took);
                        }
                        return null;
                    }));
                }
            }
            go.countDown();
            for (Future<?> f : calls) {
                join(f);
            }
            // Stale callers return before the rebuild ends: wait for it, and for every pod's queued rebuild.
            waitUntil(() -> store.read(key)
                            .map(v -> !v.writtenAt().isBefore(clock.instant()))
                            .orElse(false)
                    && pods.get(0).inspect(CacheRebuild.lockName(key)).entries().isEmpty());
            loadsPerExpiry.add(loads.get() - before);
        }
    }

    /** The cache without the recipe: whoever finds it expired loads and writes. */
    private static String readThrough(JdbcCacheStore<String> store, Clock clock, String key, Supplier<String> loader) {
        var cached = store.read(key);
        if (cached.isPresent()
                && clock.instant().isBefore(cached.get().writtenAt().plus(FRESH_FOR))) {
            return cached.get().value();
        }
        String value = loader.get();
        store.write(key, new CachedValue<>(value, clock.instant(), 1)); // one constant token: every write accepted
        return value;
    }

    private Section report(
            BenchContext ctx,
            Results r,
            Map<Scenario, Histogram> latency,
            Map<Scenario, List<Integer>> loads,
            int callers,
            int expiries) {
        StringBuilder md = new StringBuilder();
        md.append(callers)
                .append(" callers (")
                .append(PODS)
                .append(" simulated pods — a lock client and ZooKeeper ")
                .append("session each, in this JVM — × ")
                .append(callers / PODS)
                .append(" threads) call `get` on one ")
                .append("key at the same moment, right after it expired; ")
                .append(expiries)
                .append(" expiries per ")
                .append("scenario. The store is `JdbcCacheStore` on embedded PostgreSQL; the loader parks ")
                .append(LOADER_COST.toMillis())
                .append(" ms as a stand-in for an expensive query and touches no shared ")
                .append("resource, so the no-lock latencies do not include the load a real stampede puts on the ")
                .append("back end. Latency is one caller's `get`, from the common start to its return.\n\n");
        md.append("| scenario | loader calls per expiry (min / mean / max) | callers | p50 | p99 | max |\n")
                .append("|---|---:|---:|---:|---:|---:|\n");
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("p50 (ms)", new ArrayList<>());
        series.put("p99 (ms)", new ArrayList<>());
        for (Scenario sc : Scenario.values()) {
            Latency l = Latency.of(latency.get(sc));
            r.latency("cache_rebuild." + sc.id(), l);
            List<Integer> n = loads.get(sc);
            int min = n.stream().mapToInt(Integer::intValue).min().orElseThrow();
            int max = n.stream().mapToInt(Integer::intValue).max().orElseThrow();
            double mean = n.stream().mapToInt(Integer::intValue).average().orElseThrow();
            r.figure("cache_rebuild." + sc.id() + ".loader_calls_per_expiry.max", max);
            r.figure("cache_rebuild." + sc.id() + ".loader_calls_per_expiry.mean", mean);
            md.append(Fmt.row(
                    sc.what,
                    min + " / " + Fmt.num(mean) + " / " + max,
                    l.count(),
                    Fmt.us(l.p50()),
                    Fmt.us(l.p99()),
                    Fmt.us(l.max())));
            series.get("p50 (ms)").add(l.p50() / 1000);
            series.get("p99 (ms)").add(l.p99() / 1000);
            Target t = Target.exactly(
                    "cache_rebuild_" + sc.id() + "_loader_calls",
                    name(),
                    sc.what + ": loader calls per expiry, most in any expiry, == 1",
                    max,
                    1,
                    "per expiry " + n + "; caller p50 " + Fmt.us(l.p50()) + ", p99 " + Fmt.us(l.p99()));
            r.target(sc == Scenario.NO_LOCK ? t.informational() : t);
        }
        String plot = Plots.bars(
                ctx.out(),
                "cache-rebuild.png",
                "Cache rebuild: caller latency per expiry",
                "",
                "latency (ms)",
                List.of(Scenario.values()).stream().map(sc -> sc.what).toList(),
                series);
        md.append("\n![cache rebuild](").append(plot).append(")\n");
        return new Section("6. Cache rebuild without a stampede", md.toString());
    }

    @FunctionalInterface
    private interface Getter {
        String get();
    }

    private static final class ManualClock extends Clock {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-05T09:00:00Z"));

        void advance(Duration by) {
            now.updateAndGet(t -> t.plus(by));
        }

        @Override
        public Instant instant() {
            return now.get();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        if (!latch.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("start signal not given within 60 s");
        }
    }

    private static void join(Future<?> f) {
        try {
            f.get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("a caller failed", e);
        }
    }

    private static void waitUntil(Supplier<Boolean> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.get()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the rebuild did not end within 60 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    static HikariDataSource pool(EmbeddedPostgres pg, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.getJdbcUrl("postgres", "postgres"));
        config.setUsername("postgres");
        config.setMaximumPoolSize(Math.min(size, 40));
        return new HikariDataSource(config);
    }
}
