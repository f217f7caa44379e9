package io.zkfence.campaigns.service;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.campaigns.ResourceTables;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Java worker process of the lock service's campaign. It reaches the service only over HTTP,
 * spreading its calls over the replicas as a load balancer would: each request's acquire goes to
 * one replica, its renewals to the next, its release to the one after. Under each lease it does
 * fenced read-modify-writes on PostgreSQL (fencing-jdbc's fence row, the lease's fencing token) and
 * logs every call, every request's end, every lease it believed it held and every write
 * ({@link ServiceLog}). Its behaviour is a client's, drawn from a seeded {@link Random} per thread:
 *
 * <ul>
 * <li>an acquire that fails in transport, or answers 503, 429 or 499, is sent again with the same
 *     requestId and owner, to the next replica, until it gets a final answer (a grant, 409, another
 *     4xx) or its budget ({@code waitMillis} + 30 s) runs out: only then is it abandoned;
 * <li>one acquire in ten is hedged: sent to two replicas at once with one requestId, as a client
 *     racing two replicas or a load balancer retrying early would; the first final answer counts
 *     and the other copy is cancelled (its connection closed, as hedging clients do, so that its
 *     replica sees its caller go); the other's answer is logged if it came first, and a second,
 *     different grant is released at once;
 * <li>one lease in five uses a TTL of 2 s instead of 5 s; one acquire in four does not wait; one
 *     waiting acquire in ten waits up to 10-25 s;
 * <li>its local deadline is the send time of the last acquire or renew that succeeded plus
 *     {@code validForMillis} when the answer has it, else the TTL asked for; it writes only before
 *     it (checked right before each write) and renews when a third of the validity has passed;
 * <li>one lease in ten is held for 1.2-1.8 TTLs, through renewals.
 * </ul>
 *
 * <p>Arguments: {@code name replicaUrls(r0=url,...) jdbcUrl locks threads seed logFile}. SIGTERM
 * stops it gracefully: each thread releases what it holds, then a {@code bye} line is logged.
 */
public final class ServiceWorker {

    /** A lease's TTL, the short one asked for by one lease in five, and the long one by one in ten. */
    static final long TTL = 5_000;

    static final long SHORT_TTL = 2_000;

    /**
     * Longer than twice what a grant from the queue may be answered valid for without a write on
     * the replicas' 15 s sessions (20 s): such a grant is confirmed first, and a waiting acquire on
     * a lock its replica guesses free is queued as a lease.
     */
    static final long LONG_TTL = 21_000;

    /** The answer a call waits for before it counts as lost (plus the wait, for a waiting acquire). */
    static final Duration CALL_TIMEOUT = Duration.ofMillis(2_500);

    private final String name;
    private final String incarnation =
            ProcessHandle.current().pid() + "." + Long.toString(System.currentTimeMillis(), 36);
    private final List<String> replicaNames = new ArrayList<>();
    private final List<String> replicaUrls = new ArrayList<>();
    private final JdbcFence fence;
    private final int locks;
    private final PrintWriter log;
    private final ServiceCalls calls = new ServiceCalls();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong attempts = new AtomicLong();
    private volatile boolean stopping;

    private ServiceWorker(String name, String replicas, JdbcFence fence, int locks, PrintWriter log) {
        this.name = name;
        for (String r : replicas.split(",")) {
            String[] nameUrl = r.split("=", 2);
            replicaNames.add(nameUrl[0]);
            replicaUrls.add(nameUrl[1]);
        }
        this.fence = fence;
        this.locks = locks;
        this.log = log;
    }

