package io.zkfence.campaigns.service;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The campaign's own clients, for two faults that a client's behaviour makes: a caller that waits
 * on a replica and never comes back when that replica dies ({@code doomed-N}), and a client whose
 * answer was lost and that retries ({@code probe-N}). Their calls and their requests' ends go to the
 * campaign's log, in the workers' format, so that the checks judge them like the workers'.
 */
final class Probes {

    /** How long a planted caller asks to wait: well past the dead-waiter limit. */
    static final Duration DOOMED_WAIT = Duration.ofSeconds(60);

    /** The lease a client whose answer was lost asks for, and how long after it sends the same request again. */
    static final long PROBE_TTL = 1_000;

    static final long PROBE_RETRY_AFTER = 1_600;

    private final List<Replica> replicas;
    private final int locks;
    private final QueueObserver observer;
    private final PrintWriter log;
    private final ServiceCalls calls = new ServiceCalls();
    private final AtomicInteger doomed = new AtomicInteger();
    private final AtomicInteger probes = new AtomicInteger();

    Probes(List<Replica> replicas, int locks, QueueObserver observer, PrintWriter log) {
        this.replicas = replicas;
        this.locks = locks;
        this.observer = observer;
        this.log = log;
    }

    /**
     * A caller waiting on {@code replica}, behind the holder of one of the workers' keys.
     *
     * @param queued whether its entry was seen in the queue (else its call is still out, unseen)
     */
    record Planted(
            Probes probes,
            Replica replica,
            String owner,
            String request,
            String key,
            long sentAt,
            CompletableFuture<ServiceCalls.Answer> call,
            boolean queued) {

        /** The caller gives up as its replica dies: its request ends now, before the kill. */
        void abandon() {
            probes.end(owner, request, key, ServiceWorker.TTL, true, DOOMED_WAIT.toMillis(), sentAt, "abandoned", 0);
        }

        /** Logs the call's answer once the replica is gone (a transport failure). */
        void finish() {
            probes.logCall(owner, request, key, replica, sentAt, call.join(), "acquire", 0);
        }
    }

    /**
     * Sends a waiting acquire ({@link #DOOMED_WAIT}) for a held key to {@code replica} and waits up
     * to 3 s for its entry to show in the queue. Null when the call was answered meanwhile (the key
     * was free, or refused): then it is logged, and a grant released.
     */
    Planted plantWaiter(Replica replica, long pick) {
        List<String> held = observer.heldKeys().stream()
                .filter(k -> k.startsWith(ServiceCampaign.KEY_PREFIX))
                .toList();
        String key =
                held.isEmpty() ? ServiceCampaign.KEY_PREFIX + (pick % locks) : held.get((int) (pick % held.size()));
        String owner = "doomed-" + doomed.incrementAndGet();
        String request = UUID.randomUUID().toString();
        long sentAt = System.currentTimeMillis();
        CompletableFuture<ServiceCalls.Answer> call = calls.acquire(
                        replica.directUrl(),
                        key,
                        owner,
                        request,
                        ServiceWorker.TTL,
                        true,
                        DOOMED_WAIT.toMillis(),
                        DOOMED_WAIT.plusSeconds(5))
                .answer();
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (!call.isDone() && !observer.queued(owner) && System.nanoTime() < until) {
            ServiceCampaign.sleep(Duration.ofMillis(100));
        }
        if (call.isDone()) {
            ServiceCalls.Answer a = call.join();
            logCall(owner, request, key, replica, sentAt, a, "acquire", 0);
            if (a.status() == 200) {
                release(owner, request, key, replica, a);
            }
            return null;
        }
        return new Planted(this, replica, owner, request, key, sentAt, call, observer.queued(owner));
    }

