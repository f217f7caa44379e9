package io.zkfence.lock;

import io.zkfence.lock.internal.ZkGateway;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The services one {@link LockClient} shares among its acquisitions and grants. */
final class LockRuntime {

    final ZkGateway zk;
    final LockClientConfig config;
    final Clock clock;
    final StatsRecorder stats = new StatsRecorder();
    /** Grants, timeouts, ends, ... for {@link LockClientMetrics}; empty without it. */
    final LockObserver.All observers = new LockObserver.All();

    final GrantRegistry registry = new GrantRegistry();
    /** Timers: max-hold deadlines, retry back-off. Never blocks. */
    final ScheduledExecutorService scheduler;
    /** Lease listeners, one at a time, in order. */
    final ExecutorService events;
    /** Blocking calls (creating the lock's container znodes), kept off ZooKeeper's event thread. */
    final ExecutorService io;

    final NodeReaper reaper;
    final GuidSource guids;
    final RetryLog retries = new RetryLog();
    /** The cohorts of locks acquired in cohort mode, by lock path; an idle one removes itself. */
    final ConcurrentHashMap<String, Cohort> cohorts = new ConcurrentHashMap<>();
    /** Set when {@link LockClient#close()} begins: failures from then on mean "closed". */
    private volatile boolean closing;
    /** Cleared once a lock znode refused a {@link ReleaseRecord} (ACL): releases are then plain deletes. */
    private volatile boolean recordingReleases = true;

    LockRuntime(ZkGateway zk, LockClientConfig config, Clock clock) {
        this(
                zk,
                config,
                clock,
                timer(),
                Executors.newSingleThreadExecutor(daemon("zkfence-events")),
                io(),
                new GuidSource());
    }

    /**
     * A runtime on the threads given: the timer, the event thread (one task at a time, in order) and
     * the I/O pool, naming its queue nodes from {@code guids}. Tests that schedule every thread
     * themselves hand in their own, and GUIDs that are the same in every run.
     */
    LockRuntime(
            ZkGateway zk,
            LockClientConfig config,
            Clock clock,
            ScheduledExecutorService scheduler,
            ExecutorService events,
            ExecutorService io,
            GuidSource guids) {
        this.zk = zk;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.events = events;
        this.io = io;
        this.guids = guids;
        this.reaper = new NodeReaper(zk, scheduler);
        OwnNodeWatchSweeper.start(this);
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemon("zkfence-timer"));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    private static ExecutorService io() {
        return Executors.newCachedThreadPool(daemon("zkfence-io"));
    }

    void markClosing() {
        closing = true;
    }

    boolean isClosing() {
        return closing;
    }

    boolean recordsReleases() {
        return recordingReleases;
    }

    /** A lock znode refused this client's release record: from now on its releases only delete. */
    void stopRecordingReleases() {
        recordingReleases = false;
    }

    void shutdown() {
        scheduler.shutdownNow();
        io.shutdownNow();
        events.shutdown();
        try {
            events.awaitTermination(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
