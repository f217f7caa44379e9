package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * Workload 10: the HTTP lock service. Two replicas (each its own ZooKeeper session on the same
 * follower as every other client) serve a {@code java.net.http} client; the same work runs
 * through lock-core in the same run. An uncontended acquire + release cycle (interleaved rounds),
 * one hot key with 8 waiting clients, and 16 clients on 16 keys (alternating rounds). Every answer
 * other than the expected 200 counts as an error.
 */
final class ServerBench implements Workload {

    private static final ObjectMapper JSON = new ObjectMapper();
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

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        AtomicLong errors = new AtomicLong();
        try (Closer closer = new Closer()) {
            List<EmbeddedServer> replicas = List.of(
                    closer.add(EmbeddedServer.start(closer.add(ctx.zk().curator()), "/bench/service")),
                    closer.add(EmbeddedServer.start(closer.add(ctx.zk().curator()), "/bench/service")));
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            closer.add(http::close);
            IntFunction<LockClient> lockClient = i -> closer.add(LockClient.create(
                    closer.add(ctx.zk().curator()),
                    LockClientConfig.builder()
                            .rootPath("/bench/lockcore-svc")
                            .ownerId("bench-svc-" + i)
                            .build()));

            // 1. Uncontended cycle, interleaved.
            ctx.log().say("server: uncontended acquire + release over HTTP vs lock-core");
            LockClient single = lockClient.apply(0);
            FencedLock singleLock = single.lock("uncontended");
            Cycle httpCycle = httpCycle(
                    http, replicas.get(0), replicas.get(0), "bench:uncontended", "bench-http-0", false, errors);
            List<Op> ops = List.of(
                    Op.of("http", httpCycle::run),
                    Op.of("lock-core", () -> singleLock.acquire().release()));
            int rounds = s.smoke() ? 2 : 20;
            Map<String, Histogram> hist = Interleaved.run(ops, s.smoke() ? 1 : 3, rounds, s.smoke() ? 5 : 25);
            Latency httpL = Latency.of(hist.get("http"));
            Latency coreL = Latency.of(hist.get("lock-core"));
            r.latency("server.uncontended.http", httpL);
            r.latency("server.uncontended.lock_core", coreL);
            double addedMs = (httpL.p50() - coreL.p50()) / 1000.0;
            r.figure("server.uncontended.added_p50_ms", addedMs);
            r.target(Target.atMost(
                            "server_http_added_p50",
                            name(),
                            "HTTP service: acquire + release p50 adds ≤ 0.5 ms to" + " lock-core's",
                            addedMs,
                            0.5,
                            "p50 HTTP " + Fmt.us(httpL.p50()) + ", lock-core " + Fmt.us(coreL.p50()) + "; p99 HTTP "
                                    + Fmt.us(httpL.p99()) + ", lock-core " + Fmt.us(coreL.p99()))
                    .in("ms"));

            // 2. One hot key, 8 waiting clients; 3. 16 clients on 16 keys. Alternating rounds.
            Duration round = s.smoke() ? Duration.ofMillis(800) : Duration.ofSeconds(5);
            int measured = s.smoke() ? 1 : 2;
            Map<String, Double> perSecond = new LinkedHashMap<>();
            for (String shape : List.of("hot", "many")) {
                int clients = shape.equals("hot") ? HOT_CLIENTS : MANY_KEYS;
                List<Cycle> viaHttp = new ArrayList<>();
                List<Cycle> viaCore = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    String key = shape.equals("hot") ? "bench:hot" : "bench:key-" + c;
                    viaHttp.add(httpCycle(
                            http,
                            replicas.get(c % 2),
                            replicas.get((c + 1) % 2),
                            key,
                            "bench-" + shape + "-" + c,
                            shape.equals("hot"),
                            errors));
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
                for (int i = 0; i < 2 * (measured + 1); i++) {
                    int impl = (i / 2 + i) % 2; // http, core, core, http, ...: ABBA
                    long[] g = rate(impl == 0 ? viaHttp : viaCore, round);
                    if (i >= 2) { // the first pair warms up
                        grants[impl] += g[0];
                        nanos[impl] += g[1];
                    }
                }
                double httpRate = grants[0] / (nanos[0] / 1e9);
                double coreRate = grants[1] / (nanos[1] / 1e9);
                perSecond.put(shape + " http", httpRate);
                perSecond.put(shape + " lock-core", coreRate);
                r.figure("server." + shape + ".http.grants_per_s", httpRate);
                r.figure("server." + shape + ".lock_core.grants_per_s", coreRate);
                r.figure("server." + shape + ".ratio.http_vs_lock_core", httpRate / coreRate);
            }
            r.figure("server.errors", errors.get());
            r.target(Target.atLeast(
                    "server_hot_key_vs_lock_core",
                    name(),
                    "HTTP service, one hot key, " + HOT_CLIENTS + " clients: grants/s ≥ 0.9 × lock-core's",
                    perSecond.get("hot http") / perSecond.get("hot lock-core"),
                    0.9,
                    "HTTP " + Fmt.num(perSecond.get("hot http")) + ", lock-core "
                            + Fmt.num(perSecond.get("hot lock-core")) + " grants/s"));
            r.target(Target.exactly(
                    "server_errors",
                    name(),
                    "HTTP service: error answers == 0",
                    errors.get(),
                    0,
                    errors.get() + " answers other than 200 in every part of the workload"));
            return report(ctx, httpL, coreL, perSecond, errors.get(), round, measured);
        }
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
        java.util.concurrent.locks.LockSupport.parkNanos(length.toNanos());
        running.set(false);
        try {
            if (!done.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
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

    /** Acquire on one replica, release on the other; a non-200 answer is counted and the cycle moves on. */
    private static Cycle httpCycle(
            HttpClient http,
            EmbeddedServer acquireVia,
            EmbeddedServer releaseVia,
            String key,
            String owner,
            boolean wait,
            AtomicLong errors) {
        String acquire = "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":30000"
                + (wait ? ",\"wait\":true,\"waitMillis\":60000" : "") + "}";
        URI acquireUri = URI.create("http://127.0.0.1:" + acquireVia.port() + "/v1/locks/" + key + "/acquire");
        URI releaseUri = URI.create("http://127.0.0.1:" + releaseVia.port() + "/v1/locks/" + key + "/release");
        return () -> {
            JsonNode grant = post(http, acquireUri, acquire, errors);
            if (grant != null) {
                post(
                        http,
                        releaseUri,
                        "{\"ownerId\":\"" + owner + "\",\"lockToken\":\""
                                + grant.get("lockToken").asText() + "\"}",
                        errors);
            }
        };
    }

    private static JsonNode post(HttpClient http, URI uri, String body, AtomicLong errors) {
        try {
            HttpResponse<byte[]> r = http.send(
                    HttpRequest.newBuilder(uri)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                errors.incrementAndGet();
                return null;
            }
            return JSON.readTree(r.body());
        } catch (IOException e) {
            errors.incrementAndGet();
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Section report(
            BenchContext ctx,
            Latency httpL,
            Latency coreL,
            Map<String, Double> perSecond,
            long errors,
            Duration round,
            int measured) {
        StringBuilder md = new StringBuilder();
        md.append("Two replicas of the service (`EmbeddedServer`, the same code as `./zkfence-server`), each its own ")
                .append(
                        "ZooKeeper session on the follower every client uses; the client is `java.net.http` (HTTP/1.1). ")
                .append("Acquires go to one replica and releases to the other. The same cycles run through lock-core ")
                .append("(a `LockClient`, one session each) in the same run.\n\n");
        md.append(
                "| acquire + release, one client, no contention | p50 | p99 | p99.9 | mean |\n|---|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Latency> e : Map.of("HTTP service", httpL, "lock-core", coreL).entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .toList()) {
            Latency l = e.getValue();
            md.append("| ")
                    .append(e.getKey())
                    .append(" | ")
                    .append(Fmt.us(l.p50()))
                    .append(" | ")
                    .append(Fmt.us(l.p99()))
                    .append(" | ")
                    .append(Fmt.us(l.p999()))
                    .append(" | ")
                    .append(Fmt.us(l.mean()))
                    .append(" |\n");
        }
        md.append("\n| shape | HTTP grants/s | lock-core grants/s | HTTP ÷ lock-core |\n|---|---:|---:|---:|\n");
        for (String shape : List.of("hot", "many")) {
            double h = perSecond.get(shape + " http");
            double c = perSecond.get(shape + " lock-core");
            md.append("| ")
                    .append(
                            shape.equals("hot")
                                    ? "one hot key, " + HOT_CLIENTS + " waiting clients"
                                    : MANY_KEYS + " clients on " + MANY_KEYS + " keys")
                    .append(" | ")
                    .append(Fmt.num(h))
                    .append(" | ")
                    .append(Fmt.num(c))
                    .append(" | ")
                    .append(Fmt.ratio(h / c))
                    .append(" |\n");
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
