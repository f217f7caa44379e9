package io.zkfence.server;

import io.javalin.http.Context;
import io.zkfence.lock.ForcedRelease;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The calls that only read: a lock's status, the locks held in a namespace (a page at a time), and
 * the audit trail of forced releases. Each answers the JSON body {@link LockHttpServer} sends; a
 * lock that is not held is a 404 {@code NOT_LOCKED} problem that still lists its waiters.
 */
final class ReadRoutes {

    /** The most locks (or audit entries) one page may ask for. */
    static final int MAX_LIST_LIMIT = 1_000;

    private final LeaseService service;
    private final Function<Context, ApiKeys.Caller> callers;

    /** {@code callers} authenticates a call (its API key), for the namespace and admin checks. */
    ReadRoutes(LeaseService service, Function<Context, ApiKeys.Caller> callers) {
        this.service = service;
        this.callers = callers;
    }

    /** {@code GET /v1/locks/{lockKey}}: the holder and the waiters, or 404 {@code NOT_LOCKED} with the waiters. */
    Map<String, Object> status(LockKey key) {
        LockReads.Status queue = service.reads().status(key);
        if (queue.holder() == null) {
            throw new LockServiceException(
                    ErrorCode.NOT_LOCKED,
                    "lock '" + key.key() + "' is not held",
                    Map.of("locked", false, "waiters", waiters(queue.waiters())));
        }
        QueueEntry holder = queue.holder();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", key.key());
        out.put("locked", true);
        out.put("ownerId", holder.data().ownerId());
        out.put("fencingToken", holder.fencingToken());
        out.put("expiresAt", holder.endsAt());
        out.put("waiters", waiters(queue.waiters()));
        return out;
    }

    /** {@code GET /v1/locks?namespace=&limit=&after=}: one page of the namespace's held locks and the cursor to the next. */
    Map<String, Object> list(Context ctx) {
        String namespace = LockKey.checkNamespace(ctx.queryParam("namespace"), "query parameter namespace");
        ApiKeys.requireNamespace(callers.apply(ctx), namespace);
        int limit = limit(ctx, 100);
        String after = ctx.queryParam("after");
        LockReads.Page page = service.reads()
                .list(
                        namespace,
                        after == null
                                ? null
                                : LockKey.parse(namespace + ":" + after).znode(),
                        limit);
        List<Map<String, Object>> locks = new ArrayList<>();
        for (LockReads.Held h : page.locks()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lockKey", h.key().key());
            m.put("ownerId", h.holder().data().ownerId());
            m.put("fencingToken", h.holder().fencingToken());
            m.put("expiresAt", h.holder().endsAt());
            m.put("waiters", h.waiters());
            locks.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("namespace", namespace);
        out.put("locks", locks);
        // The cursor is the last lock examined, by its name in the namespace: pass it back as ?after=.
        out.put("next", page.next());
        return out;
    }

    /** {@code GET /v1/audit?limit=}: the latest forced releases; admin keys only. */
    Map<String, Object> audit(Context ctx) {
        ApiKeys.requireAdmin(callers.apply(ctx), "reading the audit trail");
        List<Object> entries = new ArrayList<>();
        for (ForcedRelease r : service.auditTrail(limit(ctx, 100))) {
            entries.add(AuditTrail.toJson(r));
        }
        return Map.of("entries", entries);
    }

    private static int limit(Context ctx, int byDefault) {
        String raw = ctx.queryParam("limit");
        if (raw == null) {
            return byDefault;
        }
        try {
            int n = Integer.parseInt(raw);
            if (n >= 1 && n <= MAX_LIST_LIMIT) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // answered below, with the rule
        }
        throw LockServiceException.badRequest(
                "query parameter limit must be a whole number from 1 to " + MAX_LIST_LIMIT + ", was '" + raw + "'");
    }

    private static List<Map<String, Object>> waiters(List<QueueEntry> waiters) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (QueueEntry e : waiters) {
            out.add(Map.of("ownerId", e.data().ownerId()));
        }
        return out;
    }
}
