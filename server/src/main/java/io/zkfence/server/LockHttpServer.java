package io.zkfence.server;

import static io.zkfence.server.HttpAnswers.PROBLEM_JSON;
import static io.zkfence.server.HttpAnswers.failed;
import static io.zkfence.server.HttpAnswers.ok;
import static io.zkfence.server.HttpAnswers.problem;

import io.javalin.Javalin;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP face of one replica, on Javalin (Jetty 12): JSON over HTTP/1.1 under {@code /v1}.
 * Stateless: everything it knows is in ZooKeeper ({@link LeaseService}), so a client may send each
 * call to any replica. Errors are RFC 9457 problem details with a stable {@code error} code
 * ({@link LockServiceException}).
 *
 * <p>This class routes: each route goes to the class that answers it ({@link AcquireRoute},
 * {@link LeaseRoutes}, {@link ReadRoutes}, {@link Readiness}, {@link OpenApiDocument}), who calls is
 * {@link Authentication}'s to say, and each call runs where {@link CallThreads} says: on the Jetty
 * thread that read it, or on a virtual thread when it may park for long.
 */
final class LockHttpServer implements AutoCloseable {

    /** One route: method and Javalin path. {@link #ROUTES} is what the OpenAPI document must list. */
    record Route(String method, String path) {}

    static final Route ACQUIRE = new Route("POST", "/v1/locks/{lockKey}/acquire");
    static final Route RENEW = new Route("POST", "/v1/locks/{lockKey}/renew");
    static final Route RENEW_BATCH = new Route("POST", "/v1/leases/renew");
    static final Route RELEASE = new Route("POST", "/v1/locks/{lockKey}/release");
    static final Route FORCE_RELEASE = new Route("POST", "/v1/locks/{lockKey}/force-release");
    static final Route STATUS = new Route("GET", "/v1/locks/{lockKey}");
    static final Route LIST = new Route("GET", "/v1/locks");
    static final Route AUDIT = new Route("GET", "/v1/audit");
    static final Route OPENAPI = new Route("GET", "/v1/openapi.json");
    static final Route LIVE = new Route("GET", "/health/live");
    static final Route READY = new Route("GET", "/health/ready");
    static final Route METRICS = new Route("GET", "/metrics");
    static final List<Route> ROUTES = List.of(
            ACQUIRE, RENEW, RENEW_BATCH, RELEASE, FORCE_RELEASE, STATUS, LIST, AUDIT, OPENAPI, LIVE, READY, METRICS);
    /** The routes that call ZooKeeper: without a connection they run on a virtual thread. */
    private static final Set<Route> ZOOKEEPER_ROUTES =
            Set.of(ACQUIRE, RENEW, RENEW_BATCH, RELEASE, FORCE_RELEASE, STATUS, LIST, AUDIT);

    private final LeaseService service;
    private final ServerSettings settings;
    private final Javalin app;
    private final CallThreads threads;
    private final Authentication authentication;
    private final Readiness readiness;
    private final OpenApiDocument openApi = OpenApiDocument.load();
    private final AcquireRoute acquires;
    private final LeaseRoutes leases;
    private final ReadRoutes reads;

    LockHttpServer(LeaseService service, ServerSettings settings, BooleanSupplier zooKeeperConnected) {
        this.service = service;
        this.settings = settings;
        this.threads = new CallThreads(zooKeeperConnected);
        this.authentication = new Authentication(settings.apiKeys());
        this.readiness = new Readiness(settings, zooKeeperConnected, authentication);
        // When each lease granted here was answered, for the hold-time meter, while it lasts.
        HoldTimes holds = new HoldTimes();
        this.acquires = new AcquireRoute(service, settings, threads, authentication, holds);
        this.leases = new LeaseRoutes(service, settings, authentication, holds);
        this.reads = new ReadRoutes(service, authentication::caller);
        Map<Route, Handler> handlers = handlers();
        if (!handlers.keySet().equals(Set.copyOf(ROUTES))) {
            throw new IllegalStateException(
                    "every route needs one handler: routes " + ROUTES + ", handlers " + handlers.keySet());
        }
        QueuedThreadPool jettyThreads = CallThreads.jettyPool(service.metrics().registry());
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
        h.put(ACQUIRE, acquires::acquire);
        h.put(RENEW, ctx -> ok(ctx, leases.renew(ctx)));
        h.put(RENEW_BATCH, ctx -> ok(ctx, leases.renewBatch(ctx)));
        h.put(RELEASE, ctx -> ok(ctx, leases.release(ctx)));
        h.put(FORCE_RELEASE, ctx -> ok(ctx, leases.forceRelease(ctx)));
        h.put(STATUS, ctx -> ok(ctx, reads.status(authentication.lockKey(ctx))));
        h.put(LIST, ctx -> ok(ctx, reads.list(ctx)));
        h.put(AUDIT, ctx -> ok(ctx, reads.audit(ctx)));
        h.put(OPENAPI, openApi::serve);
        h.put(LIVE, ctx -> ok(ctx, Map.of("status", "UP")));
        h.put(READY, readiness::answer);
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
     * Runs the warm-up ({@link Readiness#warmUp}: {@code warmUpCycles} acquire + release cycles
     * through this replica's own HTTP port); until it returns, {@code /health/ready} answers 503.
     * Call after {@link #start()}. A failed cycle ends it early; the replica is ready afterwards
     * either way.
     *
     * @return the cycles run
     */
    int warmUp() {
        return readiness.warmUp(port());
    }

    /**
     * Graceful stop: waiting acquires remove their queue entries and answer 503
     * {@code SHUTTING_DOWN} (up to 10 s for them to finish), then the HTTP server stops.
     */
    @Override
    public void close() {
        service.shutdown();
        acquires.awaitInFlight(Duration.ofSeconds(10));
        app.stop();
        threads.close();
    }
}
