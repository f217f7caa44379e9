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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Workload 10: the HTTP lock service. Two replicas (each its own ZooKeeper session on the same
 * follower as every other client) serve blocking keep-alive HTTP/1.1 clients ({@link KeepAliveHttp});
 * the same work runs through lock-core and through etcd's own lock service (one member, a process
 * the harness starts, when the {@code etcd} binary is installed) in the same run:
 *
 * <ul>
 *   <li>the uncontended acquire + release, interleaved: over HTTP without a requestId, with one,
 *       waiting with one, through {@code java.net.http}; the service's ZooKeeper requests sent bare
 *       for the same three shapes; lock-core; etcd with a session lease and with a lease per cycle;
 *       each ZooKeeper variant's requests and writes per cycle counted on the server;
 *   <li>a bare {@code GET /health/live} per HTTP client;
 *   <li>one hot key with 8 waiting clients (HTTP, lock-core, both etcd shapes) and 16 clients on
 *       16 keys (HTTP, lock-core), in rotating rounds;
 *   <li>a replica just started: a fresh JVM running {@code ServerCommand}, its first cycles against
 *       the same cycles after warm-up, without and with its warm-up before readiness.
 * </ul>
 *
 * Every answer other than the expected 200 counts as an error.
 */
final class ServerBench implements Workload {

    private static final int HOT_CLIENTS = 8;
    private static final int MANY_KEYS = 16;
    /**
     * The hot key's second HTTP row: a TTL up to twice what a grant from the queue may be answered
     * valid without a write on the replicas' 15 s sessions (10 s, read behind a sync), where the
     * first row's 30 s TTL is confirmed with a write before it is answered.
     */
    private static final long SHORT_TTL_MS = 20_000;
    /** Longer than half the unconfirmed validity of the replicas' sessions (15 s: 10 s, confirmed at 5 s). */
    private static final Duration CONFIRMATIONS_SETTLE = Duration.ofMillis(5_500);

    private static final Pattern ETCD_VERSION = Pattern.compile("\"etcdserver\"\\s*:\\s*\"([^\"]+)\"");

