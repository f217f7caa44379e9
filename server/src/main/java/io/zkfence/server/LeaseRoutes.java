package io.zkfence.server;

import io.javalin.http.Context;
import io.zkfence.lock.ForcedRelease;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The calls on a lease once granted: renew and release by its holder (the lockToken), and an
 * admin's forced release. Each answers the JSON body {@link LockHttpServer} sends, and meters what
 * it did (the warm-up's calls left out).
 */
final class LeaseRoutes {

    private final LeaseService service;
    private final ServerSettings settings;
    private final Authentication authentication;
    private final HoldTimes holds;

    LeaseRoutes(LeaseService service, ServerSettings settings, Authentication authentication, HoldTimes holds) {
        this.service = service;
        this.settings = settings;
        this.authentication = authentication;
        this.holds = holds;
    }

    /** {@code POST /v1/locks/{lockKey}/renew}: the lease's new end, and how long it is valid from the request's arrival. */
    Map<String, Object> renew(Context ctx) {
        LockKey key = authentication.lockKey(ctx);
        long arrived = System.nanoTime();
        JsonBody body = JsonBody.parse(ctx.bodyAsBytes(), "lockToken", "ownerId", "ttlMillis");
        String lockToken = body.text("lockToken", true);
        String ownerId = body.text("ownerId", true);
        long ttl = body.number("ttlMillis", 1, settings.maxTtlMillis());
        long expiresAt;
        try {
            expiresAt = service.ops().renew(key, lockToken, ownerId, ttl);
            holds.renewed(lockToken, expiresAt);
        } catch (LockServiceException e) {
            if (!WarmUp.isWarmUpLock(key)) {
                service.metrics().renewFailed(e.code().name());
            }
            throw e;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", key.key());
        out.put("expiresAt", expiresAt);
        out.put("validForMillis", LeaseGrant.validForMillisNow(expiresAt, arrived));
        return out;
    }

    /** {@code POST /v1/locks/{lockKey}/release}: {@code wasHeld} says whether the lease was still there. */
    Map<String, Object> release(Context ctx) {
        LockKey key = authentication.lockKey(ctx);
        JsonBody body = JsonBody.parse(ctx.bodyAsBytes(), "lockToken", "ownerId");
        String lockToken = body.text("lockToken", true);
        boolean removed = service.ops().release(key, lockToken, body.text("ownerId", true));
        long heldNanos = holds.released(lockToken, System.nanoTime(), System.currentTimeMillis());
        if (removed && heldNanos >= 0) {
            service.metrics().held(Duration.ofNanos(heldNanos));
        }
        return Map.of("lockKey", key.key(), "status", "RELEASED", "wasHeld", removed);
    }

    /** {@code POST /v1/locks/{lockKey}/force-release}: admin keys only; what it did, and its audit entry. */
    Map<String, Object> forceRelease(Context ctx) {
        ApiKeys.Caller caller = authentication.caller(ctx);
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
}
