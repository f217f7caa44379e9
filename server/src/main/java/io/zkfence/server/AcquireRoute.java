package io.zkfence.server;

import static io.zkfence.server.HttpAnswers.PROBLEM_JSON;
import static io.zkfence.server.HttpAnswers.bytes;
import static io.zkfence.server.HttpAnswers.ok;

import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * {@code POST /v1/locks/{lockKey}/acquire}: reads the request, runs it on the Jetty thread until it
 * is answered or has to wait, then on a virtual thread ({@link CallThreads}); answers the grant
 * with its {@code validForMillis} counted from the request's arrival, and meters each outcome.
 * Acquires are counted while in flight, so that a stopping replica answers each before its HTTP
 * server stops ({@link #awaitInFlight}).
 */
final class AcquireRoute {

    private final LeaseService service;
    private final ServerSettings settings;
    private final CallThreads threads;
    private final Authentication authentication;
    private final HoldTimes holds;
    private final AtomicInteger inFlight = new AtomicInteger();

    AcquireRoute(
            LeaseService service,
            ServerSettings settings,
            CallThreads threads,
            Authentication authentication,
            HoldTimes holds) {
        this.service = service;
        this.settings = settings;
        this.threads = threads;
        this.authentication = authentication;
        this.holds = holds;
    }

    /** The handler. */
    void acquire(Context ctx) throws IOException {
        long arrived = System.nanoTime();
        inFlight.incrementAndGet();
        boolean handedOn = false;
        try {
            Acquirer.Request request = request(authentication.lockKey(ctx), ctx);
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
                answer(ctx, request, caller, arrived, () -> {
                    throw e;
                });
                return;
            }
            if (now != null) {
                answer(ctx, request, caller, arrived, () -> now);
                return;
            }
            handedOn = true;
            threads.onVirtualThread(ctx, () -> {
                try {
                    answer(ctx, request, caller, arrived, () -> acquirer.proceed(call, true));
                } finally {
                    inFlight.decrementAndGet();
                }
            });
        } finally {
            if (!handedOn) {
                inFlight.decrementAndGet();
            }
        }
    }

    /** Waits until every acquire in flight has answered, or {@code atMost} has passed. */
    void awaitInFlight(Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
    }

    private Acquirer.Request request(LockKey key, Context ctx) {
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

    /**
     * Answers an acquire with what {@code grant} gives. The answer of a replica shutting down is
     * written and flushed here, not after the handler, so that it is out before the HTTP server
     * stops.
     */
    private void answer(
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

    private Map<String, Object> granted(
            Acquirer.Request request, Context ctx, ConnectionWatch caller, long arrived, Supplier<LeaseGrant> grant) {
        boolean counted = !WarmUp.isWarmUpLock(request.key());
        LeaseGrant g;
        try {
            g = grant.get();
        } catch (LockServiceException e) {
            if (counted) {
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
        if (counted) {
            service.metrics().acquired(Duration.ofNanos(System.nanoTime() - arrived), "granted");
            holds.granted(g.lockToken(), System.nanoTime(), g.expiresAt(), System.currentTimeMillis());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", g.lockKey());
        out.put("lockToken", g.lockToken());
        out.put("fencingToken", g.fencingToken());
        out.put("ownerId", g.ownerId());
        out.put("expiresAt", g.expiresAt());
        out.put("validForMillis", LeaseGrant.validForMillisNow(g.expiresAt(), arrived));
        return out;
    }
}
