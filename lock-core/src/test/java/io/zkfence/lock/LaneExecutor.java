package io.zkfence.lock;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An executor (and timer) whose tasks run on one {@link World.Lane}. A delay is not waited for: the
 * task runs when the scheduler lets the lane run it (see {@link World}). A periodic task never
 * runs. After {@link #shutdownNow()} the tasks still queued are dropped and new ones are refused,
 * as a {@code ScheduledThreadPoolExecutor} does; after {@link #shutdown()} the queued ones still run.
 */
final class LaneExecutor extends AbstractExecutorService implements ScheduledExecutorService {

    private final World world;
    private final World.Lane lane;
    private volatile boolean shutDown;

    LaneExecutor(World world, World.Lane lane) {
        this.world = world;
        this.lane = lane;
    }

    @Override
    public void execute(Runnable command) {
        if (shutDown) {
            throw new RejectedExecutionException("lane " + lane + " is shut down");
        }
        world.post(lane, command);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        LaneTask<Void> task = new LaneTask<>(command, null);
        execute(task);
        return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        LaneTask<V> task = new LaneTask<>(callable);
        execute(task);
        return task;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return never();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return never();
    }

    @Override
    public void shutdown() {
        shutDown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutDown = true;
        return world.drain(lane);
    }

    @Override
    public boolean isShutdown() {
        return shutDown;
    }

    @Override
    public boolean isTerminated() {
        return shutDown;
    }

    /** Waits (without a clock) until the lane has run what was queued before the shutdown. */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        world.awaitIdle(lane);
        return true;
    }

    /** Periodic work is not run here: a task that is never due. */
    private ScheduledFuture<?> never() {
        if (shutDown) {
            throw new RejectedExecutionException("lane " + lane + " is shut down");
        }
        LaneTask<Void> task = new LaneTask<>(() -> {}, null);
        task.cancel(false);
        return task;
    }

    /** A task as a timer hands it out: cancellable, due now. */
    private static final class LaneTask<V> extends FutureTask<V> implements ScheduledFuture<V> {

        LaneTask(Runnable runnable, V result) {
            super(runnable, result);
        }

        LaneTask(Callable<V> callable) {
            super(callable);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
