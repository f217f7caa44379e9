package io.zkfence.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * A replica's {@link Scheduler} in the simulation: time is the world's, every wait hands control
 * back to the world until what it waits for has happened or its time has come, and timers and
 * threads are actors of the replica's process (a paused replica's timers fire when it goes on; a
 * killed replica's never).
 */
final class SimScheduler implements Scheduler {

    private final SimWorld world;
    private final SimProcess process;
    private long timers;
    private boolean closed;

    SimScheduler(SimWorld world, SimProcess process) {
        this.world = world;
        this.process = process;
    }

    @Override
    public long nanoTime() {
        return world.now() * 1000;
    }

    @Override
    public <T> T await(CompletableFuture<T> future, long timeoutNanos)
            throws ExecutionException, TimeoutException, InterruptedException {
        world.block(future::isDone, world.now() + Math.max(1, (timeoutNanos + 999) / 1000));
        if (!future.isDone()) {
            throw new TimeoutException("no answer within " + timeoutNanos / 1_000_000 + " ms (simulated)");
        }
        return future.get();
    }

    @Override
    public boolean await(CountDownLatch latch, long timeoutMillis) {
        world.block(() -> latch.getCount() == 0, world.now() + Math.max(1, timeoutMillis) * 1000);
        return latch.getCount() == 0;
    }

    @Override
    public void sleep(long nanos) {
        world.block(() -> false, world.now() + Math.max(1, nanos / 1000));
    }

    /** The seed's random: a retry's pause is the seed's choice too. */
    @Override
    public RandomGenerator random() {
        return world.random();
    }

    @Override
    public Runnable schedule(String name, Runnable task, long delayMillis) {
        boolean[] cancelled = {false};
        world.after(Math.max(0, delayMillis) * 1000, process, process.name() + "-timer-" + timers++, () -> {
            if (!cancelled[0] && !closed) {
                world.spawn(process, process.name() + ":" + name, task).tag = name;
            }
        });
        return () -> cancelled[0] = true;
    }

    @Override
    public void start(String name, Runnable task) {
        if (!closed) {
            world.spawn(process, process.name() + ":" + name, task).tag = name;
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