    @Override
    public String name() {
        return "server";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    /** One client's acquire + release. */
    private interface Cycle {
        void run();
    }

    /** etcd for the peer rows, or why there are none. */
    private record Etcd(EtcdServer server, String version, String absent) {}

    /** The uncontended part's figures, for the report. */
    private record Uncontended(
            Map<String, Latency> cycles,
            Map<String, Double> requests,
            Map<String, Double> writes,
            Map<String, Latency> getLive) {}

    /** One started replica's first cycles and its cycles after warm-up. */
    private record Cold(String variant, Duration ready, Latency first, Latency warm, int firstCycles) {}

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        AtomicLong errors = new AtomicLong();
        try (Closer closer = new Closer()) {
            Etcd etcd = etcd(ctx, closer);
            List<EmbeddedServer> replicas = List.of(
                    closer.add(EmbeddedServer.start(closer.add(ctx.zk().curator()), "/bench/service")),
                    closer.add(EmbeddedServer.start(closer.add(ctx.zk().curator()), "/bench/service")));
            warmUp(ctx, closer, replicas, errors);
            HttpClient jdk =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            closer.add(jdk::close);
            IntFunction<LockClient> lockClient = i -> closer.add(LockClient.create(
                    closer.add(ctx.zk().curator()),
                    LockClientConfig.builder()
                            .rootPath("/bench/lockcore-svc")
                            .ownerId("bench-svc-" + i)
                            .build()));

            Uncontended u = uncontended(ctx, closer, replicas.get(0), jdk, lockClient.apply(0), etcd, errors);
            uncontendedTargets(r, u, etcd);

            // One hot key, 8 waiting clients; 16 clients on 16 keys. Rotating rounds.
            Duration round = s.smoke() ? Duration.ofMillis(800) : Duration.ofSeconds(5);
            int measured = s.smoke() ? 1 : 2;
            Map<String, Double> perSecond = new LinkedHashMap<>();
            Map<String, Double> requestsPerGrant = new LinkedHashMap<>();
            Map<String, Double> writesPerGrant = new LinkedHashMap<>();
            for (String shape : List.of("hot", "many")) {
                boolean hot = shape.equals("hot");
                int clients = hot ? HOT_CLIENTS : MANY_KEYS;
                Map<String, List<Cycle>> impls = new LinkedHashMap<>();
                impls.put("http", new ArrayList<>());
                if (hot) {
                    impls.put("http-ttl20s", new ArrayList<>());
                }
                impls.put("lock-core", new ArrayList<>());
                if (hot && etcd.server() != null) {
                    impls.put("etcd-session", new ArrayList<>());
                    impls.put("etcd-lease", new ArrayList<>());
                }
                for (int c = 0; c < clients; c++) {
                    String key = hot ? "bench:hot" : "bench:key-" + c;
                    // Each client acquires through one replica and releases through the other.
                    EmbeddedServer via = replicas.get(c % 2);
                    EmbeddedServer other = replicas.get((c + 1) % 2);
                    String owner = "bench-" + shape + "-" + c;
                    impls.get("http")
                            .add(
                                    HttpCycle.keepAlive(
                                            closer, via, other, key, owner, HttpCycle.Acquire.WAITING, errors)::run);
                    if (hot) {
                        HttpCycle.Acquire shortTtl = HttpCycle.Acquire.WAITING.withTtl(SHORT_TTL_MS);
                        impls.get("http-ttl20s")
                                .add(
                                        HttpCycle.keepAlive(closer, via, other, key, owner + "-20s", shortTtl, errors)
                                                ::run);
                    }
                    FencedLock lock = lockClient.apply(100 + c).lock(key.replace(':', '-'));
                    impls.get("lock-core").add(() -> lock.acquire().release());
                    if (impls.containsKey("etcd-session")) {
                        EtcdLockClient session =
                                closer.add(new EtcdLockClient(etcd.server().endpoint(), "bench/hot-session"));
                        impls.get("etcd-session").add(session::sessionCycle);
                        EtcdLockClient perCycle =
                                closer.add(new EtcdLockClient(etcd.server().endpoint(), "bench/hot-lease"));
                        impls.get("etcd-lease").add(perCycle::leaseCycle);
                    }
                }
                ctx.log()
                        .say(
                                "server: %s: %d clients, %s, %d rounds of %d ms each",
                                hot ? "one hot key" : MANY_KEYS + " keys",
                                clients,
                                String.join(", ", impls.keySet()),
                                measured + 1,
                                round.toMillis());
                List<String> names = List.copyOf(impls.keySet());
                Map<String, long[]> totals = new LinkedHashMap<>(); // grants, nanos, requests, writes
                names.forEach(n -> totals.put(n, new long[4]));
                for (int i = 0; i < measured + 1; i++) {
                    for (String impl : Interleaved.order(names, i)) {
                        long received = ctx.zk().received();
                        long zxid = ctx.zk().zxid();
                        long[] g = rate(impls.get(impl), round);
                        if (impl.startsWith("http") && !ctx.settings().smoke()) {
                            // A lease granted from the queue and released through the other replica
                            // is still confirmed by its granting replica halfway through its
                            // unconfirmed validity (5 s here): a request per grant, off the hand-off's
                            // path. Let those land in this round's count, not in the next round's.
                            LockSupport.parkNanos(CONFIRMATIONS_SETTLE.toNanos());
                        }
                        if (i >= 1) { // the first round of each warms up
                            long[] t = totals.get(impl);
                            t[0] += g[0];
                            t[1] += g[1];
                            t[2] += ctx.zk().received() - received;
                            t[3] += ctx.zk().zxid() - zxid;
                        }
                    }
                }
                for (String impl : names) {
                    long[] t = totals.get(impl);
                    String id = shape + " " + impl;
                    perSecond.put(id, t[0] / (t[1] / 1e9));
                    String fig = "server." + shape + "." + figureName(impl);
                    r.figure(fig + ".grants_per_s", perSecond.get(id));
                    if (!impl.startsWith("etcd")) {
                        requestsPerGrant.put(id, t[2] / (double) Math.max(1, t[0]));
                        writesPerGrant.put(id, t[3] / (double) Math.max(1, t[0]));
                        r.figure(fig + ".requests_per_grant", requestsPerGrant.get(id));
                        r.figure(fig + ".writes_per_grant", writesPerGrant.get(id));
                    }
                }
                r.figure(
                        "server." + shape + ".ratio.http_vs_lock_core",
                        perSecond.get(shape + " http") / perSecond.get(shape + " lock-core"));
            }
            hotTargets(r, perSecond, requestsPerGrant, writesPerGrant, etcd);

            List<Cold> cold = cold(ctx, errors);

            r.figure("server.errors", errors.get());
            r.target(Target.exactly(
                    "server_errors",
                    name(),
                    "HTTP service: error answers == 0",
                    errors.get(),
                    0,
                    errors.get() + " answers other than 200 in every part of the workload"));
            return report(
                    ctx, u, perSecond, requestsPerGrant, writesPerGrant, cold, etcd, errors.get(), round, measured);
        }
    }

