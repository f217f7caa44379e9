package io.zkfence.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.ZooKeeper;

/**
 * Workload 3's ring, for {@code ./bench} (this checkout's lock-core) and {@code ./bench-ab} (this
 * checkout's beside an earlier revision's): hand-off latency, from the holder calling release to
 * the next waiter's acquire returning, with N waiters queued behind the holder.
 *
 * <p>The N+1 participants form a ring: each, once granted, waits until the queue is full again
 * (N waiters behind it: the previous holder has re-queued at the tail), notes the time, releases,
 * and queues again once the next waiter has been granted. So every measured hand-off happens with
 * exactly N waiters, and nothing else of the workload is in flight while it is timed (a releaser
 * that queued again at once would read the whole queue, 1,001 names with 1,000 waiters, while the
 * hand-off it started is timed). Watch events, child-list reads and single-znode
 * reads are counted on the client side, summed over every client; requests on the server all
 * clients use, less the ring's own polling of the queue.
 */
final class HandoffRing {

    /** The lock-core build under test, as the ring drives it. */
    interface Build {
        /** A lock client on {@code session} (which the ring owns and closes). */
        Client client(CuratorFramework session, String root, String owner);
    }

    /** One lock client of the build. */
    interface Client extends AutoCloseable {
        Lock lock(String name);

        Counters counters();

        @Override
        void close();
    }

    /** One lock of a client. */
    interface Lock {
        Held acquire();

        /** The lock's znode. */
        String path();
    }

    /** A grant. */
    interface Held {
        String nodePath();

        void release();
    }

    /**
     * A client's counters: watch events delivered to its waiters, reads of a lock's child list, and
     * reads of a single znode a woken waiter sends instead (0 for a build that has no such count).
     */
    record Counters(long wakeUps, long childrenReads, long queueChecks) {
        Counters plus(Counters o) {
            return new Counters(wakeUps + o.wakeUps, childrenReads + o.childrenReads, queueChecks + o.queueChecks);
        }

        Counters minus(Counters o) {
            return new Counters(wakeUps - o.wakeUps, childrenReads - o.childrenReads, queueChecks - o.queueChecks);
        }
    }

    /**
     * One ring's figures: the timed hand-offs, and per hand-off the watch events, child-list reads,
     * single-znode reads (client counts) and requests (server count, sessions' pings included).
     */
    record Result(
            int waiters,
            int sessions,
            Histogram histogram,
            long samples,
            double wakeUps,
            double childrenReads,
            double queueChecks,
            double requests) {

        /** Two rings of the same shape as one: histograms added, per-hand-off figures weighted by samples. */
        Result plus(Result o) {
            Histogram h = histogram.copy();
            h.add(o.histogram);
            long n = samples + o.samples;
            return new Result(
                    waiters,
                    sessions,
                    h,
                    n,
                    (wakeUps * samples + o.wakeUps * o.samples) / n,
                    (childrenReads * samples + o.childrenReads * o.samples) / n,
                    (queueChecks * samples + o.queueChecks * o.samples) / n,
                    (requests * samples + o.requests * o.samples) / n);
        }
    }

    private final int waiters;
    private final long warmup;
    private final long samples;
    private final List<Client> clients;
    private final List<CuratorFramework> sessions;
    private final CuratorFramework monitor;
    private final LongSupplier serverRequests;
    /** The monitor's requests (the polling of the queue's length), taken off the server's count. */
    private final AtomicLong monitorRequests = new AtomicLong();

    /** Session of the member that released last (it is queueing again), or -1. */
    private volatile int lastReleaser = -1;
    /** Watched paths under the lock in that session just before it released. */
    private volatile long watchesAfterRequeue;

    private final Histogram histogram = Latency.newHistogram();
    private final AtomicLong grants = new AtomicLong();
    /** Notified on every grant: a member that released waits on it for the next one. */
    private final Object granted = new Object();

    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile long releaseStartedAt;
    private volatile boolean done;
    private volatile Counters atStart;
    private volatile Counters atEnd;
    private volatile long requestsAtStart;
    private volatile long requestsAtEnd;

    private HandoffRing(
            int waiters,
            long warmup,
            long samples,
            List<Client> clients,
            List<CuratorFramework> sessions,
            CuratorFramework monitor,
            LongSupplier serverRequests) {
        this.waiters = waiters;
        this.warmup = warmup;
        this.samples = samples;
        this.clients = clients;
        this.sessions = sessions;
        this.monitor = monitor;
        this.serverRequests = serverRequests;
    }

