package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.server.EmbeddedServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * Workload 10: the HTTP lock service. Two replicas (each its own ZooKeeper session on the same
 * follower as every other client) serve blocking keep-alive HTTP/1.1 clients ({@link KeepAliveHttp});
 * the same work runs through lock-core in the same run. An uncontended acquire + release cycle
 * (interleaved rounds, with a {@code java.net.http} client and the service's ZooKeeper requests
 * sent bare beside it), a bare {@code GET /health/live} per client, one hot key with 8 waiting
 * clients, and 16 clients on 16 keys (alternating rounds). Every answer other than the expected
 * 200 counts as an error.
 */
final class ServerBench implements Workload {

    private static final int HOT_CLIENTS = 8;
    private static final int MANY_KEYS = 16;

    @Override
    public String name() {
        return "server";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    /** One client's acquire + release, HTTP or lock-core. */
    private interface Cycle {
        void run();
    }

    /** The uncontended part's figures, for the report. */
    private record Uncontended(
            Map<String, Latency> cycles, Map<String, Double> requests, Map<String, Latency> getLive) {}

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        AtomicLong errors = new AtomicLong();
        try (Closer closer = new Closer()) {
            List<EmbeddedServer> replicas = List.of(
                    closer.add(EmbeddedServer.start(closer.add(ctx.zk().curator()), "/bench/service")),
                    closer.add(EmbeddedServer.start(closer.add(ctx.zk().curator()), "/bench/service")));
            HttpClient jdk =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            closer.add(jdk::close);
            IntFunction<LockClient> lockClient = i -> closer.add(LockClient.create(
                    closer.add(ctx.zk().curator()),
                    LockClientConfig.builder()
                            .rootPath("/bench/lockcore-svc")
                            .ownerId("bench-svc-" + i)
                            .build()));

            Uncontended u = uncontended(ctx, closer, replicas.get(0), jdk, lockClient.apply(0), errors);
            Latency httpL = u.cycles().get("http");
            Latency coreL = u.cycles().get("lock-core");
            double addedMs = (httpL.p50() - coreL.p50()) / 1000.0;
            r.figure("server.uncontended.added_p50_ms", addedMs);
            r.figure(
                    "server.uncontended.http_layer_p50_ms",
                    (httpL.p50() - u.cycles().get("service-wire").p50()) / 1000.0);
            r.target(Target.atMost(
                            "server_http_added_p50",
                            name(),
                            "HTTP service: acquire + release p50 adds ≤ 0.5 ms to" + " lock-core's",
                            addedMs,
                            0.5,
                            "p50 HTTP " + Fmt.us(httpL.p50()) + " (keep-alive client; java.net.http "
                                    + Fmt.us(u.cycles().get("http-jdk").p50())
                                    + "), the service's ZooKeeper requests bare "
                                    + Fmt.us(u.cycles().get("service-wire").p50()) + ", lock-core "
                                    + Fmt.us(coreL.p50())
                                    + "; ZooKeeper requests per cycle: service "
                                    + Fmt.num(u.requests().get("http")) + ", lock-core "
                                    + Fmt.num(u.requests().get("lock-core")) + "; p99 HTTP " + Fmt.us(httpL.p99())
                                    + ", lock-core "
                                    + Fmt.us(coreL.p99()))
                    .in("ms"));

            // 2. One hot key, 8 waiting clients; 3. 16 clients on 16 keys. Alternating rounds.
            Duration round = s.smoke() ? Duration.ofMillis(800) : Duration.ofSeconds(5);
            int measured = s.smoke() ? 1 : 2;
            Map<String, Double> perSecond = new LinkedHashMap<>();
            Map<String, Double> requestsPerGrant = new LinkedHashMap<>();
            for (String shape : List.of("hot", "many")) {
                int clients = shape.equals("hot") ? HOT_CLIENTS : MANY_KEYS;
                List<Cycle> viaHttp = new ArrayList<>();
                List<Cycle> viaCore = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    String key = shape.equals("hot") ? "bench:hot" : "bench:key-" + c;
                    viaHttp.add(HttpCycle.keepAlive(
                            closer,
                            replicas.get(c % 2),
                            replicas.get((c + 1) % 2),
                            key,
                            "bench-" + shape + "-" + c,
                            shape.equals("hot"),
                            errors)::run);
                    FencedLock lock = lockClient.apply(100 + c).lock(key.replace(':', '-'));
                    viaCore.add(() -> lock.acquire().release());
                }
                ctx.log()
                        .say(
                                "server: %s: %d clients, %d rounds of %d ms per implementation",
                                shape.equals("hot") ? "one hot key" : MANY_KEYS + " keys",
                                clients,
                                measured + 1,
                                round.toMillis());
                long[] grants = new long[2];
                long[] nanos = new long[2];
                long[] requests = new long[2];
                for (int i = 0; i < 2 * (measured + 1); i++) {
                    int impl = (i / 2 + i) % 2; // http, core, core, http, ...: ABBA
                    long before = ctx.zk().received();
                    long[] g = rate(impl == 0 ? viaHttp : viaCore, round);
                    if (i >= 2) { // the first pair warms up
                        grants[impl] += g[0];
                        nanos[impl] += g[1];
                        requests[impl] += ctx.zk().received() - before;
                    }
                }
                double httpRate = grants[0] / (nanos[0] / 1e9);
                double coreRate = grants[1] / (nanos[1] / 1e9);
                perSecond.put(shape + " http", httpRate);
                perSecond.put(shape + " lock-core", coreRate);
                requestsPerGrant.put(shape + " http", requests[0] / (double) Math.max(1, grants[0]));
                requestsPerGrant.put(shape + " lock-core", requests[1] / (double) Math.max(1, grants[1]));
                r.figure("server." + shape + ".http.grants_per_s", httpRate);
                r.figure("server." + shape + ".lock_core.grants_per_s", coreRate);
                r.figure("server." + shape + ".ratio.http_vs_lock_core", httpRate / coreRate);
                r.figure("server." + shape + ".http.requests_per_grant", requestsPerGrant.get(shape + " http"));
                r.figure(
                        "server." + shape + ".lock_core.requests_per_grant",
                        requestsPerGrant.get(shape + " lock-core"));
            }
            r.figure("server.errors", errors.get());
            r.target(Target.atLeast(
                    "server_hot_key_vs_lock_core",
                    name(),
                    "HTTP service, one hot key, " + HOT_CLIENTS + " clients: grants/s ≥ 0.9 × lock-core's",
                    perSecond.get("hot http") / perSecond.get("hot lock-core"),
                    0.9,
                    "HTTP " + Fmt.num(perSecond.get("hot http")) + ", lock-core "
                            + Fmt.num(perSecond.get("hot lock-core"))
                            + " grants/s; ZooKeeper requests per grant: HTTP "
                            + Fmt.num(requestsPerGrant.get("hot http"))
                            + ", lock-core " + Fmt.num(requestsPerGrant.get("hot lock-core"))));
            r.target(Target.exactly(
                    "server_errors",
                    name(),
                    "HTTP service: error answers == 0",
                    errors.get(),
                    0,
                    errors.get() + " answers other than 200 in every part of the workload"));
            return report(ctx, u, perSecond, requestsPerGrant, errors.get(), round, measured);
        }
    }

    /**
     * The uncontended cycle, interleaved: the service through the keep-alive client and through
     * {@code java.net.http}, the service's ZooKeeper requests bare, lock-core. Then the ZooKeeper
     * requests each sends per cycle, and a bare {@code GET /health/live} per HTTP client.
     */
    private Uncontended uncontended(
            BenchContext ctx,
            Closer closer,
            EmbeddedServer replica,
            HttpClient jdk,
            LockClient core,
            AtomicLong errors) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        ctx.log().say("server: uncontended acquire + release over HTTP (two clients), bare, and through lock-core");
        FencedLock coreLock = core.lock("uncontended");
        List<Op> ops = List.of(
                Op.of(
                        "http",
                        HttpCycle.keepAlive(
                                closer, replica, replica, "bench:uncontended", "bench-http-0", false, errors)::run),
                Op.of(
                        "http-jdk",
                        HttpCycle.javaNetHttp(
                                        jdk,
                                        replica,
                                        replica,
                                        "bench:uncontended-jdk",
                                        "bench-http-jdk-0",
                                        false,
                                        errors)::run),
                new ServiceWireCycle(closer.add(ctx.zk().curator()), "/bench/service-wire/uncontended"),
                Op.of("lock-core", () -> coreLock.acquire().release()));
        int rounds = s.smoke() ? 2 : 20;
        Map<String, Histogram> hist = Interleaved.run(ops, s.smoke() ? 1 : 3, rounds, s.smoke() ? 5 : 25);
        Map<String, Latency> cycles = new LinkedHashMap<>();
        Map<String, Double> requests = new LinkedHashMap<>();
        for (Op op : ops) {
            cycles.put(op.name(), Latency.of(hist.get(op.name())));
            r.latency("server.uncontended." + figureName(op.name()), cycles.get(op.name()));
            long before = ctx.zk().received();
            for (int i = 0; i < s.requestCountOps(); i++) {
                op.run();
            }
            requests.put(op.name(), (ctx.zk().received() - before) / (double) s.requestCountOps());
            r.figure("server.uncontended." + figureName(op.name()) + ".requests_per_cycle", requests.get(op.name()));
        }

        KeepAliveHttp live = closer.add(new KeepAliveHttp("127.0.0.1", replica.port(), Duration.ofSeconds(30)));
        URI liveUri = URI.create("http://127.0.0.1:" + replica.port() + "/health/live");
        List<Op> gets = List.of(
                Op.of("keep-alive", () -> {
                    try {
                        if (live.get("/health/live").status() != 200) {
                            errors.incrementAndGet();
                        }
                    } catch (IOException e) {
                        errors.incrementAndGet();
                    }
                }),
                Op.of("jdk", () -> {
                    try {
                        if (jdk.send(HttpRequest.newBuilder(liveUri).build(), HttpResponse.BodyHandlers.ofByteArray())
                                        .statusCode()
                                != 200) {
                            errors.incrementAndGet();
                        }
                    } catch (IOException e) {
                        errors.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted during a benchmark request", e);
                    }
                }));
        Map<String, Histogram> getHist = Interleaved.run(gets, 2, s.smoke() ? 2 : 10, s.smoke() ? 20 : 200);
        Map<String, Latency> getLive = new LinkedHashMap<>();
        getHist.forEach((client, h) -> {
            getLive.put(client, Latency.of(h));
            r.latency("server.get_live." + figureName(client), getLive.get(client));
        });
        return new Uncontended(cycles, requests, getLive);
    }

    /** A variant's name in figure names: "http-jdk" → "http_jdk". */
    private static String figureName(String variant) {
        return variant.replace('-', '_');
    }

    /** Clients run their cycles for {@code length}; returns {grants, elapsed nanos}. */
    private static long[] rate(List<Cycle> clients, Duration length) {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong grants = new AtomicLong();
        CountDownLatch done = new CountDownLatch(clients.size());
        AtomicInteger failures = new AtomicInteger();
        long t0 = System.nanoTime();
        for (Cycle c : clients) {
            Thread.ofPlatform().start(() -> {
                try {
                    while (running.get()) {
                        c.run();
                        grants.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                    throw e;
                } finally {
                    done.countDown();
                }
            });
        }
        LockSupport.parkNanos(length.toNanos());
        running.set(false);
        try {
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("clients did not stop within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " client(s) failed");
        }
        return new long[] {grants.get(), System.nanoTime() - t0};
    }

    private static final Map<String, String> WHAT = Map.of(
            "http", "the service, blocking keep-alive HTTP/1.1 client (the measured one)",
            "http-jdk", "the service, `java.net.http` client (HTTP/1.1, for comparison)",
            "service-wire",
                    "diagnostic: the service's ZooKeeper requests for the cycle, sent bare (no HTTP, no lock code)",
            "lock-core", "`lock.acquire()` + `lease.release()`");

    private Section report(
            BenchContext ctx,
            Uncontended u,
            Map<String, Double> perSecond,
            Map<String, Double> requestsPerGrant,
            long errors,
            Duration round,
            int measured) {
        StringBuilder md = new StringBuilder();
        md.append("Two replicas of the service (`EmbeddedServer`, the same code as `./zkfence-server`), each its own ")
                .append(
                        "ZooKeeper session on the follower every client uses. The clients are blocking HTTP/1.1 clients on ")
                .append("keep-alive connections (as Python's `http.client` or Go's `net/http` send a request); the ")
                .append(
                        "uncontended cycle also runs through `java.net.http` for comparison. The same cycles run through ")
                .append("lock-core (a `LockClient`, one session each) in the same run. Uncontended cycles go to one ")
                .append("replica; under contention acquires go to one replica and releases to the other.\n\n");
        md.append(
                "| acquire + release, one client, no contention | what it is | p50 | p99 | p99.9 | mean | ZooKeeper requests "
                        + "per cycle (server count) |\n|---|---|---:|---:|---:|---:|---:|\n");
        u.cycles()
                .forEach((name, l) -> md.append(Fmt.row(
                        name,
                        WHAT.get(name),
                        Fmt.us(l.p50()),
                        Fmt.us(l.p99()),
                        Fmt.us(l.p999()),
                        Fmt.us(l.mean()),
                        Fmt.num(u.requests().get(name)))));
        md.append(
                        "\nlock-core → service-wire is the service's ZooKeeper protocol (its leases outlive any replica's session, ")
                .append(
                        "so it writes the grant, and a release reads its entry's data); service-wire → http is the HTTP layer, both ")
                .append("sides and the JSON; http → http-jdk is the client library.\n\n");
        md.append("| bare `GET /health/live` | p50 | p99 | mean |\n|---|---:|---:|---:|\n");
        u.getLive()
                .forEach((client, l) -> md.append(Fmt.row(
                        client.equals("jdk") ? "`java.net.http`" : "keep-alive client",
                        Fmt.us(l.p50()),
                        Fmt.us(l.p99()),
                        Fmt.us(l.mean()))));
        md.append(
                "\n| shape | HTTP grants/s | lock-core grants/s | HTTP ÷ lock-core | ZooKeeper requests per grant, HTTP | "
                        + "lock-core |\n|---|---:|---:|---:|---:|---:|\n");
        for (String shape : List.of("hot", "many")) {
            double h = perSecond.get(shape + " http");
            double c = perSecond.get(shape + " lock-core");
            md.append(Fmt.row(
                    shape.equals("hot")
                            ? "one hot key, " + HOT_CLIENTS + " waiting clients"
                            : MANY_KEYS + " clients on " + MANY_KEYS + " keys",
                    Fmt.num(h),
                    Fmt.num(c),
                    Fmt.ratio(h / c),
                    Fmt.num(requestsPerGrant.get(shape + " http")),
                    Fmt.num(requestsPerGrant.get(shape + " lock-core"))));
        }
        md.append("\nRounds of ")
                .append(round.toMillis())
                .append(" ms, ")
                .append(measured)
                .append(" measured per implementation after a warm-up pair, alternated. Error answers: ")
                .append(errors)
                .append(".\n");
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("HTTP service", List.of(perSecond.get("hot http"), perSecond.get("many http")));
        series.put("lock-core", List.of(perSecond.get("hot lock-core"), perSecond.get("many lock-core")));
        String plot = Plots.bars(
                ctx.out(),
                "server.png",
                "Lock service over HTTP vs lock-core",
                "shape",
                "grants per second",
                List.of("one hot key", MANY_KEYS + " keys"),
                series);
        md.append("\n![server](").append(plot).append(")\n");
        return new Section("9b. The lock service over HTTP", md.toString());
    }
}
