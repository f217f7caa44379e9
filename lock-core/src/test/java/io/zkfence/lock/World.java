package io.zkfence.lock;

import io.zkfence.lock.internal.ZkGateway;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Every thread around a client, for a test whose scheduler decides how they interleave (see
 * {@link InterleavingTest}): the callers the test gives to {@link #run}, and three lanes, each a
 * thread of its own that runs the tasks posted to it one at a time, in order.
 *
 * <ul>
 * <li>{@link Lane#ZOOKEEPER}: ZooKeeper's event thread. {@link InProcessZooKeeper} applies and
 *     answers every request there, in the order sent, as a server does for one session.</li>
 * <li>{@link Lane#TIMER}: the client's timer (back-offs, the reaper's retries, max-hold) and its
 *     I/O pool. A timer fires whenever the scheduler lets this lane run it: delays only matter to
 *     liveness, so firing at any moment covers every order a real clock could give. Periodic work
 *     (the own-node watch sweep) is not run.</li>
 * <li>{@link Lane#EVENTS}: the client's event thread (lease listeners, the ended stages a cohort
 *     watches).</li>
 * </ul>
 *
 * <p>A lane's thread ends when the world is at rest: every caller has returned and no lane has a
 * task queued or running. Nothing can happen after that (only a caller or a task posts a task), so
 * a test checks its invariants then. Only plain monitors and {@code wait}/{@code notifyAll} are
 * used, which a controlled scheduler (Lincheck's model checker) drives.
 */
final class World {

    /** What a caller thread runs. */
    interface Caller {
        void run() throws Exception;
    }

    /** The threads that run the client's asynchronous work; see the class comment. */
    enum Lane {
        ZOOKEEPER,
        TIMER,
        EVENTS
    }

    private final Map<Lane, ArrayDeque<Runnable>> queues = new EnumMap<>(Lane.class);
    private final Map<Lane, Boolean> busy = new EnumMap<>(Lane.class);
    private final List<Throwable> failures = new ArrayList<>();
    private int callers;

    World() {
        for (Lane lane : Lane.values()) {
            queues.put(lane, new ArrayDeque<>());
            busy.put(lane, false);
        }
    }

    /**
     * A runtime whose timer, event thread and I/O pool are this world's lanes, and whose queue nodes
     * have the same names in every run (a model checker replays a schedule only if nothing else
     * changes: random GUIDs would move the znodes' map about).
     */
    LockRuntime runtime(ZkGateway zk, LockClientConfig config) {
        LaneExecutor timer = new LaneExecutor(this, Lane.TIMER);
        return new LockRuntime(
                zk,
                config,
                Clock.systemUTC(),
                timer,
                new LaneExecutor(this, Lane.EVENTS),
                timer,
                new GuidSource(0x5EED_0000_0000_0037L));
    }

    /**
     * Runs {@code bodies}, each on a caller thread of its own, beside the three lanes, and returns
     * once the world is at rest.
     *
     * @throws AssertionError with the first failure of a caller or of a lane's task
     */
    void run(Caller... bodies) {
        synchronized (this) {
            callers = bodies.length;
        }
        List<Thread> threads = new ArrayList<>();
        for (Lane lane : Lane.values()) {
            threads.add(new Thread(() -> drive(lane), "lane-" + lane));
        }
        for (Caller body : bodies) {
            threads.add(new Thread(() -> call(body)));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while the world ran", e);
            }
        }
        synchronized (this) {
            if (!failures.isEmpty()) {
                AssertionError error =
                        new AssertionError("a thread of the world failed: " + failures.get(0), failures.get(0));
                failures.stream().skip(1).forEach(error::addSuppressed);
                throw error;
            }
        }
    }

    /** Queues {@code task} on {@code lane}. */
    synchronized void post(Lane lane, Runnable task) {
        queues.get(lane).add(task);
        notifyAll();
    }

    /** Takes {@code lane}'s queued tasks off it, unrun (a shut-down timer drops what is pending). */
    synchronized List<Runnable> drain(Lane lane) {
        List<Runnable> dropped = new ArrayList<>(queues.get(lane));
        queues.get(lane).clear();
        notifyAll();
        return dropped;
    }

    /** Waits until {@code lane} has nothing queued or running (a shut-down event thread finishing its tasks). */
    synchronized void awaitIdle(Lane lane) throws InterruptedException {
        while (!queues.get(lane).isEmpty() || busy.get(lane)) {
            wait();
        }
    }

    private void call(Caller body) {
        try {
            body.run();
        } catch (Throwable t) {
            failed(t);
        } finally {
            synchronized (this) {
                callers--;
                notifyAll();
            }
        }
    }

    private void drive(Lane lane) {
        while (true) {
            Runnable task;
            try {
                task = next(lane);
            } catch (InterruptedException e) {
                failed(e);
                return;
            }
            if (task == null) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                failed(t);
            } finally {
                synchronized (this) {
                    busy.put(lane, false);
                    notifyAll();
                }
            }
        }
    }

    /** The next task of {@code lane}, or null once the world is at rest. */
    private synchronized Runnable next(Lane lane) throws InterruptedException {
        while (true) {
            Runnable task = queues.get(lane).poll();
            if (task != null) {
                busy.put(lane, true);
                return task;
            }
            if (atRest()) {
                notifyAll();
                return null;
            }
            wait();
        }
    }

    private boolean atRest() {
        if (callers > 0) {
            return false;
        }
        for (Lane lane : Lane.values()) {
            if (busy.get(lane) || !queues.get(lane).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private synchronized void failed(Throwable t) {
        failures.add(t);
    }
}
