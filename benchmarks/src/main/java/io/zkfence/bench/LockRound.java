package io.zkfence.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One timed round on one contended lock: every thread of every group loops acquire → critical
 * section → release until a deadline. A group is what the report counts shares for (a client, a
 * process); each of its mutexes gets a platform thread of its own.
 *
 * <p>The round's time runs from its start until the last thread has released: threads blocked in
 * an acquire at the deadline finish that grant, and it counts.
 */
final class LockRound {

    /**
     * What one round measured.
     *
     * @param nanos  from the start until every thread had finished
     * @param grants grants per group
     * @param waits  acquire waits (ns) per group
     */
    record Result(long nanos, long[] grants, Histogram[] waits) {

        long totalGrants() {
            long total = 0;
            for (long g : grants) {
                total += g;
            }
            return total;
        }
    }

    private LockRound() {}

    /** Runs a round that starts as soon as its threads are up. */
    static Result run(List<List<Mutex>> groups, long durationNanos, Runnable criticalSection) {
        return run(groups, Long.MIN_VALUE, durationNanos, criticalSection);
    }

    /**
     * Runs a round that starts at {@code startAtNanos} on {@link System#nanoTime()}'s clock, or as
     * soon as the threads are up for {@code Long.MIN_VALUE}. Processes given the same start share one
     * window: on Linux that clock is the system's CLOCK_MONOTONIC. A start that has passed when the
     * threads are up still counts from then, so the lateness costs the round grants, not time.
     */
    static Result run(List<List<Mutex>> groups, long startAtNanos, long durationNanos, Runnable criticalSection) {
        AtomicLongArray grants = new AtomicLongArray(groups.size());
        Histogram[] waits = new Histogram[groups.size()];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2]; // start, deadline: written before go opens, read after
        List<Thread> threads = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            int group = g;
            waits[g] = Latency.newHistogram();
            for (int t = 0; t < groups.get(g).size(); t++) {
                Mutex mutex = groups.get(g).get(t);
                threads.add(Thread.ofPlatform()
                        .name("lock-round-" + g + "-" + t)
                        .start(() -> {
                            Histogram mine = Latency.newHistogram();
                            try {
                                go.await();
                                waitUntil(window[0]);
                                while (System.nanoTime() < window[1] && failure.get() == null) {
                                    long t0 = System.nanoTime();
                                    try (Mutex.Held held = mutex.lock()) {
                                        Latency.record(mine, System.nanoTime() - t0);
                                        criticalSection.run();
                                    }
                                    grants.incrementAndGet(group);
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            } finally {
                                synchronized (waits[group]) {
                                    waits[group].add(mine);
                                }
                            }
                        }));
            }
        }
        window[0] = startAtNanos == Long.MIN_VALUE ? System.nanoTime() : startAtNanos;
        window[1] = window[0] + durationNanos;
        go.countDown();
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for a lock-round thread", e);
            }
        }
        long elapsed = System.nanoTime() - window[0];
        if (failure.get() != null) {
            throw new IllegalStateException("a lock-round thread failed", failure.get());
        }
        long[] perGroup = new long[groups.size()];
        for (int g = 0; g < perGroup.length; g++) {
            perGroup[g] = grants.get(g);
        }
        return new Result(elapsed, perGroup, waits);
    }

    private static void waitUntil(long nanoTime) {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