    /**
     * Warms the replicas up as {@code ./zkfence-server} warms itself up before it reports ready
     * ({@code --warm-up-cycles}, default 1000): cycles of every shape through each replica (the
     * release through the other), so that the measured rounds meet compiled code, as lock-core's
     * cycles do after the workloads before this one.
     */
    private static void warmUp(BenchContext ctx, Closer closer, List<EmbeddedServer> replicas, AtomicLong errors) {
        int cycles = ctx.settings().smoke() ? 10 : 1_000;
        ctx.log().say("server: warming the replicas up: %d cycles through each", cycles);
        List<HttpCycle.Acquire> shapes =
                List.of(HttpCycle.Acquire.PLAIN, HttpCycle.Acquire.WITH_REQUEST_ID, HttpCycle.Acquire.WAITING);
        for (int r = 0; r < replicas.size(); r++) {
            for (int k = 0; k < shapes.size(); k++) {
                HttpCycle c = HttpCycle.keepAlive(
                        closer,
                        replicas.get(r),
                        replicas.get((r + 1) % replicas.size()),
                        "bench:warm-up-" + r + "-" + k,
                        "bench-warm-up",
                        shapes.get(k),
                        errors);
                for (int i = 0; i < cycles / shapes.size(); i++) {
                    c.run();
                }
            }
        }
    }

    /** Starts etcd for the peer rows when its binary is installed; says why not otherwise. */
    private static Etcd etcd(BenchContext ctx, Closer closer) {
        Optional<Path> binary = EtcdServer.binary();
        if (binary.isEmpty()) {
            String why = "etcd is not installed (no `etcd` on PATH; Debian's etcd-server package, which ./bench"
                    + " installs when it can)";
            ctx.log().say("server: etcd rows skipped: %s", why);
            return new Etcd(null, null, why);
        }
        try {
            EtcdServer server = closer.add(EtcdServer.start(binary.get()));
            Matcher m = ETCD_VERSION.matcher(server.version());
            String version = m.find() ? m.group(1) : server.version().strip();
            ctx.log().say("server: etcd %s started at %s (data in %s)", version, server.endpoint(), server.dataDir());
            ctx.results().fact("etcd.version", version);
            return new Etcd(server, version, null);
        } catch (RuntimeException e) {
            String why = "etcd (" + binary.get() + ") did not start: " + e.getMessage();
            ctx.log().say("server: etcd rows skipped: %s", why);
            return new Etcd(null, null, why);
        }
    }

