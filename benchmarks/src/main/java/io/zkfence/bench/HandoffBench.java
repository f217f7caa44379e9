package io.zkfence.bench;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.ZooKeeper;

/**
 * Workload 3: hand-off latency, from the holder calling release to the next waiter's acquire
 * returning, with N waiters queued behind the holder.
 *
 * <p>The N+1 participants form a ring: each, once granted, waits until the queue is full again
 * (N waiters behind it: the previous holder has re-queued at the tail), notes the time, releases
 * and queues again. So every measured hand-off happens with exactly N waiters, and nothing else
 * of the workload is in flight while it is timed. Watch events are counted on the client side
 * ({@code LockClient.stats().wakeUps()}, summed over every client).
 */
final class HandoffBench implements Workload {

    private record Level(
            int waiters, int sessions, Latency latency, double watchEventsPerRelease, double childrenReadsPerHandoff) {}

    /** The state of one ring; only the current holder writes to it. */
    private static final class Ring {
        final int waiters;
        final long warmup;
        final long samples;
        final List<LockClient> clients;
        final List<CuratorFramework> sessions;
        /** Session of the member that released last (it is queueing again), or -1. */
        volatile int lastReleaser = -1;
        /** Watched paths under the lock in that session just before it released. */
        volatile long watchesAfterRequeue;

        final Histogram histogram = Latency.newHistogram();
        final AtomicLong grants = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile long releaseStartedAt;
        volatile boolean done;
        volatile long wakeUpsAtStart;
        volatile long wakeUpsAtEnd;
        volatile long readsAtStart;
        volatile long readsAtEnd;

        Ring(int waiters, long warmup, long samples, List<LockClient> clients, List<CuratorFramework> sessions) {
            this.sessions = sessions;
            this.waiters = waiters;
            this.warmup = warmup;
            this.samples = samples;
            this.clients = clients;
        }

        long wakeUps() {
            return clients.stream().mapToLong(c -> c.stats().wakeUps()).sum();
        }

        long childrenReads() {
            return clients.stream().mapToLong(c -> c.stats().childrenReads()).sum();
        }
    }

    @Override
    public String name() {
        return "handoff";
    }

    @Override
    public boolean needsZooKeeper() {
        return true;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        List<Level> levels = new ArrayList<>();
        for (int waiters : s.handoffWaiters()) {
            Level level = level(ctx, waiters);
            levels.add(level);
            String p = "handoff.waiters_" + waiters;
            r.latency(p, level.latency());
            r.figure(p + ".sessions", level.sessions());
            r.figure(p + ".watch_events_per_release", level.watchEventsPerRelease());
            r.figure(p + ".children_reads_per_handoff", level.childrenReadsPerHandoff());
        }
        Level first = levels.get(0);
        Level last = levels.get(levels.size() - 1);
        double ratio = last.latency().p50() / first.latency().p50();
        r.figure("handoff.ratio.p50_most_vs_fewest_waiters", ratio);
        StringBuilder perLevel = new StringBuilder();
        Level worst = first;
        for (Level l : levels) {
            perLevel.append(perLevel.isEmpty() ? "" : ", ")
                    .append(l.waiters())
                    .append(" waiters: ")
                    .append(Fmt.num(l.watchEventsPerRelease()));
            if (Math.abs(l.watchEventsPerRelease() - 1) > Math.abs(worst.watchEventsPerRelease() - 1)) {
                worst = l;
            }
        }
        r.target(Target.atMost(
                "handoff_p50_flat",
                name(),
                "hand-off p50 with " + last.waiters() + " waiters ≤ 1.2 × with " + first.waiters(),
                ratio,
                1.2,
                "p50 " + Fmt.us(last.latency().p50()) + " with " + last.waiters() + " waiters, "
                        + Fmt.us(first.latency().p50()) + " with " + first.waiters()));
        r.target(Target.exactly(
                "handoff_watch_events",
                name(),
                "watch events delivered per release = 1 (every waiter count)",
                worst.watchEventsPerRelease(),
                1.0,
                "client-side count per release: " + perLevel));

        List<String> categories =
                levels.stream().map(l -> l.waiters() + " waiters").toList();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("p50", levels.stream().map(l -> l.latency().p50()).toList());
        series.put("p99", levels.stream().map(l -> l.latency().p99()).toList());
        String plot = Plots.bars(
                ctx.out(),
                "handoff.png",
                "Hand-off: release by A → B holds",
                "queue",
                "latency (µs)",
                categories,
                series);
        StringBuilder md = new StringBuilder();
        md.append("The holder releases while N waiters are queued; timed from the holder calling `release()` to the "
                        + "next waiter's `acquire()` returning. The N+1 participants form a ring: once granted, each waits "
                        + "until the queue is full again, then releases and queues again at the tail, so every timed "
                        + "hand-off has exactly N waiters behind it and nothing else of the workload in flight. Waiters are "
                        + "spread over at most ")
                .append(s.handoffMaxSessions())
                .append(" sessions. ")
                .append(s.handoffWarmup())
                .append(" hand-offs of warm-up, then ")
                .append(s.handoffSamples())
                .append(
                        " timed, per queue length. Watch events and child-list reads are counted by the clients (`stats().wakeUps()`, `stats().childrenReads()`; "
                                + "the reads include the one pipelined with each re-queue).\n\n");
        md.append(
                "| waiters | sessions | samples | p50 | p99 | p99.9 | max | watch events per release | child-list reads per hand-off |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Level l : levels) {
            md.append(Fmt.row(
                    l.waiters(),
                    l.sessions(),
                    l.latency().count(),
                    Fmt.us(l.latency().p50()),
                    Fmt.us(l.latency().p99()),
                    Fmt.us(l.latency().p999()),
                    Fmt.us(l.latency().max()),
                    Fmt.num(l.watchEventsPerRelease()),
                    Fmt.num(l.childrenReadsPerHandoff())));
        }
        md.append("\np50 with ")
                .append(last.waiters())
                .append(" waiters ÷ p50 with ")
                .append(first.waiters())
                .append(": **")
                .append(Fmt.ratio(ratio))
                .append("**.\n\n![hand-off latency](")
                .append(plot)
                .append(")\n");
        return new Section("3. Hand-off latency", md.toString());
    }