    /**
     * Runs one ring of {@code build} with {@code waiters} waiters on lock {@code name} under {@code
     * root}, spread over at most {@code maxSessions} sessions from {@code newSession}; {@code
     * warmup} hand-offs, then {@code samples} timed. {@code serverRequests} reads the requests
     * received so far by the server every session is on.
     */
    static Result run(
            Build build,
            Supplier<CuratorFramework> newSession,
            LongSupplier serverRequests,
            String root,
            String name,
            int waiters,
            int maxSessions,
            long warmup,
            long samples) {
        int sessionCount = Math.min(waiters + 1, maxSessions);
        try (Closer closer = new Closer()) {
            CuratorFramework monitor = closer.add(newSession.get());
            List<Client> clients = new ArrayList<>();
            List<CuratorFramework> sessions = new ArrayList<>();
            for (int i = 0; i < sessionCount; i++) {
                CuratorFramework session = closer.add(newSession.get());
                sessions.add(session);
                clients.add(closer.add(build.client(session, root, "bench-handoff-" + i)));
            }
            HandoffRing ring = new HandoffRing(waiters, warmup, samples, clients, sessions, monitor, serverRequests);
            String lockPath = clients.get(0).lock(name).path();
            List<Thread> members = new ArrayList<>();
            for (int i = 0; i <= waiters; i++) {
                int session = i % sessionCount;
                Lock lock = clients.get(session).lock(name);
                members.add(Thread.ofPlatform()
                        .name("handoff-" + i)
                        .daemon()
                        .unstarted(() -> ring.member(session, lock, lockPath)));
            }
            members.get(0).start();
            ring.awaitQueue(lockPath, 1); // the first holder is in; the others queue behind it
            for (int i = 1; i <= waiters; i++) {
                members.get(i).start();
            }
            for (Thread m : members) {
                m.join(TimeUnit.MINUTES.toMillis(10));
                if (m.isAlive()) {
                    throw new IllegalStateException(
                            "hand-off ring with " + waiters + " waiters did not finish in 10 min");
                }
            }
            if (ring.failure.get() != null) {
                throw new IllegalStateException(
                        "hand-off ring with " + waiters + " waiters failed", ring.failure.get());
            }
            Counters c = ring.atEnd.minus(ring.atStart);
            double n = samples;
            return new Result(
                    waiters,
                    sessionCount,
                    ring.histogram,
                    samples,
                    c.wakeUps() / n,
                    c.childrenReads() / n,
                    c.queueChecks() / n,
                    (ring.requestsAtEnd - ring.requestsAtStart) / n);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private Counters counters() {
        return clients.stream().map(Client::counters).reduce(new Counters(0, 0, 0), Counters::plus);
    }

    /** Server requests so far, less the monitor's own. */
    private long requests() {
        return serverRequests.getAsLong() - monitorRequests.get();
    }

    private void member(int session, Lock lock, String lockPath) {
        try {
            while (true) {
                Held lease = lock.acquire();
                long now = System.nanoTime();
                long started = releaseStartedAt;
                long k = grants.getAndIncrement(); // this grant's index; grants are one at a time
                synchronized (granted) {
                    granted.notifyAll();
                }
                if (k > warmup && k <= warmup + samples) {
                    Latency.record(histogram, now - started);
                }
                if (k == warmup) {
                    atStart = counters();
                    requestsAtStart = requests();
                } else if (k == warmup + samples) {
                    atEnd = counters();
                    requestsAtEnd = requests();
                    done = true;
                }
                boolean stop = done || failure.get() != null;
                if (!stop) {
                    awaitQueue(lockPath, waiters + 1);
                    awaitWatch(lockPath);
                    lastReleaser = session;
                    // After the release and the re-queue this session watches what it watches now,
                    // less the grant's own-node watch if it had one (lock-core arms it only for
                    // holds over half a second, or at once for a grant made without a read), plus
                    // the re-queued member's predecessor watch.
                    CuratorFramework releaser = sessions.get(session);
                    watchesAfterRequeue =
                            watches(releaser, lockPath) - (watchesPath(releaser, lease.nodePath()) ? 1 : 0) + 1;
                    releaseStartedAt = System.nanoTime();
                }
                lease.release();
                if (stop) {
                    return;
                }
                awaitNextGrant(k);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            done = true;
        }
    }

    /** Waits until the grant after grant {@code k} (the hand-off this member's release started) has been made. */
    private void awaitNextGrant(long k) throws InterruptedException {
        synchronized (granted) {
            while (grants.get() < k + 2 && !done && failure.get() == null) {
                granted.wait(1_000);
            }
        }
    }

    /**
     * Waits until the member that released last, now queued at the tail, has its watch set: its
     * session watches the paths under the lock it watched just before it released, less the
     * grant's own-node watch if there was one, plus the re-queue's predecessor watch. With one waiter
     * that member is the next to be granted, and releasing before its watch is set would time a
     * waiter that finds its predecessor already gone; with many, its enqueue (reading the whole
     * queue) would overlap the timed hand-off. Read from the client's own watch table
     * (curator-test's WatchersDebug).
     */
    private void awaitWatch(String lockPath) {
        int last = lastReleaser;
        if (last < 0) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        long expected = watchesAfterRequeue;
        while (watches(sessions.get(last), lockPath) < expected) {
            if (System.nanoTime() > deadline || failure.get() != null) {
                throw new IllegalStateException("the re-queued waiter of " + lockPath + " set no watch in 2 min");
            }
            Thread.onSpinWait();
        }
    }

    private static boolean watchesPath(CuratorFramework session, String path) {
        try {
            return WatchersDebug.getDataWatches(session.getZookeeperClient().getZooKeeper())
                    .contains(path);
        } catch (Exception e) {
            throw new IllegalStateException("reading the watches of a client on " + path, e);
        }
    }

    private static long watches(CuratorFramework session, String lockPath) {
        try {
            ZooKeeper zk = session.getZookeeperClient().getZooKeeper();
            return WatchersDebug.getDataWatches(zk).stream()
                    .filter(p -> p.startsWith(lockPath + "/"))
                    .count();
        } catch (Exception e) {
            throw new IllegalStateException("reading the watches of a client on " + lockPath, e);
        }
    }

    /** Polls the lock's children (from a session of its own) until {@code size} nodes are queued. */
    private void awaitQueue(String lockPath, int size) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try {
            while (true) {
                ZooKeeper zk = monitor.getZookeeperClient().getZooKeeper();
                boolean exists = zk.exists(lockPath, false) != null;
                int queued = exists ? zk.getChildren(lockPath, false).size() : 0;
                monitorRequests.addAndGet(exists ? 2 : 1);
                if (queued >= size) {
                    return;
                }
                if (System.nanoTime() > deadline || failure.get() != null) {
                    throw new IllegalStateException(
                            "queue of " + lockPath + " reached " + queued + " of " + size + " nodes in 2 min");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("reading the queue of " + lockPath, e);
        }
    }
}