    /** Runs a worker until it is killed or told to stop (SIGTERM). */
    public static void main(String[] args) throws IOException, InterruptedException {
        String name = args[0];
        int locks = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        long seed = Long.parseLong(args[5]);
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(args[2]);
        pool.setUsername("postgres");
        pool.setMaximumPoolSize(threads + 1);
        pool.setConnectionTimeout(30_000);
        PrintWriter log = new PrintWriter(
                Files.newBufferedWriter(
                        Path.of(args[6]), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                true);
        ServiceWorker worker = new ServiceWorker(
                name,
                args[1],
                JdbcFence.create(new HikariDataSource(pool), FenceConfig.defaults(FenceDialect.POSTGRES)),
                locks,
                log);
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Random random = new Random(seed * 31 + t + ProcessHandle.current().pid());
            String thread = "t" + t;
            running.add(Thread.ofPlatform().name(name + "-" + thread).start(() -> {
                try {
                    worker.loop(thread, random);
                } finally {
                    done.countDown();
                }
            }));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.stopping = true;
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            worker.record("bye", new Bye(name, worker.incarnation, System.currentTimeMillis()));
        }));
        for (Thread t : running) {
            t.join();
        }
    }

    /** The last line of a worker told to stop. */
    record Bye(String worker, String inc, long at) {}

    /** One request as the thread makes it: the same owner and requestId on every attempt. */
    private record Request(
            String thread,
            String owner,
            String id,
            String key,
            long ttl,
            boolean waiting,
            long waitMillis,
            long start) {}

    /** A grant as the thread holds it. */
    private record Granted(ServiceCalls.Answer answer, int replica, long sentNanos) {}

    private void loop(String thread, Random random) {
        while (!stopping) {
            int lock = random.nextInt(locks);
            boolean wait = random.nextInt(4) != 0;
            long waitMillis = !wait
                    ? 0
                    : random.nextInt(10) == 0 ? 10_000 + random.nextInt(15_000) : 1_000 + random.nextInt(5_000);
            Request r = new Request(
                    thread,
                    name + "." + incarnation + "." + requests.incrementAndGet(),
                    UUID.randomUUID().toString(),
                    ServiceCampaign.KEY_PREFIX + lock,
                    ttl(random.nextInt(10)),
                    wait,
                    waitMillis,
                    System.currentTimeMillis());
            Granted g = acquire(r, random);
            if (g != null) {
                hold(r, g, "res-" + lock, random);
            }
            ServiceCampaign.sleep(Duration.ofMillis(10 + random.nextInt(100)));
        }
    }

    /** Sends the acquire until a final answer or the budget's end; logs the request's end. */
    private Granted acquire(Request r, Random random) {
        long budgetEnd =
                System.nanoTime() + Duration.ofMillis(r.waitMillis() + 30_000).toNanos();
        int replica = random.nextInt(replicaUrls.size());
        boolean hedge = random.nextInt(10) == 0;
        long backoff = 100;
        while (true) {
            long sent = System.nanoTime();
            ServiceCalls.Answer a = hedge ? hedged(r, replica) : await(send(r, replica, false));
            hedge = false;
            if (a.status() == 200) {
                end(r, "granted", a.fencingToken());
                return new Granted(a, replica, sent);
            }
            boolean retry = a.status() == 0 || a.status() == 503 || a.status() == 429 || a.status() == 499;
            if (!retry) {
                end(
                        r,
                        switch (a.code()) {
                            case "LOCK_ALREADY_HELD" -> "held";
                            case "REQUEST_FINISHED" -> "finished";
                            default -> "error";
                        },
                        0);
                return null;
            }
            if (stopping || System.nanoTime() > budgetEnd) {
                end(r, stopping ? "stopped" : "abandoned", 0);
                return null;
            }
            long pause = a.status() == 429 ? Math.min(2_000, Math.max(100, a.retryAfterMillis())) : backoff;
            ServiceCampaign.sleep(Duration.ofMillis(pause + random.nextInt(100)));
            backoff = Math.min(1_000, backoff * 2);
            replica = (replica + 1) % replicaUrls.size();
        }
    }

    /**
     * The same acquire to two replicas at once. The first final answer is this attempt's answer (a
     * transport failure or a 503 counts only if both are), and the other copy, if it is still out, is
     * cancelled: its connection closed, as a hedging client closes the copy it no longer needs
     * (gRPC's hedging, Go's context), so that its replica runs its caller-gone path (logged as a
     * transport failure, {@value ServiceCalls#CANCELLED}). An answer of the other copy that came
     * anyway, if it is a grant other than the answer taken, is released at once.
     */
    private ServiceCalls.Answer hedged(Request r, int replica) {
        int second = (replica + 1) % replicaUrls.size();
        ServiceCalls.Pending one = sendPending(r, replica, true);
        ServiceCalls.Pending two = sendPending(r, second, true);
        ServiceCalls.Answer first = (ServiceCalls.Answer)
                CompletableFuture.anyOf(one.answer(), two.answer()).join();
        ServiceCalls.Pending other = one.answer().isDone() && one.answer().join() == first ? two : one;
        ServiceCalls.Answer answer = first;
        if (isFinal(first)) {
            other.cancel(); // no-op if its answer is in already
        } else {
            answer = await(other.answer());
            if (!isFinal(answer)) {
                answer = first; // neither is final: the attempt failed, the caller tries again
            }
        }
        ServiceCalls.Answer taken = answer;
        one.answer().thenAcceptAsync(a -> releaseIfSecondLease(r, taken, a, replica), RELEASER);
        two.answer().thenAcceptAsync(a -> releaseIfSecondLease(r, taken, a, second), RELEASER);
        return taken;
    }

    /** Runs the releases of second leases, off the HTTP client's own threads. */
    private static final Executor RELEASER = Executors.newVirtualThreadPerTaskExecutor();

    /** A second lease for one request: nobody will use it, so it is given back at once. */
    private void releaseIfSecondLease(Request r, ServiceCalls.Answer taken, ServiceCalls.Answer a, int replica) {
        if (a != taken && a.status() == 200 && (taken.status() != 200 || a.fencingToken() != taken.fencingToken())) {
            sendRelease(r, a, replica);
        }
    }

    private static boolean isFinal(ServiceCalls.Answer a) {
        return a.status() != 0 && a.status() != 503 && a.status() != 429 && a.status() != 499;
    }

    private CompletableFuture<ServiceCalls.Answer> send(Request r, int replica, boolean hedge) {
        return sendPending(r, replica, hedge).answer();
    }

    /** Sends the acquire; its answer (or transport failure, or cancellation) is logged when it comes. */
    private ServiceCalls.Pending sendPending(Request r, int replica, boolean hedge) {
        long sentAt = System.currentTimeMillis();
        Duration timeout = CALL_TIMEOUT.plusMillis(r.waitMillis());
        ServiceCalls.Pending p = calls.acquire(
                replicaUrls.get(replica), r.key(), r.owner(), r.id(), r.ttl(), r.waiting(), r.waitMillis(), timeout);
        return new ServiceCalls.Pending(
                p.answer().thenApply(a -> {
                    logCall(r, "acquire", replica, hedge, sentAt, a, 0);
                    return a;
                }),
                p.exchange());
    }

    /** Writes under the lease, renews it as needed, releases it; logs the belief's interval. */
    private static long ttl(int oneInTen) {
        return oneInTen < 2 ? SHORT_TTL : oneInTen == 2 ? LONG_TTL : TTL;
    }

    private void hold(Request r, Granted g, String resource, Random random) {
        long from = System.currentTimeMillis();
        String lockToken = g.answer().lockToken();
        long token = g.answer().fencingToken();
        long deadline = g.sentNanos() + validity(g.answer(), r.ttl());
        long renewAt = g.sentNanos() + validity(g.answer(), r.ttl()) / 3;
        long holdUntil = System.nanoTime()
                + (random.nextInt(10) == 0
                        ? Duration.ofMillis(r.ttl() * 6 / 5 + random.nextInt((int) (r.ttl() * 3 / 5)))
                                .toNanos()
                        : Duration.ofMillis(random.nextInt(300)).toNanos());
        int writes = 1 + random.nextInt(3);
        int renewReplica = (g.replica() + 1) % replicaUrls.size();
        String end = "released";
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) {
                end = "deadline";
                break;
            }
            if (stopping && writes == 0) {
                break;
            }
            if (now >= renewAt && (writes > 0 || now < holdUntil)) {
                long sent = System.nanoTime();
                ServiceCalls.Answer a = renew(r, lockToken, token, renewReplica, deadline);
                if (a.status() == 200) {
                    deadline = sent + validity(a, r.ttl());
                    renewAt = sent + validity(a, r.ttl()) / 3;
                    continue;
                }
                end = a.status() == 0 ? "deadline" : "lost"; // no answer before the deadline, or refused
                break;
            }
            if (writes > 0) {
                write(r, resource, token, System.nanoTime() < deadline);
                writes--;
                ServiceCampaign.sleep(Duration.ofMillis(20 + random.nextInt(80)));
            } else if (now >= holdUntil) {
                break;
            } else {
                long next = Math.min(Math.min(renewAt, holdUntil), deadline);
                ServiceCampaign.sleep(Duration.ofNanos(Math.max(1_000_000, Math.min(next - now, 200_000_000))));
            }
        }
        long to = end.equals("deadline")
                ? System.currentTimeMillis()
                        - Duration.ofNanos(System.nanoTime() - deadline).toMillis()
                : System.currentTimeMillis();
        if (stopping && end.equals("released")) {
            end = "stopped";
        }
        record("hold", new ServiceLog.Hold(name, incarnation, r.owner(), r.id(), r.key(), token, from, to, end));
        // Released whatever happened: a lease that ended already is released as a no-op (200, wasHeld false).
        int releaseReplica = (g.replica() + 2) % replicaUrls.size();
        sendRelease(r, g.answer(), releaseReplica);
    }

    private static long validity(ServiceCalls.Answer a, long ttl) {
        return Duration.ofMillis(a.validForMillis() >= 0 ? a.validForMillis() : ttl)
                .toNanos();
    }

    /** Renews on the given replica, then the others in turn, until an answer or the local deadline. */
    private ServiceCalls.Answer renew(Request r, String lockToken, long token, int replica, long deadline) {
        int rep = replica;
        while (true) {
            long sentAt = System.currentTimeMillis();
            long left = Duration.ofNanos(deadline - System.nanoTime()).toMillis();
            ServiceCalls.Answer a = await(calls.renew(
                    replicaUrls.get(rep),
                    r.key(),
                    r.owner(),
                    lockToken,
                    r.ttl(),
                    Duration.ofMillis(Math.max(1, Math.min(CALL_TIMEOUT.toMillis(), left)))));
            logCall(r, "renew", rep, false, sentAt, a, token);
            if (isFinal(a) || System.nanoTime() >= deadline) {
                return a;
            }
            rep = (rep + 1) % replicaUrls.size();
        }
    }

    private void sendRelease(Request r, ServiceCalls.Answer grant, int replica) {
        int rep = replica;
        for (int tries = 0; tries < replicaUrls.size(); tries++) {
            long sentAt = System.currentTimeMillis();
            ServiceCalls.Answer a =
                    await(calls.release(replicaUrls.get(rep), r.key(), r.owner(), grant.lockToken(), CALL_TIMEOUT));
            logCall(r, "release", rep, false, sentAt, a, grant.fencingToken());
            if (isFinal(a)) {
                return;
            }
            rep = (rep + 1) % replicaUrls.size();
        }
    }

    /** A counter and a history row in one fenced unit of work, as the library's campaign writes them. */
    private void write(Request r, String resource, long token, boolean inDeadline) {
        String attempt = name + "-" + incarnation + "-" + attempts.incrementAndGet();
        long start = System.currentTimeMillis();
        String outcome = ResourceTables.write(fence, resource, token, attempt);
        record(
                "write",
                new ServiceLog.Write(
                        attempt,
                        name,
                        incarnation,
                        r.thread(),
                        r.owner(),
                        r.key(),
                        resource,
                        token,
                        start,
                        System.currentTimeMillis(),
                        outcome,
                        inDeadline));
    }

    private void end(Request r, String result, long token) {
        record(
                "req",
                new ServiceLog.RequestEnd(
                        name,
                        incarnation,
                        r.owner(),
                        r.id(),
                        r.key(),
                        r.ttl(),
                        r.waiting(),
                        r.waitMillis(),
                        r.start(),
                        System.currentTimeMillis(),
                        result,
                        token));
    }

    private void logCall(
            Request r, String op, int replica, boolean hedge, long sentAt, ServiceCalls.Answer a, long lease) {
        record(
                "call",
                ServiceLog.Call.answered(
                        name,
                        incarnation,
                        r.thread(),
                        r.owner(),
                        r.id(),
                        r.key(),
                        op,
                        replicaNames.get(replica),
                        hedge,
                        sentAt,
                        a,
                        lease));
    }

    private static ServiceCalls.Answer await(CompletableFuture<ServiceCalls.Answer> f) {
        return f.join(); // never fails: a transport failure is an answer with status 0
    }

    private synchronized void record(String kind, Record r) {
        log.println(ServiceLog.line(kind, r));
    }
}