    /**
     * The uncontended cycle, interleaved. Then the ZooKeeper requests and writes each variant sends
     * per cycle (counted on the server, a block of cycles per variant), and a bare {@code GET
     * /health/live} per HTTP client.
     */
    private Uncontended uncontended(
            BenchContext ctx,
            Closer closer,
            EmbeddedServer replica,
            HttpClient jdk,
            LockClient core,
            Etcd etcd,
            AtomicLong errors) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        ctx.log().say("server: uncontended acquire + release over HTTP, bare, through lock-core and etcd");
        FencedLock coreLock = core.lock("uncontended");
        List<Op> ops = new ArrayList<>();
        ops.add(Op.of(
                "http",
                HttpCycle.keepAlive(
                                closer,
                                replica,
                                replica,
                                "bench:uncontended",
                                "bench-http-0",
                                HttpCycle.Acquire.PLAIN,
                                errors)::run));
        ops.add(Op.of(
                "http-rid",
                HttpCycle.keepAlive(
                        closer,
                        replica,
                        replica,
                        "bench:uncontended-rid",
                        "bench-http-rid-0",
                        HttpCycle.Acquire.WITH_REQUEST_ID,
                        errors)::run));
        ops.add(Op.of(
                "http-wait",
                HttpCycle.keepAlive(
                        closer,
                        replica,
                        replica,
                        "bench:uncontended-wait",
                        "bench-http-wait-0",
                        HttpCycle.Acquire.WAITING,
                        errors)::run));
        ops.add(Op.of(
                "http-jdk",
                HttpCycle.javaNetHttp(
                        jdk,
                        replica,
                        replica,
                        "bench:uncontended-jdk",
                        "bench-http-jdk-0",
                        HttpCycle.Acquire.PLAIN,
                        errors)::run));
        ops.add(new ServiceWireCycle(
                "service-wire", closer.add(ctx.zk().curator()), "/bench/service-wire/plain", false, false));
        ops.add(new ServiceWireCycle(
                "service-wire-rid", closer.add(ctx.zk().curator()), "/bench/service-wire/rid", true, false));
        ops.add(new ServiceWireCycle(
                "service-wire-wait", closer.add(ctx.zk().curator()), "/bench/service-wire/wait", true, true));
        ops.add(Op.of("lock-core", () -> coreLock.acquire().release()));
        if (etcd.server() != null) {
            EtcdLockClient session = closer.add(new EtcdLockClient(etcd.server().endpoint(), "bench/uncontended"));
            EtcdLockClient perCycle =
                    closer.add(new EtcdLockClient(etcd.server().endpoint(), "bench/uncontended-lease"));
            ops.add(Op.of("etcd-session", session::sessionCycle));
            ops.add(Op.of("etcd-lease", perCycle::leaseCycle));
        }
        int rounds = s.smoke() ? 2 : 20;
        Map<String, Histogram> hist = Interleaved.run(ops, s.smoke() ? 1 : 8, rounds, s.smoke() ? 5 : 25);
        Map<String, Latency> cycles = new LinkedHashMap<>();
        Map<String, Double> requests = new LinkedHashMap<>();
        Map<String, Double> writes = new LinkedHashMap<>();
        for (Op op : ops) {
            cycles.put(op.name(), Latency.of(hist.get(op.name())));
            r.latency("server.uncontended." + figureName(op.name()), cycles.get(op.name()));
            if (op.name().startsWith("etcd")) {
                continue; // not ZooKeeper
            }
            long received = ctx.zk().received();
            long zxid = ctx.zk().zxid();
            for (int i = 0; i < s.requestCountOps(); i++) {
                op.run();
            }
            requests.put(op.name(), (ctx.zk().received() - received) / (double) s.requestCountOps());
            writes.put(op.name(), (ctx.zk().zxid() - zxid) / (double) s.requestCountOps());
            r.figure("server.uncontended." + figureName(op.name()) + ".requests_per_cycle", requests.get(op.name()));
            r.figure("server.uncontended." + figureName(op.name()) + ".writes_per_cycle", writes.get(op.name()));
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
        return new Uncontended(cycles, requests, writes, getLive);
    }

    private static final Map<String, String> SHAPES = Map.of(
            "http", "no requestId",
            "http-rid", "with a requestId",
            "http-wait", "waiting, with a requestId");

