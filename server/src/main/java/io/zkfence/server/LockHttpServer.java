package io.zkfence.server;

import static io.zkfence.server.HttpAnswers.PROBLEM_JSON;
import static io.zkfence.server.HttpAnswers.bytes;
import static io.zkfence.server.HttpAnswers.failed;
import static io.zkfence.server.HttpAnswers.ok;
import static io.zkfence.server.HttpAnswers.problem;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import io.zkfence.lock.ForcedRelease;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP face of one replica, on Javalin (Jetty 12): JSON over HTTP/1.1 under {@code /v1}.
 * Stateless: everything it knows is in ZooKeeper ({@link LeaseService}), so a client may send each
 * call to any replica. Errors are RFC 9457 problem details with a stable {@code error} code
 * ({@link LockServiceException}).
 *
 * <p>Each call runs where {@link CallThreads} says: on the Jetty thread that read it, or on a
 * virtual thread when it may park for long.
 */
final class LockHttpServer implements AutoCloseable {

    /** One route: method and Javalin path. {@link #ROUTES} is what the OpenAPI document must list. */
    record Route(String method, String path) {}

    static final Route ACQUIRE = new Route("POST", "/v1/locks/{lockKey}/acquire");
    static final Route RENEW = new Route("POST", "/v1/locks/{lockKey}/renew");
    static final Route RELEASE = new Route("POST", "/v1/locks/{lockKey}/release");
    static final Route FORCE_RELEASE = new Route("POST", "/v1/locks/{lockKey}/force-release");
    static final Route STATUS = new Route("GET", "/v1/locks/{lockKey}");
    static final Route LIST = new Route("GET", "/v1/locks");
    static final Route AUDIT = new Route("GET", "/v1/audit");
    static final Route OPENAPI = new Route("GET", "/v1/openapi.json");
    static final Route LIVE = new Route("GET", "/health/live");
    static final Route READY = new Route("GET", "/health/ready");
    static final Route METRICS = new Route("GET", "/metrics");
    static final List<Route> ROUTES =
            List.of(ACQUIRE, RENEW, RELEASE, FORCE_RELEASE, STATUS, LIST, AUDIT, OPENAPI, LIVE, READY, METRICS);
    /** The routes that call ZooKeeper: without a connection they run on a virtual thread. */
    private static final Set<Route> ZOOKEEPER_ROUTES =
            Set.of(ACQUIRE, RENEW, RELEASE, FORCE_RELEASE, STATUS, LIST, AUDIT);

    private static final Logger log = LoggerFactory.getLogger(LockHttpServer.class);

    private final LeaseService service;
    private final ServerSettings settings;
    private final BooleanSupplier zooKeeperConnected;
    private final byte[] openApi;
    private final Javalin app;
    private final AtomicInteger acquiresInFlight = new AtomicInteger();
    private final CallThreads threads;
    private final ReadRoutes reads;
    /** When each lease granted here was answered, for the hold-time meter, while it lasts. */
    private final HoldTimes holds = new HoldTimes();
    /** The longest a warm-up may delay readiness. */
    static final Duration WARM_UP_BUDGET = Duration.ofSeconds(30);

    /** False until the warm-up has run (true at once without one): readiness waits for it. */
    private volatile boolean warmedUp;
    /** The API key the warm-up sends (only while it runs, only for its own namespace), or null. */
    private volatile String warmUpKey;