    /**
     * A client whose answer was lost: it sends an acquire ({@value #PROBE_TTL} ms lease, no wait) to
     * {@code first}, does not read the answer, and sends the same request to {@code second}
     * {@value #PROBE_RETRY_AFTER} ms later, as a client retrying on timeout does, then to the next
     * replicas until a final answer. Its own key, so that no waiter behind the lease removes it in
     * between. A 200 for the lease that ended meanwhile breaks promise 1; the redesigned service
     * answers 409 {@code REQUEST_FINISHED}. Every answer is logged; whatever it holds is released.
     *
     * @return one line for the fault's record
     */
    String retryAfterLostAnswer(Replica first, Replica second) {
        String owner = "probe-" + probes.incrementAndGet();
        String request = UUID.randomUUID().toString();
        String key = ServiceCampaign.NAMESPACE + ":" + owner;
        long start = System.currentTimeMillis();
        ServiceCalls.Answer lost = calls.acquire(
                        first.directUrl(), key, owner, request, PROBE_TTL, false, 0, Duration.ofSeconds(10))
                .answer()
                .join();
        logCall(owner, request, key, first, start, lost, "acquire", 0);
        ServiceCampaign.sleep(Duration.ofMillis(Math.max(0, start + PROBE_RETRY_AFTER - System.currentTimeMillis())));
        // The retry goes on, replica after replica, until a final answer: a client that gave up here
        // would leave whatever the service granted meanwhile to nobody.
        ServiceCalls.Answer retried = null;
        int at = replicas.indexOf(second);
        for (int tries = 0; tries < 2 * replicas.size() && (retried == null || !isFinal(retried)); tries++) {
            Replica r = replicas.get((at + tries) % replicas.size());
            if (tries > 0) {
                ServiceCampaign.sleep(Duration.ofMillis(300));
            }
            long sentAt = System.currentTimeMillis();
            retried = calls.acquire(r.directUrl(), key, owner, request, PROBE_TTL, false, 0, Duration.ofSeconds(10))
                    .answer()
                    .join();
            logCall(owner, request, key, r, sentAt, retried, "acquire", 0);
        }
        long token = 0;
        for (ServiceCalls.Answer a : List.of(lost, retried)) {
            if (a.status() == 200) {
                token = a.fencingToken();
                release(owner, request, key, second, a);
            }
        }
        // The request ends here: a grant of it seen later is one of a finished request. Recorded as a
        // worker records it: answered 409 REQUEST_FINISHED (the lease granted on the call whose
        // answer was lost ended before the retry), the request finished; it was not abandoned.
        String result = token > 0
                ? "granted"
                : retried != null && retried.status() == 409 && "REQUEST_FINISHED".equals(retried.code())
                        ? "finished"
                        : "abandoned";
        end(owner, request, key, PROBE_TTL, false, 0, start, result, token);
        return owner + "'s acquire on " + first.name + " (" + PROBE_TTL + " ms lease) answered " + describe(lost)
                + " unread; the same request on " + second.name + " " + PROBE_RETRY_AFTER + " ms later: "
                + describe(retried);
    }

    /** Releases as a client does: on each replica in turn until one answers (a disrupted one does not). */
    private void release(String owner, String request, String key, Replica from, ServiceCalls.Answer grant) {
        int i = replicas.indexOf(from);
        for (int tries = 0; tries < replicas.size() * 2; tries++) {
            Replica r = replicas.get((i + tries) % replicas.size());
            long sentAt = System.currentTimeMillis();
            ServiceCalls.Answer a = calls.release(r.directUrl(), key, owner, grant.lockToken(), Duration.ofSeconds(3))
                    .join();
            logCall(owner, request, key, r, sentAt, a, "release", grant.fencingToken());
            if (isFinal(a)) {
                return;
            }
        }
    }

    private static boolean isFinal(ServiceCalls.Answer a) {
        return a.status() != 0 && a.status() != 503 && a.status() != 429 && a.status() != 499;
    }

    private static String describe(ServiceCalls.Answer a) {
        return a.status() == 0
                ? a.code()
                : a.status()
                        + (a.code() == null ? "" : " " + a.code())
                        + (a.status() == 200 ? " (expiresAt " + a.expiresAt() + ")" : "");
    }

    private void logCall(
            String owner,
            String request,
            String key,
            Replica replica,
            long sentAt,
            ServiceCalls.Answer a,
            String op,
            long lease) {
        line(
                "call",
                ServiceLog.Call.answered(
                        "campaign", "0", "injector", owner, request, key, op, replica.name, false, sentAt, a, lease));
    }

    private void end(
            String owner,
            String request,
            String key,
            long ttl,
            boolean waiting,
            long waitMillis,
            long start,
            String result,
            long token) {
        line(
                "req",
                new ServiceLog.RequestEnd(
                        "campaign",
                        "0",
                        owner,
                        request,
                        key,
                        ttl,
                        waiting,
                        waitMillis,
                        start,
                        System.currentTimeMillis(),
                        result,
                        token));
    }

    private void line(String kind, Record r) {
        synchronized (log) {
            log.println(ServiceLog.line(kind, r));
        }
    }
}