    private void uncontendedTargets(Results r, Uncontended u, Etcd etcd) {
        Latency core = u.cycles().get("lock-core");
        for (String variant : List.of("http", "http-rid", "http-wait")) {
            Latency http = u.cycles().get(variant);
            String wire = variant.replace("http", "service-wire");
            double addedMs = (http.p50() - core.p50()) / 1000.0;
            String fig = "server.uncontended." + figureName(variant);
            r.figure(fig + ".added_p50_ms", addedMs);
            r.figure(
                    fig + ".http_layer_p50_ms",
                    (http.p50() - u.cycles().get(wire).p50()) / 1000.0);
            String evidence = "p50 HTTP " + Fmt.us(http.p50()) + ", the same ZooKeeper requests bare "
                    + Fmt.us(u.cycles().get(wire).p50()) + ", lock-core " + Fmt.us(core.p50())
                    + "; p99 HTTP " + Fmt.us(http.p99()) + ", lock-core " + Fmt.us(core.p99());
            r.target(Target.atMost(
                            "server_" + figureName(variant) + "_added_p50",
                            name(),
                            "HTTP service, " + SHAPES.get(variant) + ": acquire + release p50 adds ≤ 0.5 ms to"
                                    + " lock-core's",
                            addedMs,
                            0.5,
                            evidence)
                    .in("ms"));
            r.target(Target.atMost(
                            "server_" + figureName(variant) + "_requests",
                            name(),
                            "HTTP service, " + SHAPES.get(variant) + ": ZooKeeper requests per cycle ≤ 3",
                            u.requests().get(variant),
                            3.05,
                            "server count over a block of cycles; lock-core "
                                    + Fmt.num(u.requests().get("lock-core")) + " (the bound allows the"
                                    + " replicas' session pings and background work: 0.05 per cycle)")
                    .in("per cycle"));
            r.target(Target.atMost(
                            "server_" + figureName(variant) + "_writes",
                            name(),
                            "HTTP service, " + SHAPES.get(variant) + ": durable writes per cycle ≤ 2",
                            u.writes().get(variant),
                            2.05,
                            "the server's zxid over a block of cycles (one per committed write, a multi is one);"
                                    + " lock-core " + Fmt.num(u.writes().get("lock-core")))
                    .in("per cycle"));
        }
        if (etcd.server() != null) {
            Latency http = u.cycles().get("http");
            for (String peer : List.of("etcd-session", "etcd-lease")) {
                Latency e = u.cycles().get(peer);
                r.target(Target.atMost(
                        "server_uncontended_vs_" + figureName(peer),
                        name(),
                        "HTTP service: uncontended acquire + release p50 ≤ etcd's lock service ("
                                + (peer.equals("etcd-session") ? "lease kept for the session" : "a lease per cycle")
                                + ")",
                        http.p50() / e.p50(),
                        1.0,
                        "p50 HTTP " + Fmt.us(http.p50()) + " (with a requestId "
                                + Fmt.us(u.cycles().get("http-rid").p50()) + "), etcd " + Fmt.us(e.p50())
                                + "; p99 HTTP " + Fmt.us(http.p99()) + ", etcd " + Fmt.us(e.p99())));
            }
        }
    }

