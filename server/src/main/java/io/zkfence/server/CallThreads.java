package io.zkfence.server;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.util.function.ThrowingRunnable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Where a call runs. On the Jetty thread that read it (a platform thread: Jetty runs a request
 * where it was read and hands the connection's selecting to another one, so no hand-off), where
 * it blocks only for ZooKeeper's answers; or, when it may park for long, on a virtual thread of
 * its own, answering asynchronously: an acquire from the point where its wait starts, and every
 * ZooKeeper call while the replica has no ZooKeeper connection (each may then retry for
 * {@link ZkWire#OPERATION_TIMEOUT}). So waits and outages never hold Jetty's threads.
 */
final class CallThreads implements AutoCloseable {

    /** Jetty's threads: the selectors, and the calls blocked on ZooKeeper's answers while connected. */
    static final int JETTY_THREADS = 256;

    private final BooleanSupplier zooKeeperConnected;
    private final ExecutorService parked = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("zkfence-wait-", 0).factory());

    CallThreads(BooleanSupplier zooKeeperConnected) {
        this.zooKeeperConnected = zooKeeperConnected;
    }

    /** A new pool for Jetty, of {@link #JETTY_THREADS} platform threads, metered in {@code registry}. */
    static QueuedThreadPool jettyPool(MeterRegistry registry) {
        QueuedThreadPool pool = new QueuedThreadPool(JETTY_THREADS, 8, 60_000);
        pool.setName("zkfence-http");
        // jetty_threads_busy, _jobs (calls queued for a thread), _config_max ...: whether the pool suffices.
        new JettyServerThreadPoolMetrics(pool, List.of()).bindTo(registry);
        return pool;
    }

    /** True on a thread where a call may wait for minutes (a virtual one). */
    static boolean mayWaitHere() {
        return Thread.currentThread().isVirtual();
    }

    /** {@code h} for a route that calls ZooKeeper: run here while connected, else on a virtual thread. */
    Handler offJettyWhileDisconnected(Handler h) {
        return ctx -> {
            if (zooKeeperConnected.getAsBoolean() || mayWaitHere()) {
                h.handle(ctx);
            } else {
                onVirtualThread(ctx, () -> h.handle(ctx));
            }
        };
    }

    /** Answers the call asynchronously: {@code rest} runs on a virtual thread and writes the answer. */
    void onVirtualThread(Context ctx, ThrowingRunnable<Exception> rest) {
        ctx.future(() -> CompletableFuture.runAsync(
                () -> {
                    try {
                        rest.run();
                    } catch (Exception e) {
                        HttpAnswers.failed(ctx, e);
                    }
                },
                parked));
    }

    /** Takes no new calls; those running finish. */
    @Override
    public void close() {
        parked.shutdown();
    }
}
