package io.zkfence.lock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The threads of one client that want one lock in cohort mode: a local FIFO queue behind a single
 * ZooKeeper queue node (lock cohorting, as in NUMA locks, applied to a distributed lock).
 *
 * <p>The cohort enqueues one node when a thread wants the lock and none is held or queued. Once
 * the node is granted, the lock passes from thread to thread here, without touching ZooKeeper,
 * for at most {@code maxBatch} turns and {@code maxBatchTime} since the node was granted; then
 * the node is released, so the next process gets its turn, and the threads still waiting queue
 * again behind a new node at the tail.
 *
 * <p><b>Safety.</b> Exclusion among this client's threads is this class's job (one turn at a
 * time, under its monitor); among processes, ZooKeeper's (one node at the head). Every turn under
 * one node carries the node's token: tokens are equal within a cohort and strictly increasing
 * across cohorts. A resource that accepts a token {@code >=} the highest it has seen stays safe,
 * because a turn can only end without its thread knowing in two ways, and both end the node: the
 * node's session or node is lost (every turn on it is LOST; the next node has a higher token), or
 * the turn's own max-hold passes (the node is then lost on purpose, see
 * {@link #turnEnded(CohortHold, boolean)}), so no later turn ever shares a token with a turn that
 * ended behind its thread's back.
 *
 * <p>State is guarded by this object's monitor. Starting the node's acquisition
 * ({@code enqueueNode()}) happens under it: that sends asynchronous requests for a new
 * acquisition and waits for none of them (its outcome comes back later on ZooKeeper's thread and
 * takes this monitor then, in {@code onNode}). What blocks on ZooKeeper (a try of the node, the
 * release or loss of a node whose batch is over) runs outside it.
 */
final class Cohort {

    private final LockClient client;
    private final LockRuntime rt;
    private final String lockName;
    private final String lockPath;
    private final CohortPolicy policy;
    private final Duration maxHold;
    /** Stands in as the owner of the cohort's node: no real thread holds it, so none re-enters it. */
    private final Thread nodeOwner = Thread.ofVirtual().unstarted(() -> {});

    // Guarded by this.
    private Grant node;
    private Acquisition acquisition;
    private CohortHold turn;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private int turnsOnNode;
    private long nodeGrantedAtNanos;
    /** Idle and out of the client's map: a caller that still holds it takes a fresh one. */
    private boolean retired;

    /** One thread waiting for its turn. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        final CompletableFuture<CohortHold> turn = new CompletableFuture<>();
    }

    Cohort(LockClient client, LockRuntime rt, FencedLock lock, CohortPolicy policy) {
        this.client = client;
        this.rt = rt;
        this.lockName = lock.name();
        this.lockPath = lock.path();
        this.policy = policy;
        this.maxHold = lock.maxHold().orElse(null);
    }

    /** Local waiters right now (for inspect). */
    synchronized int waiting() {
        return waiters.size();
    }

    /**
     * Waits for a turn: the calling thread's own turn again if it has one (re-entrant), the node
     * at once if it is held and free, else behind the threads already waiting. Null if this cohort
     * retired (idle, out of the client's map) before the call got in: take a fresh one.
     *
     * @param timeoutNanos negative: no timeout
     */
    Lease acquire(long timeoutNanos, Duration timeout) {
        Waiter w;
        CompletableFuture<Void> firstAttempt = null;
        synchronized (this) {
            if (turn != null && turn.owner == Thread.currentThread() && turn.holdAgain()) {
                return new Lease(turn);
            }
            if (retired) {
                return null; // the caller takes a fresh cohort
            }
            if (turn == null && waiters.isEmpty() && usable(node) && !batchUsedUp()) {
                return new Lease(startTurn(Thread.currentThread()));
            }
            w = new Waiter();
            waiters.add(w);
            if (node == null && acquisition == null) {
                firstAttempt = enqueueNode();
            }
        }
        return await(w, timeoutNanos, timeout, firstAttempt);
    }

    /**
     * A try: a turn only if the node is held and free, or a try of the node finds the lock free.
     * Null when not acquired (or when this cohort retired: the caller's next try takes a fresh one).
     */
    Lease tryAcquire() {
        synchronized (this) {
            if (turn != null && turn.owner == Thread.currentThread() && turn.holdAgain()) {
                return new Lease(turn);
            }
            if (retired || turn != null || !waiters.isEmpty() || acquisition != null) {
                return null;
            }
            if (usable(node) && !batchUsedUp()) {
                return new Lease(startTurn(Thread.currentThread()));
            }
        }
        // No node: try one, as a plain try-acquire would.
        Grant g = client.tryNodeForCohort(lockName, lockPath, nodeOwner);
        if (g == null) {
            synchronized (this) {
                retireIfIdle();
            }
            return null;
        }
        synchronized (this) {
            if (!retired && node == null && acquisition == null && turn == null) {
                nodeGranted(g);
                return new Lease(startTurn(Thread.currentThread()));
            }
        }
        // Someone else started the cohort meanwhile, or it retired: this node is one too many.
        g.releaseOne();
        return null;
    }

    private Lease await(Waiter w, long timeoutNanos, Duration timeout, CompletableFuture<Void> firstAttempt) {
        long called = System.nanoTime();
        try {
            CohortHold granted;
            if (timeoutNanos < 0) {
                granted = w.turn.get();
            } else {
                long began = System.nanoTime();
                if (firstAttempt != null) {
                    // As for a plain acquire: the first attempt at the node counts before the timeout.
                    firstAttempt.get(
                            Math.max(timeoutNanos, rt.config.operationTimeout().toNanos()), TimeUnit.NANOSECONDS);
                }
                long left = Math.max(0, timeoutNanos - (System.nanoTime() - began));
                granted = w.turn.get(left, TimeUnit.NANOSECONDS);
            }
            return new Lease(granted);
        } catch (TimeoutException e) {
            CohortHold won = giveUp(w);
            if (won != null) {
                return new Lease(won); // granted just as the wait ran out: the caller has it
            }
            rt.observers.timedOut(lockName, System.nanoTime() - called);
            throw new AcquireTimeoutException(lockName, timeout);
        } catch (InterruptedException e) {
            CohortHold won = giveUp(w);
            if (won != null) {
                won.releaseAll();
            }
            Thread.currentThread().interrupt();
            throw new AcquireInterruptedException(lockName, e);
        } catch (ExecutionException e) {
            giveUp(w);
            Throwable cause = Failures.unwrap(e);
            if (cause instanceof LockClientClosedException closed) {
                throw new LockClientClosedException(lockName, closed.getMessage(), closed);
            }
            if (cause instanceof LockException le) {
                throw new CoordinationException(lockName, le.getMessage(), le);
            }
            throw new CoordinationException(lockName, "acquiring lock '" + lockName + "' failed: " + cause, cause);
        }
    }

    /** The waiter gave up; returns its turn if it was granted first, else null. */
    private CohortHold giveUp(Waiter w) {
        Acquisition abandoned = null;
        synchronized (this) {
            if (w.turn.isDone() && !w.turn.isCompletedExceptionally()) {
                return w.turn.getNow(null);
            }
            waiters.remove(w);
            w.turn.cancel(false);
            if (waiters.isEmpty() && acquisition != null) {
                abandoned = acquisition; // nobody left to take the node it would bring
                acquisition = null;
            }
            retireIfIdle();
        }
        if (abandoned != null) {
            Grant won = abandoned.abandon();
            if (won != null) {
                won.releaseAll();
            }
        }
        return null;
    }

    /** Under the monitor: queues the cohort's node. Returns its first attempt (see {@link Acquisition#firstAttempt()}). */
    private CompletableFuture<Void> enqueueNode() {
        Acquisition a = new Acquisition(rt, lockName, lockPath, false, null, nodeOwner);
        acquisition = a;
        rt.registry.add(a);
        if (rt.isClosing()) {
            rt.registry.remove(a);
            acquisition = null;
            throw new LockClientClosedException(lockName, "LockClient is closed (lock '" + lockName + "')");
        }
        a.result().whenComplete((g, e) -> {
            rt.registry.remove(a);
            onNode(a, g, e);
        });
        a.start();
        return a.firstAttempt();
    }

    private void onNode(Acquisition a, Grant g, Throwable e) {
        Grant surplus = null;
        synchronized (this) {
            if (acquisition != a) {
                surplus = g; // abandoned: whatever it got is not wanted
            } else {
                acquisition = null;
                if (e != null) {
                    Throwable cause = Failures.unwrap(e);
                    waiters.forEach(w -> w.turn.completeExceptionally(cause));
                    waiters.clear();
                } else if (waiters.isEmpty()) {
                    surplus = g;
                } else {
                    nodeGranted(g);
                    handOff();
                }
            }
            retireIfIdle();
        }
        if (surplus != null) {
            surplus.releaseAll();
        }
    }

    private void nodeGranted(Grant g) {
        node = g;
        turnsOnNode = 0;
        nodeGrantedAtNanos = System.nanoTime();
        g.ended().thenRun(() -> nodeEnded(g));
    }

    /**
     * The node ended (lost, or released by close): the turn on it is LOST with it (its thread
     * learns it from its lease) and no longer holds up the others, who queue again behind a new
     * node, with a higher token.
     */
    private void nodeEnded(Grant g) {
        synchronized (this) {
            if (node != g) {
                return;
            }
            node = null;
            if (turn != null && turn.node() == g) {
                turn = null;
            }
            if (!waiters.isEmpty() && acquisition == null && !rt.isClosing()) {
                enqueueNode();
            }
            retireIfIdle();
        }
    }

    /**
     * A turn ended. The next waiter takes the node unless the batch is used up, the node is no
     * longer good, or {@code loseNode}: the turn ended behind its thread's back (its max-hold),
     * so its token must not be handed on. Then the node goes (released, or lost on purpose) and
     * the waiters queue again.
     */
    void turnEnded(CohortHold ended, boolean loseNode) {
        Grant release = null;
        Grant lose = null;
        synchronized (this) {
            if (turn != ended) {
                return;
            }
            turn = null;
            if (loseNode && node != null) {
                lose = node;
                node = null;
            } else if (usable(node) && !waiters.isEmpty() && !batchUsedUp()) {
                handOff();
                return;
            } else if (node != null) {
                release = node;
                node = null;
            }
        }
        // ZooKeeper outside the monitor: the release waits for the delete, as a plain release does.
        if (lose != null) {
            lose.lose(
                    LockObserver.LossCause.MAX_HOLD,
                    "a turn in its cohort passed its max-hold; its token is not handed on");
        }
        if (release != null) {
            release.releaseOne();
        }
        synchronized (this) {
            if (turn == null && node == null && acquisition == null && !waiters.isEmpty() && !rt.isClosing()) {
                enqueueNode();
            }
            retireIfIdle();
        }
    }

    /** Under the monitor: an idle cohort leaves the client's map, so many locks leave no trace. */
    private void retireIfIdle() {
        if (turn == null && node == null && acquisition == null && waiters.isEmpty()) {
            retired = true;
            rt.cohorts.remove(lockPath, this);
        }
    }

    /** Under the monitor: the first waiter's turn on the node. */
    private void handOff() {
        Waiter next = waiters.poll();
        while (next != null && next.turn.isDone()) {
            next = waiters.poll(); // gave up meanwhile
        }
        if (next == null) {
            return;
        }
        // giveUp() takes this monitor too, so the waiter cannot cancel between the check and here.
        next.turn.complete(startTurn(next.thread));
    }

    private CohortHold startTurn(Thread owner) {
        CohortHold t = new CohortHold(this, node, owner, rt, maxHold);
        turn = t;
        turnsOnNode++;
        rt.stats.grants.increment();
        t.activate();
        return t;
    }

    private boolean batchUsedUp() {
        return turnsOnNode >= policy.maxBatch()
                || System.nanoTime() - nodeGrantedAtNanos
                        >= policy.maxBatchTime().toNanos();
    }

    private static boolean usable(Grant g) {
        return g != null && g.state() == LeaseState.HELD;
    }

    /** Client close: fails the waiters; the node and turns end through the client's own sweep. */
    synchronized void close() {
        waiters.forEach(w -> w.turn.completeExceptionally(
                new LockClientClosedException(lockName, "lock client closed while acquiring '" + lockName + "'")));
        waiters.clear();
    }
}