    LockHttpServer(LeaseService service, ServerSettings settings, BooleanSupplier zooKeeperConnected) {
        this.service = service;
        this.settings = settings;
        this.zooKeeperConnected = zooKeeperConnected;
        this.threads = new CallThreads(zooKeeperConnected);
        this.reads = new ReadRoutes(service, this::caller);
        this.openApi = openApiDocument();
        this.warmedUp = settings.warmUpCycles() == 0;
        Map<Route, Handler> handlers = handlers();
        if (!handlers.keySet().equals(Set.copyOf(ROUTES))) {
            throw new IllegalStateException(
                    "every route needs one handler: routes " + ROUTES + ", handlers " + handlers.keySet());
        }
        QueuedThreadPool jettyThreads = CallThreads.jettyPool();
        // jetty_threads_busy, _jobs (calls queued for a thread), _config_max ...: whether the pool suffices.
        new JettyServerThreadPoolMetrics(jettyThreads, List.of())
                .bindTo(service.metrics().registry());
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.threadPool = jettyThreads;
            config.http.maxRequestSize = JsonBody.MAX_BYTES;
            config.jetty.host = settings.bind();
            config.jetty.port = settings.port();
            config.jetty.modifyServer(server -> server.setErrorHandler(new ProblemErrorHandler()));
            if (settings.tls() != null) {
                // HTTPS only: this connector takes the configured port, so Javalin adds no plain one.
                config.jetty.addConnector((server, http) -> {
                    http.addCustomizer(new SecureRequestCustomizer());
                    ServerConnector https = new ServerConnector(
                            server,
                            new SslConnectionFactory(settings.tls().sslContextFactory(), "http/1.1"),
                            new HttpConnectionFactory(http));
                    https.setHost(settings.bind());
                    https.setPort(settings.port());
                    return https;
                });
            }
            for (Route r : ROUTES) {
                Handler h = handlers.get(r);
                config.routes.addHttpHandler(
                        r.method().equals("GET") ? HandlerType.GET : HandlerType.POST,
                        r.path(),
                        ZOOKEEPER_ROUTES.contains(r) ? threads.offJettyWhileDisconnected(h) : h);
            }
            // Named one by one: Javalin answers its own HttpResponseException in its own shape
            // unless a handler names that class.
            config.routes.exception(LockServiceException.class, (e, ctx) -> failed(ctx, e));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> failed(ctx, e));
            config.routes.exception(Exception.class, (e, ctx) -> failed(ctx, e));
            config.routes.error(404, "*", ctx -> {
                // A route's own 404 (NOT_LOCKED) is already a problem body; only a missing route gets this one.
                String type = ctx.res().getContentType();
                if (type == null || !type.startsWith(PROBLEM_JSON)) {
                    problem(
                            ctx,
                            new LockServiceException(
                                    ErrorCode.NOT_FOUND, "no route " + ctx.method() + " " + ctx.path()));
                }
            });
            config.routes.error(
                    405,
                    "*",
                    ctx -> problem(
                            ctx,
                            new LockServiceException(
                                    ErrorCode.METHOD_NOT_ALLOWED, ctx.method() + " is not allowed on " + ctx.path())));
        });
    }

    private Map<Route, Handler> handlers() {
        Map<Route, Handler> h = new LinkedHashMap<>();
        h.put(ACQUIRE, this::acquireCall);
        h.put(RENEW, ctx -> ok(ctx, renew(lockKey(ctx), ctx, System.nanoTime())));
        h.put(RELEASE, ctx -> ok(ctx, release(lockKey(ctx), ctx)));
        h.put(FORCE_RELEASE, ctx -> ok(ctx, forceRelease(ctx)));
        h.put(STATUS, ctx -> ok(ctx, reads.status(lockKey(ctx))));
        h.put(LIST, ctx -> ok(ctx, reads.list(ctx)));
        h.put(AUDIT, ctx -> ok(ctx, reads.audit(ctx)));
        h.put(OPENAPI, ctx -> ctx.contentType("application/json").result(openApi));
        h.put(LIVE, ctx -> ok(ctx, Map.of("status", "UP")));
        h.put(READY, this::ready);
        h.put(
                METRICS,
                ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                        .result(service.metrics().scrape()));
        return h;
    }

    void start() {
        app.start();
        // Idle connections close after the idle timeout; a waiting acquire keeps its own
        // connection open for its wait (ConnectionWatch.keepOpenFor), not every connection.
        for (Connector c : app.jettyServer().server().getConnectors()) {
            if (c instanceof ServerConnector sc) {
                sc.setIdleTimeout(settings.idleTimeoutMillis());
            }
        }
    }

    int port() {
        return app.port();
    }

    /**
     * Runs the warm-up ({@link WarmUp}: {@code warmUpCycles} acquire + release cycles through this
     * replica's own HTTP port); until it returns, {@code /health/ready} answers 503. Call after
     * {@link #start()}. A failed cycle ends it early; the replica is ready afterwards either way.
     *
     * @return the cycles run
     */
    int warmUp() {
        if (warmedUp) {
            return 0;
        }
        String host = settings.bind().equals("0.0.0.0")
                        || settings.bind().equals("::")
                        || settings.bind().isEmpty()
                ? "127.0.0.1"
                : settings.bind();
        if (settings.apiKeys().enabled()) {
            byte[] key = new byte[32];
            new SecureRandom().nextBytes(key);
            warmUpKey = HexFormat.of().formatHex(key);
        }
        try {
            return new WarmUp(
                            host,
                            port(),
                            settings.tls() == null ? null : settings.tls().selfTrusting(),
                            warmUpKey)
                    .run(settings.warmUpCycles(), WARM_UP_BUDGET);
        } catch (IOException | RuntimeException e) {
            log.warn("the warm-up stopped early, the replica is ready without it: {}", e.toString());
            return -1;
        } finally {
            warmUpKey = null;
            warmedUp = true;
        }
    }

    /**
     * Graceful stop: waiting acquires remove their queue entries and answer 503
     * {@code SHUTTING_DOWN} (up to 10 s for them to finish), then the HTTP server stops.
     */
    @Override
    public void close() {
        service.shutdown();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (acquiresInFlight.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
        app.stop();
        threads.close();
    }

    // ---- the calls ----

    /**
     * An acquire, counted while in flight so that {@link #close()} stops the server only after
     * each one has answered. It runs here until it is answered or has to wait; a wait goes on on
     * a virtual thread.
     */
    private void acquireCall(Context ctx) throws IOException {
        long arrived = System.nanoTime();
        acquiresInFlight.incrementAndGet();
        boolean handedOn = false;
        try {
            Acquirer.Request request = acquireRequest(lockKey(ctx), ctx);
            // Only now, with the body read to its end, may the connection be read for a disconnect:
            // watched through a wait, looked at once otherwise.
            ConnectionWatch caller =
                    request.waiting() ? ConnectionWatch.start(ctx.req()) : ConnectionWatch.probe(ctx.req());
            if (request.waiting()) {
                caller.keepOpenFor(request.waitMillis() + settings.idleTimeoutMillis());
            }
            Acquirer acquirer = service.acquirer();
            AcquireCall call;
            LeaseGrant now;
            try {
                call = acquirer.begin(request, caller);
                now = acquirer.proceed(call, CallThreads.mayWaitHere());
            } catch (RuntimeException e) {
                answerAcquire(ctx, request, caller, arrived, () -> {
                    throw e;
                });
                return;
            }
            if (now != null) {
                answerAcquire(ctx, request, caller, arrived, () -> now);
                return;
            }
            handedOn = true;
            threads.onVirtualThread(ctx, () -> {
                try {
                    answerAcquire(ctx, request, caller, arrived, () -> acquirer.proceed(call, true));
                } finally {
                    acquiresInFlight.decrementAndGet();
                }
            });
        } finally {
            if (!handedOn) {
                acquiresInFlight.decrementAndGet();
            }
        }
    }

    /**
     * Answers an acquire with what {@code grant} gives. The answer of a replica shutting down is
     * written and flushed here, not after the handler, so that it is out before {@link #close()}
     * stops the server.
     */
    private void answerAcquire(
            Context ctx, Acquirer.Request request, ConnectionWatch caller, long arrived, Supplier<LeaseGrant> grant)
            throws IOException {
        try {
            ok(ctx, granted(request, ctx, caller, arrived, grant));
        } catch (LockServiceException e) {
            if (e.code() != ErrorCode.SHUTTING_DOWN) {
                throw e;
            }
            byte[] body = bytes(e.body());
            ctx.res().setStatus(e.status());
            ctx.res().setContentType(PROBLEM_JSON);
            ctx.res().setHeader("Retry-After", "1");
            ctx.res().setContentLength(body.length);
            ctx.res().getOutputStream().write(body);
            ctx.res().flushBuffer();
        }
    }

    private LockKey lockKey(Context ctx) {
        LockKey key = LockKey.parse(ctx.pathParam("lockKey"));
        ApiKeys.requireNamespace(caller(ctx), key.namespace());
        return key;
    }

    private ApiKeys.Caller caller(Context ctx) {
        String warmUp = warmUpKey;
        String authorization = ctx.header("Authorization");
        if (warmUp != null
                && authorization != null
                && MessageDigest.isEqual(
                        authorization.getBytes(StandardCharsets.UTF_8),
                        ("Bearer " + warmUp).getBytes(StandardCharsets.UTF_8))) {
            return WARM_UP_CALLER;
        }
        return settings.apiKeys().authenticate(authorization);
    }

    private static final ApiKeys.Caller WARM_UP_CALLER = new ApiKeys.Caller("warm-up", Set.of(WarmUp.NAMESPACE), false);

    /** The replica's own warm-up calls are left out of its metrics. */
    private static boolean counted(LockKey key) {
        return !key.namespace().equals(WarmUp.NAMESPACE);
    }

    private Acquirer.Request acquireRequest(LockKey key, Context ctx) {
        JsonBody body = JsonBody.parse(ctx.bodyAsBytes(), "ownerId", "ttlMillis", "wait", "waitMillis", "requestId");
        String ownerId = body.text("ownerId", true);
        long ttl = body.number("ttlMillis", 1, settings.maxTtlMillis());
        boolean wait = body.has("wait") && body.bool("wait");
        if (body.has("waitMillis") && !wait) {
            throw LockServiceException.badRequest("waitMillis is set but wait is not true");
        }
        if (wait && !body.has("waitMillis")) {
            throw LockServiceException.badRequest("wait is true: waitMillis (the bound on the wait) is required");
        }
        long waitMillis = wait ? body.number("waitMillis", 0, settings.maxWaitMillis()) : 0;
        return new Acquirer.Request(key, ownerId, ttl, wait, waitMillis, body.text("requestId", false));
    }

    private Map<String, Object> granted(
            Acquirer.Request request, Context ctx, ConnectionWatch caller, long arrived, Supplier<LeaseGrant> grant) {
        LockKey key = request.key();
        LeaseGrant g;
        try {
            g = grant.get();
        } catch (LockServiceException e) {
            if (counted(key)) {
                service.metrics()
                        .acquired(
                                Duration.ofNanos(System.nanoTime() - arrived),
                                switch (e.code()) {
                                    case LOCK_ALREADY_HELD -> "conflict";
                                    case CALLER_GONE -> "abandoned";
                                    default -> "refused";
                                });
            }
            throw e;
        } finally {
            caller.close();
            if (caller.pipelined()) {
                // The watch read (and dropped) a request sent behind this one: closing the
                // connection after this answer tells the client to send it again.
                ctx.header("Connection", "close");
            }
        }
        if (counted(key)) {
            service.metrics().acquired(Duration.ofNanos(System.nanoTime() - arrived), "granted");
        }
        if (counted(key)) {
            holds.granted(g.lockToken(), System.nanoTime(), g.expiresAt(), System.currentTimeMillis());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", g.lockKey());
        out.put("lockToken", g.lockToken());
        out.put("fencingToken", g.fencingToken());
        out.put("ownerId", g.ownerId());
        out.put("expiresAt", g.expiresAt());
        out.put("validForMillis", validFor(g.expiresAt(), arrived));
        return out;
    }

    /** {@link LeaseGrant#validForMillis} now, for a request that arrived at {@code arrivedNanos}. */
    private static long validFor(long expiresAt, long arrivedNanos) {
        return LeaseGrant.validForMillis(
                expiresAt, System.currentTimeMillis(), (System.nanoTime() - arrivedNanos) / 1_000_000);
    }

    private Map<String, Object> renew(LockKey key, Context ctx, long arrived) {
        JsonBody body = JsonBody.parse(ctx.bodyAsBytes(), "lockToken", "ownerId", "ttlMillis");
        String lockToken = body.text("lockToken", true);
        String ownerId = body.text("ownerId", true);
        long ttl = body.number("ttlMillis", 1, settings.maxTtlMillis());
        long expiresAt;
        try {
            expiresAt = service.ops().renew(key, lockToken, ownerId, ttl);
            holds.renewed(lockToken, expiresAt);
        } catch (LockServiceException e) {
            if (counted(key)) {
                service.metrics().renewFailed(e.code().name());
            }
            throw e;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", key.key());
        out.put("expiresAt", expiresAt);
        out.put("validForMillis", validFor(expiresAt, arrived));
        return out;
    }

    private Map<String, Object> release(LockKey key, Context ctx) {
        JsonBody body = JsonBody.parse(ctx.bodyAsBytes(), "lockToken", "ownerId");
        String lockToken = body.text("lockToken", true);
        boolean removed = service.ops().release(key, lockToken, body.text("ownerId", true));
        long heldNanos = holds.released(lockToken, System.nanoTime(), System.currentTimeMillis());
        if (removed && heldNanos >= 0) {
            service.metrics().held(Duration.ofNanos(heldNanos));
        }
        return Map.of("lockKey", key.key(), "status", "RELEASED", "wasHeld", removed);
    }

    private Map<String, Object> forceRelease(Context ctx) {
        ApiKeys.Caller caller = caller(ctx);
        ApiKeys.requireAdmin(caller, "force-release");
        LockKey key = LockKey.parse(ctx.pathParam("lockKey"));
        JsonBody body = JsonBody.parse(ctx.bodyAsBytes(), "reason", "fencingToken");
        String reason = body.text("reason", true);
        Long expected = body.has("fencingToken") ? body.number("fencingToken", 1, Long.MAX_VALUE) : null;
        ForcedRelease r = service.ops().forceRelease(key, reason, caller.name(), expected);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put(
                "status",
                switch (r.outcome()) {
                    case RELEASED -> "FORCE_RELEASED";
                    case NOT_HELD -> "NOT_HELD";
                    case HOLDER_CHANGED -> "HOLDER_CHANGED";
                });
        out.put("audit", AuditTrail.toJson(r));
        return out;
    }

    private void ready(Context ctx) {
        boolean connected = zooKeeperConnected.getAsBoolean();
        boolean up = connected && warmedUp;
        ok(
                ctx,
                Map.of(
                        "status",
                        up ? "UP" : "DOWN",
                        "zookeeper",
                        connected ? "connected" : "not connected",
                        "warmUp",
                        warmedUp ? "done" : "running"),
                up ? 200 : 503);
    }

    private static byte[] openApiDocument() {
        try (InputStream in = LockHttpServer.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the server's resources");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading openapi.json", e);
        }
    }
}
