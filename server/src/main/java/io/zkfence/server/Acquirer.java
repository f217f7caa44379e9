package io.zkfence.server;

/**
 * The acquire call and its wait: queues the request's entry, waits in FIFO order, and answers a
 * grant, a refusal, or a 409 {@code REQUEST_FINISHED} for a request that already ended.
 *
 * <p>How each promise is kept (docs/server.md, "How it works", argues each at length):
 * <ul>
 *   <li><b>One entry per request.</b> The entry is created in one multi with the request's
 *       companion znode {@code r-<request>}: a second call of the same request, on any replica,
 *       however concurrent, is refused by ZooKeeper and joins the first call's entry instead.
 *       Both answer the same grant (same lockToken, same fencing token) or the same refusal.
 *   <li><b>A finished request never grants again.</b> The same multi fails if the request's
 *       finished record exists ({@link FinishedRequests}).
 *   <li><b>Grant at creation.</b> An entry that is first when created is granted with no other
 *       write; an acquire without a wait is a lease from the start, its expiry counted from a time
 *       taken before the create.
 *   <li><b>Hand-off without a write.</b> A waiting entry is tied to its replica's session
 *       ({@link ReplicaRegistry}); when it reaches the head it is answered at once, valid for at
 *       most {@link AcquireCall#unconfirmedValidity} from a read that proved the session alive: the session
 *       cannot expire, and no other replica can remove the entry, before that. The lease is then
 *       confirmed with a write off the hand-off's path ({@link LeaseConfirmer}).
 *   <li><b>Never a 200 for a dead lease.</b> The expiry answered is checked against this replica's
 *       clock last thing before the answer, and a decision older than {@link AcquireCall#STALE_DECISION}
 *       (a pause) is read again.
 *   <li><b>A dead waiter does not block the key.</b> A waiting entry dies with its replica's
 *       session; the waiter behind it wakes when the session's marker goes and removes it. Every
 *       error that ends a wait removes the call's entry.
 * </ul>
 */
final class Acquirer {

    /** What an acquire asks for. */
    record Request(LockKey key, String ownerId, long ttlMillis, boolean waiting, long waitMillis, String requestId) {}

    private final AcquireContext ctx;

    Acquirer(AcquireContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Acquires the lock: at once if free, else in FIFO order within the request's wait. Blocks
     * for the wait: {@link #begin} and {@link #proceed} split it for a thread that must not.
     *
     * @param caller whether the caller is still there: a wait whose caller left ends at once
     * @throws LockServiceException 409 {@code LOCK_ALREADY_HELD} if not granted in time, 409
     *     {@code REQUEST_FINISHED} for a request that ended before, 429 {@code TOO_MANY_WAITERS},
     *     499 {@code CALLER_GONE}, 503 {@code UNAVAILABLE} / {@code SHUTTING_DOWN}
     */
    LeaseGrant acquire(Request request, CallerPresence caller) {
        return proceed(begin(request, caller), true);
    }

    /**
     * An acquire, not started: nothing is sent before {@link #proceed}.
     *
     * @throws LockServiceException 503 {@code SHUTTING_DOWN}
     */
    AcquireCall begin(Request request, CallerPresence caller) {
        if (ctx.waits().stopping()) {
            throw AcquireRefusals.shuttingDown();
        }
        return new AcquireCall(ctx, request, caller);
    }

    /**
     * Runs {@code call} on until it is answered, or, unless {@code mayWait}, until it has to wait:
     * then null, with its entry queued and its watch set, to be proceeded with again on a thread
     * that may wait (for up to the request's {@code waitMillis}). An answer or an exception ends
     * the call; an error removes its entry.
     *
     * @throws LockServiceException as {@link #acquire}
     */
    LeaseGrant proceed(AcquireCall call, boolean mayWait) {
        boolean answered = true;
        try {
            LeaseGrant grant = call.run(mayWait);
            answered = grant != null;
            return grant;
        } catch (LockServiceException e) {
            call.abandonOn(e);
            throw e;
        } catch (RuntimeException bug) {
            call.abandonOn(new LockServiceException(ErrorCode.INTERNAL, bug.toString(), bug));
            throw bug;
        } finally {
            if (answered) {
                call.close();
            }
        }
    }

    /**
     * Stops waiting: every acquire waiting here removes its entry and answers 503
     * {@code SHUTTING_DOWN}; new acquires are refused the same way.
     */
    void shutdown() {
        ctx.waits().shutdown();
    }
}
