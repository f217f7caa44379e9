package io.zkfence.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/** {@link Scheduler#real()}: the JVM's own clock, waits and threads. */
final class RealScheduler implements Scheduler {

    /** Timers only: each task it fires runs on a virtual thread of its own, so a slow one delays no other. */
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("zkfence-timers").daemon().factory());

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public <T> T await(CompletableFuture<T> future, long timeoutNanos)
            throws ExecutionException, TimeoutException, InterruptedException {
        return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean await(CountDownLatch latch, long timeoutMillis) throws InterruptedException {
        return latch.await(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void sleep(long nanos) {
        LockSupport.parkNanos(nanos);
    }

    @Override
    public RandomGenerator random() {
        return ThreadLocalRandom.current();
    }

    @Override
    public Runnable schedule(String name, Runnable task, long delayMillis) {
        ScheduledFuture<?> f = timers.schedule(() -> start(name, task), delayMillis, TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void start(String name, Runnable task) {
        Thread.ofVirtual().name(name).start(task);
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }
}