    private Level level(BenchContext ctx, int waiters) {
        Settings s = ctx.settings();
        int sessions = Math.min(waiters + 1, s.handoffMaxSessions());
        ctx.log().say("hand-off: %d waiters on %d sessions", waiters, sessions);
        String name = "handoff-" + waiters;
        try (Closer closer = new Closer()) {
            CuratorFramework monitor = closer.add(ctx.zk().curator());
            List<LockClient> clients = new ArrayList<>();
            List<CuratorFramework> curators = new ArrayList<>();
            for (int i = 0; i < sessions; i++) {
                CuratorFramework session = closer.add(ctx.zk().curator());
                curators.add(session);
                clients.add(closer.add(LockClient.create(
                        session,
                        LockClientConfig.builder()
                                .rootPath("/bench/zkfence")
                                .ownerId("bench-handoff-" + i)
                                .build())));
            }
            Ring ring = new Ring(waiters, s.handoffWarmup(), s.handoffSamples(), clients, curators);
            String lockPath = clients.get(0).lock(name).path();
            List<Thread> members = new ArrayList<>();
            for (int i = 0; i <= waiters; i++) {
                int session = i % sessions;
                FencedLock lock = clients.get(session).lock(name);
                members.add(Thread.ofPlatform()
                        .name("handoff-" + i)
                        .daemon()
                        .unstarted(() -> member(ring, session, lock, monitor, lockPath)));
            }
            members.get(0).start();
            awaitQueue(monitor, lockPath, 1, ring); // the first holder is in; the others queue behind it
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
            double perRelease = (ring.wakeUpsAtEnd - ring.wakeUpsAtStart) / (double) ring.samples;
            double reads = (ring.readsAtEnd - ring.readsAtStart) / (double) ring.samples;
            return new Level(waiters, sessions, Latency.of(ring.histogram), perRelease, reads);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void member(Ring ring, int session, FencedLock lock, CuratorFramework monitor, String lockPath) {
        try {
            while (true) {
                Lease lease = lock.acquire();
                long now = System.nanoTime();
                long started = ring.releaseStartedAt;
                long k = ring.grants.getAndIncrement(); // this grant's index; grants are one at a time
                if (k > ring.warmup && k <= ring.warmup + ring.samples) {
                    Latency.record(ring.histogram, now - started);
                }
                if (k == ring.warmup) {
                    ring.wakeUpsAtStart = ring.wakeUps();
                    ring.readsAtStart = ring.childrenReads();
                } else if (k == ring.warmup + ring.samples) {
                    ring.wakeUpsAtEnd = ring.wakeUps();
                    ring.readsAtEnd = ring.childrenReads();
                    ring.done = true;
                }
                boolean stop = ring.done || ring.failure.get() != null;
                if (!stop) {
                    awaitQueue(monitor, lockPath, ring.waiters + 1, ring);
                    awaitWatch(ring, lockPath);
                    ring.lastReleaser = session;
                    // After the release and the re-queue this session watches what it watches now,
                    // less the grant's own-node watch if it had one (lock-core arms it only for
                    // holds over half a second), plus the re-queued member's predecessor watch.
                    CuratorFramework releaser = ring.sessions.get(session);
                    ring.watchesAfterRequeue =
                            watches(releaser, lockPath) - (watchesPath(releaser, lease.nodePath()) ? 1 : 0) + 1;
                    ring.releaseStartedAt = System.nanoTime();
                }
                lease.release();
                if (stop) {
                    return;
                }
            }
        } catch (Throwable e) {
            ring.failure.compareAndSet(null, e);
            ring.done = true;
        }
    }

    /**
     * Waits until the member that released last, now queued at the tail, has its watch set: its
     * session watches the paths under the lock it watched just before it released, less the
     * grant's own-node watch if there was one, plus the re-queue's predecessor watch. With one waiter
     * that member is the next to be granted, and releasing before its watch is set would time a
     * waiter that finds its predecessor already gone; with many, its enqueue (reading and sorting
     * the whole queue) would overlap the timed hand-off. Read from the client's own watch table
     * (curator-test's WatchersDebug).
     */
    private static void awaitWatch(Ring ring, String lockPath) {
        int last = ring.lastReleaser;
        if (last < 0) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try {
            long expected = ring.watchesAfterRequeue;
            while (watches(ring.sessions.get(last), lockPath) < expected) {
                if (System.nanoTime() > deadline || ring.failure.get() != null) {
                    throw new IllegalStateException("the re-queued waiter of " + lockPath + " set no watch in 2 min");
                }
                Thread.onSpinWait();
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("reading the watches of a client on " + lockPath, e);
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
    private static void awaitQueue(CuratorFramework monitor, String lockPath, int size, Ring ring) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try {
            while (true) {
                ZooKeeper zk = monitor.getZookeeperClient().getZooKeeper();
                int queued = zk.exists(lockPath, false) == null
                        ? 0
                        : zk.getChildren(lockPath, false).size();
                if (queued >= size) {
                    return;
                }
                if (System.nanoTime() > deadline || ring.failure.get() != null) {
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