    private void hotTargets(
            Results r,
            Map<String, Double> perSecond,
            Map<String, Double> requestsPerGrant,
            Map<String, Double> writesPerGrant,
            Etcd etcd) {
        double http = perSecond.get("hot http");
        r.target(Target.atLeast(
                "server_hot_key_vs_lock_core",
                name(),
                "HTTP service, one hot key, " + HOT_CLIENTS + " clients: grants/s ≥ 0.9 × lock-core's",
                http / perSecond.get("hot lock-core"),
                0.9,
                "HTTP " + Fmt.num(http) + ", lock-core " + Fmt.num(perSecond.get("hot lock-core"))
                        + " grants/s; ZooKeeper requests per grant: HTTP "
                        + Fmt.num(requestsPerGrant.get("hot http"))
                        + ", lock-core " + Fmt.num(requestsPerGrant.get("hot lock-core"))
                        + "; writes per grant: HTTP " + Fmt.num(writesPerGrant.get("hot http")) + ", lock-core "
                        + Fmt.num(writesPerGrant.get("hot lock-core"))));
        r.target(Target.atMost(
                        "server_hot_key_requests",
                        name(),
                        "HTTP service, one hot key, " + HOT_CLIENTS + " clients: ZooKeeper requests per grant ≤ 6",
                        requestsPerGrant.get("hot http"),
                        6,
                        "server count over the measured rounds; lock-core "
                                + Fmt.num(requestsPerGrant.get("hot lock-core")))
                .in("per grant"));
        double shortTtl = perSecond.get("hot http-ttl20s");
        r.target(Target.atLeast(
                "server_hot_key_vs_lock_core_ttl_20s",
                name(),
                "HTTP service, one hot key, " + HOT_CLIENTS + " clients, a 20 s TTL (granted from the queue"
                        + " without a write on 15 s sessions): grants/s ≥ 0.9 × lock-core's",
                shortTtl / perSecond.get("hot lock-core"),
                0.9,
                "HTTP " + Fmt.num(shortTtl) + ", lock-core " + Fmt.num(perSecond.get("hot lock-core"))
                        + " grants/s; ZooKeeper requests per grant: HTTP "
                        + Fmt.num(requestsPerGrant.get("hot http-ttl20s"))
                        + "; writes per grant: HTTP " + Fmt.num(writesPerGrant.get("hot http-ttl20s"))));
        if (etcd.server() != null) {
            for (String peer : List.of("etcd-session", "etcd-lease")) {
                double e = perSecond.get("hot " + peer);
                r.target(Target.atLeast(
                        "server_hot_key_vs_" + figureName(peer),
                        name(),
                        "HTTP service, one hot key, " + HOT_CLIENTS + " clients: grants/s ahead of etcd's lock"
                                + " service (" + (peer.equals("etcd-session") ? "session lease" : "a lease per cycle")
                                + ")",
                        http / e,
                        1.0,
                        "HTTP " + Fmt.num(http) + ", etcd " + Fmt.num(e) + " grants/s"));
            }
        }
    }

