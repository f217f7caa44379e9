package io.zkfence.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * Where the service's calls wait and its background work runs: the monotonic time, the waits for
 * ZooKeeper's answers and for a latch, pauses between retries, timers and new threads.
 *
 * <p>Every wait of the service's decisions goes through here (a retry's pause too, as long as
 * {@link io.zkfence.fencing.internal.Backoff} says, with jitter from {@link #random()}), so that one
 * implementation can run them on real threads ({@link #real()}) and another, the service
 * simulation's, can decide which waiting call goes on next and what time it is: the same
 * decisions, under a schedule one seed chooses. A wait may therefore end with any {@link Error} the implementation throws (the
 * simulation ends the calls of a replica it kills that way); code must not catch {@code Error}.
 */
interface Scheduler extends AutoCloseable {

    /** A monotonic time in nanoseconds, for durations only. */
    long nanoTime();

    /** Waits for {@code future} at most {@code timeoutNanos}, as {@link CompletableFuture#get(long, java.util.concurrent.TimeUnit)}. */
    <T> T await(CompletableFuture<T> future, long timeoutNanos)
            throws ExecutionException, TimeoutException, InterruptedException;

    /** Waits until {@code latch} is counted down or {@code timeoutMillis} pass; true if it was counted down. */
    boolean await(CountDownLatch latch, long timeoutMillis) throws InterruptedException;

    /** Pauses the calling thread for {@code nanos} (between retries). */
    void sleep(long nanos);

    /**
     * Where a retry's jitter comes from ({@link io.zkfence.fencing.internal.Backoff} draws from it
     * on the drawing thread): the thread's own random on real threads, the seed's in the
     * simulation, so that a seed decides every pause too.
     */
    RandomGenerator random();

    /**
     * Runs {@code task} on a thread of its own (it may wait) after {@code delayMillis}.
     *
     * @return cancels it, if it has not started yet
     */
    Runnable schedule(String name, Runnable task, long delayMillis);

    /** Runs {@code task} on a thread of its own now (it may wait). */
    void start(String name, Runnable task);

    /** Stops the timers: tasks not started yet never run. */
    @Override
    void close();

    /** Real threads and time: virtual threads for the work, one platform thread for the timers. */
    static Scheduler real() {
        return new RealScheduler();
    }
}
