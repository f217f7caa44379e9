package io.zkfence.server;

import io.javalin.http.Context;
import io.zkfence.lock.ForcedRelease;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** The largest body of a batch renewal: room for {@link BatchRenewal#MAX_LEASES} leases of usual sizes. */
    static final int BATCH_MAX_BYTES = 1024 * 1024;

    /**
     * {@code POST /v1/leases/renew}: many leases renewed in one call, each as {@link #renew} would
     * ({@link BatchRenewal}); each lease's outcome in the request's order, a refusal of one lease its
     * result. Every lease's key is checked against the caller's namespaces before anything is read
     * or written: one it may not use is a 403 for the call.
     */
    Map<String, Object> renewBatch(Context ctx) {
        ApiKeys.Caller caller = authentication.caller(ctx);
        long arrived = System.nanoTime();
        JsonBody body = JsonBody.parse(batchBody(ctx), BATCH_MAX_BYTES, "leases");
        List<JsonBody> items =
                body.objects("leases", 1, BatchRenewal.MAX_LEASES, "lockKey", "lockToken", "ownerId", "ttlMillis");
        List<BatchRenewal.Lease> leases = new ArrayList<>(items.size());
        Map<String, Integer> tokens = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            JsonBody item = items.get(i);
            LockKey key;
            try {
                key = LockKey.parse(item.text("lockKey", true));
            } catch (LockServiceException e) {
                if (e.code() != ErrorCode.BAD_REQUEST) {
                    throw e;
                }
                throw LockServiceException.badRequest(item.name("lockKey") + ": " + e.getMessage());
            }
            String lockToken = item.text("lockToken", true);
            String ownerId = item.text("ownerId", true);
            long ttl = item.number("ttlMillis", 1, settings.maxTtlMillis());
            Integer first = tokens.putIfAbsent(lockToken, i);
            if (first != null) {
                // Never the token itself in a message: it is a bearer credential.
                throw LockServiceException.badRequest(
                        item.name("lockToken") + " is the same as leases[" + first + "].lockToken: each lease once");
            }
            leases.add(new BatchRenewal.Lease(key, lockToken, ownerId, ttl));
        }
        for (BatchRenewal.Lease l : leases) {
            ApiKeys.requireNamespace(caller, l.key().namespace());
        }
        List<BatchRenewal.Outcome> outcomes = service.batchRenewal().renew(leases);
        List<Map<String, Object>> results = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            BatchRenewal.Lease l = leases.get(i);
            BatchRenewal.Outcome o = outcomes.get(i);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("lockKey", l.key().key());
            if (o.renewed()) {
                holds.renewed(l.lockToken(), o.expiresAt());
                r.put("expiresAt", o.expiresAt());
                r.put("validForMillis", LeaseGrant.validForMillisNow(o.expiresAt(), arrived));
            } else {
                if (!WarmUp.isWarmUpLock(l.key())) {
                    service.metrics().renewFailed(o.refused().code().name());
                }
                Map<String, Object> error = new LinkedHashMap<>();
                error.put("code", o.refused().code().name());
                error.put("message", o.refused().getMessage());
                r.put("error", error);
            }
            results.add(r);
        }
        return Map.of("results", results);
    }

    /** The batch's body, read up to one byte past {@link #BATCH_MAX_BYTES} (more is refused whole). */
    private static byte[] batchBody(Context ctx) {
        try (InputStream in = ctx.req().getInputStream()) {
            return in.readNBytes(BATCH_MAX_BYTES + 1);
        } catch (IOException e) {
            throw LockServiceException.badRequest("request body cannot be read: " + e.getMessage());
        }
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