    /**
     * A replica just started, twice: without its warm-up and with it (the default). Each time a
     * fresh JVM runs {@code ServerCommand}; once it is ready, one client times its first cycles,
     * then runs untimed cycles, then times as many again.
     */
    private List<Cold> cold(BenchContext ctx, AtomicLong errors) {
        Settings s = ctx.settings();
        int timed = s.smoke() ? 20 : 500;
        int between = s.smoke() ? 20 : 3_000;
        Map<String, List<String>> variants = new LinkedHashMap<>();
        variants.put("no warm-up", List.of("--warm-up-cycles", "0"));
        // The smoke run (CI) keeps the second start short; its figures mean nothing anyway.
        variants.put(
                s.smoke() ? "warm-up (100 cycles, smoke)" : "warm-up (default, 1000 cycles)",
                s.smoke() ? List.of("--warm-up-cycles", "100") : List.of());
        List<Cold> out = new ArrayList<>();
        int n = 0;
        for (Map.Entry<String, List<String>> v : variants.entrySet()) {
            ctx.log()
                    .say(
                            "server: a cold replica (%s): a new JVM; %d cycles timed, %d untimed, %d timed",
                            v.getKey(), timed, between, timed);
            try (Closer closer = new Closer();
                    ColdReplica replica =
                            ColdReplica.start(ctx.zk().connectString(), "/bench/cold-" + n++, v.getValue())) {
                HttpCycle cycle = HttpCycle.keepAlive(
                        closer,
                        replica.port(),
                        replica.port(),
                        "bench:cold",
                        "bench-cold",
                        HttpCycle.Acquire.PLAIN,
                        errors);
                Histogram first = Latency.newHistogram();
                for (int i = 0; i < timed; i++) {
                    long t0 = System.nanoTime();
                    cycle.run();
                    Latency.record(first, System.nanoTime() - t0);
                }
                for (int i = 0; i < between; i++) {
                    cycle.run();
                }
                Histogram warm = Latency.newHistogram();
                for (int i = 0; i < timed; i++) {
                    long t0 = System.nanoTime();
                    cycle.run();
                    Latency.record(warm, System.nanoTime() - t0);
                }
                Cold c = new Cold(v.getKey(), replica.timeToReady(), Latency.of(first), Latency.of(warm), timed);
                String fig = "server.cold." + (v.getKey().startsWith("no") ? "no_warm_up" : "warm_up");
                ctx.results().figure(fig + ".ready_ms", c.ready().toMillis());
                ctx.results().latency(fig + ".first", c.first());
                ctx.results().latency(fig + ".after_warm_up", c.warm());
                out.add(c);
            }
        }
        return out;
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

    private static final Map<String, String> WHAT = Map.ofEntries(
            Map.entry("http", "the service, keep-alive HTTP/1.1 client, no requestId (the measured one)"),
            Map.entry("http-rid", "the same, each acquire with a new requestId"),
            Map.entry("http-wait", "the same, `wait: true` and a new requestId (as the Python and Node clients send)"),
            Map.entry("http-jdk", "the service, `java.net.http` client (HTTP/1.1, for comparison), no requestId"),
            Map.entry(
                    "service-wire",
                    "diagnostic: the service's ZooKeeper requests for `http`, sent bare (no HTTP, no service code)"),
            Map.entry("service-wire-rid", "diagnostic: the same for `http-rid` (+ the finished-record ops)"),
            Map.entry("service-wire-wait", "diagnostic: the same for `http-wait` (+ the replica-marker check)"),
            Map.entry("lock-core", "`lock.acquire()` + `lease.release()`"),
            Map.entry(
                    "etcd-session",
                    "etcd's lock service: `Lock` on a lease kept alive for the session, `Unlock` (etcd's"
                            + " `concurrency` usage)"),
            Map.entry(
                    "etcd-lease",
                    "etcd's lock service: `LeaseGrant` (TTL 30 s), `Lock` on it, `LeaseRevoke` (deletes the key):"
                            + " a lease per acquire, like the service's"));

    private Section report(
            BenchContext ctx,
            Uncontended u,
            Map<String, Double> perSecond,
            Map<String, Double> requestsPerGrant,
            Map<String, Double> writesPerGrant,
            List<Cold> cold,
            Etcd etcd,
            long errors,
            Duration round,
            int measured) {
        StringBuilder md = new StringBuilder();
        md.append("Two replicas of the service (`EmbeddedServer`, the same code as `./zkfence-server`), each its own ")
                .append("ZooKeeper session on the follower every client uses. The clients are blocking HTTP/1.1 ")
                .append("clients on keep-alive connections (as Python's `http.client` or Go's `net/http` send a ")
                .append("request); the uncontended cycle also runs through `java.net.http` for comparison. The same ")
                .append("cycles run through lock-core (a `LockClient`, one session each) and ")
                .append(
                        etcd.server() != null
                                ? "through etcd " + etcd.version()
                                        + "'s own lock service (one member, fsync on, a process on the same"
                                        + " machine; jetcd, a gRPC connection per client)"
                                : "would run through etcd's lock service, but " + etcd.absent())
                .append(" in the same run. Uncontended cycles go to one replica; under contention acquires go to ")
                .append("one replica and releases to the other.\n\n");
        md.append("| acquire + release, one client, no contention | what it is | p50 | p99 | p99.9 | mean | ZooKeeper")
                .append(" requests per cycle (server count) | durable writes per cycle (zxid) |\n")
                .append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        u.cycles()
                .forEach((name, l) -> md.append(Fmt.row(
                        name,
                        WHAT.get(name),
                        Fmt.us(l.p50()),
                        Fmt.us(l.p99()),
                        Fmt.us(l.p999()),
                        Fmt.us(l.mean()),
                        u.requests().containsKey(name) ? Fmt.num(u.requests().get(name)) : "— (not ZooKeeper)",
                        u.writes().containsKey(name) ? Fmt.num(u.writes().get(name)) : "—")));
        md.append("\nlock-core → service-wire is the service's ZooKeeper protocol (one multi and a pipelined child ")
                .append("list to acquire, one multi to release: the same count as lock-core's create ∥ child list, ")
                .append("delete, with more ops in each multi); service-wire → http is the HTTP layer and the ")
                .append("service's own code, both sides; http → http-jdk is the client library.\n\n");
        md.append("| bare `GET /health/live` | p50 | p99 | mean |\n|---|---:|---:|---:|\n");
        u.getLive()
                .forEach((client, l) -> md.append(Fmt.row(
                        client.equals("jdk") ? "`java.net.http`" : "keep-alive client",
                        Fmt.us(l.p50()),
                        Fmt.us(l.p99()),
                        Fmt.us(l.mean()))));
        md.append("\n| shape | implementation | grants/s | ÷ lock-core | ZooKeeper requests per grant (server")
                .append(" count) | durable writes per grant (zxid) |\n|---|---|---:|---:|---:|---:|\n");
        for (String key : perSecond.keySet()) {
            String shape = key.substring(0, key.indexOf(' '));
            String impl = key.substring(key.indexOf(' ') + 1);
            md.append(Fmt.row(
                    shape.equals("hot")
                            ? "one hot key, " + HOT_CLIENTS + " waiting clients"
                            : MANY_KEYS + " clients on " + MANY_KEYS + " keys",
                    impl,
                    Fmt.num(perSecond.get(key)),
                    Fmt.ratio(perSecond.get(key) / perSecond.get(shape + " lock-core")),
                    requestsPerGrant.containsKey(key) ? Fmt.num(requestsPerGrant.get(key)) : "—",
                    writesPerGrant.containsKey(key) ? Fmt.num(writesPerGrant.get(key)) : "—"));
        }
        md.append("\nRounds of ")
                .append(round.toMillis())
                .append(" ms, ")
                .append(measured)
                .append(" measured per implementation after a warm-up round each, in an order that rotates and ")
                .append("reverses. HTTP clients wait (`wait: true`) and send a new requestId per acquire. ")
                .append("Error answers: ")
                .append(errors)
                .append(".\n\n");
        md.append("**A replica just started.** A fresh JVM runs `io.zkfence.server.ServerCommand --zookeeper <the ")
                .append("bench ensemble> --no-auth` (the JVM's default flags, as `./zkfence-server` runs it); once ")
                .append("`/health/ready` answers 200, one keep-alive client times its first cycles (no requestId), ")
                .append("runs untimed cycles, then times as many again. Once with `--warm-up-cycles 0`, once with ")
                .append("the default warm-up before readiness.\n\n")
                .append(
                        "| replica | start to ready | cycles | first cycles p50 | p99 | mean | after warm-up p50 | p99 |")
                .append(" first ÷ after (p50) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Cold c : cold) {
            md.append(Fmt.row(
                    c.variant(),
                    Fmt.num(c.ready().toMillis()) + " ms",
                    c.firstCycles(),
                    Fmt.us(c.first().p50()),
                    Fmt.us(c.first().p99()),
                    Fmt.us(c.first().mean()),
                    Fmt.us(c.warm().p50()),
                    Fmt.us(c.warm().p99()),
                    Fmt.ratio(c.first().p50() / c.warm().p50())));
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String key : perSecond.keySet()) {
            if (key.startsWith("hot ")) {
                String impl = key.substring(4);
                series.put(impl.equals("http") ? "HTTP service" : impl, List.of(perSecond.get(key)));
            }
        }
        String plot = Plots.bars(
                ctx.out(),
                "server.png",
                "One hot key, " + HOT_CLIENTS + " waiting clients: the lock service, lock-core, etcd",
                "",
                "grants per second",
                List.of("one hot key"),
                series);
        md.append("\n![server](").append(plot).append(")\n");
        return new Section("9b. The lock service over HTTP", md.toString());
    }
}
