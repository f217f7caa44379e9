package io.zkfence.lock;

import io.zkfence.lock.internal.Failures;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

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
 * <p><b>The phase decides.</b> Where the cohort's node stands is one {@link Phase}, changed only
 * through {@link #moveTo}, which refuses an edge this diagram does not have:
 *
 * <pre>
 * IDLE ──acquire──▶ QUEUEING ──granted, threads waiting──▶ HELD ──a turn ends, no hand-off──▶ RELEASING
 *  │ │                 │ └──failed, not wanted, or given up──▶ IDLE   │      └──released──▶ QUEUEING or IDLE
 *  │ └──try──▶ TRYING ─┼──the try got the node──────────────────────▶ │
 *  │             │     └◀──an acquire meanwhile (the try's node is surplus)
 *  │             └──the lock is taken──▶ IDLE                          └──node lost──▶ QUEUEING or IDLE
 *  └──idle, nobody waiting──▶ RETIRED (out of the client's map; nothing leaves it)
 * </pre>
 *
 * <p>(RELEASING goes to TRYING and QUEUEING as IDLE does: a release in flight does not hold up a
 * new node.) The node is there exactly in HELD, its acquisition exactly in QUEUEING; in HELD one
 * turn at a time stands on the node. A try or an acquisition answers into the attempt it was made
 * in ({@code generation}): one that answers after the cohort moved on hands back whatever it got.
 *
 * <p><b>Monitors.</b> State is guarded by this object's monitor. Under it the cohort never calls
 * into an {@link Acquisition} (start, abandon), attaches to its futures, or waits for ZooKeeper
 * (a try of the node, the release or loss of a node whose batch is over): each of those happens
 * once the monitor is released. The node's acquisition completes its result outside its own
 * monitor too, so {@link #onNode} runs holding no other lock, on whichever thread ended that
 * acquisition: ZooKeeper's event thread (granted, or failed), the client's timer or I/O pool, a
 * waiter that gave up ({@link Acquisition#abandon()}), or the closing thread
 * ({@link Acquisition#cancel()}). {@link #nodeEnded} runs on the client's event thread, or on the
 * thread that attached it when the node had already ended. The only monitor taken under this one
 * is a new turn's own (starting its max-hold clock), and no code holding another monitor takes
 * this one: there is no lock order to argue about.
 */
final class Cohort {

    /** Where the cohort's node stands; see the class comment. */
    enum Phase {
        IDLE,
        TRYING,
        QUEUEING,
        HELD,
        RELEASING,
        RETIRED;

        /** Whether the diagram has an edge from {@code from} to this phase. */
        boolean mayFollow(Phase from) {
            return switch (this) {
                case IDLE -> from == TRYING || from == QUEUEING || from == HELD || from == RELEASING;
                case TRYING -> from == IDLE || from == RELEASING;
                case QUEUEING -> from == IDLE || from == TRYING || from == HELD || from == RELEASING;
                case HELD -> from == TRYING || from == QUEUEING;
                case RELEASING -> from == HELD;
                case RETIRED -> from == IDLE;
            };
        }
    }

    private final LockClient client;
    private final LockRuntime rt;
    private final String lockName;
    private final String lockPath;
    private final CohortPolicy policy;
    private final Duration maxHold;
    /** Stands in as the owner of the cohort's node: no real thread holds it, so none re-enters it. */
    private final Thread nodeOwner = Thread.ofVirtual().unstarted(() -> {});

    // Guarded by this.
    private Phase phase = Phase.IDLE;
    /** Bumped by each try and each acquisition of a node: an answer of an earlier one is stale. */
    private int generation;
    /** The node's acquisition, in QUEUEING. */
    private Acquisition acquisition;
    /** The node, in HELD. */
    private Grant node;
    /** The turn standing on the node, in HELD; null only while a turn is being handed on. */
    private CohortHold turn;

    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private int turnsOnNode;
    private long nodeGrantedAtNanos;

    /** One thread waiting for its turn. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        final CompletableFuture<CohortHold> turn = new CompletableFuture<>();
        /** Set under the cohort's monitor as the turn is handed to this waiter: what giving up decides on. */
        CohortHold granted;
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

    /** Where the cohort stands now (for tests). */
    synchronized Phase phase() {
        return phase;
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
        Acquisition queued = null;
        synchronized (this) {
            Lease again = reenter();
            if (again != null) {
                return again;
            }
            if (phase == Phase.RETIRED) {
                return null; // the caller takes a fresh cohort
            }
            if (phase == Phase.HELD && turn == null && waiters.isEmpty() && usable(node) && !batchUsedUp()) {
                return new Lease(startTurn(Thread.currentThread()));
            }
            if (phase == Phase.IDLE || phase == Phase.TRYING || phase == Phase.RELEASING) {
                queued = queueNode(); // first: if the client is closing, nobody is left waiting
            }
            w = new Waiter();
            waiters.add(w);
        }
        CompletableFuture<Void> firstAttempt = null;
        if (queued != null) {
            start(queued);
            firstAttempt = queued.firstAttempt();
        }
        return new Lease(GrantWait.await(
                rt,
                lockName,
                new TurnRequest(w, firstAttempt),
                timeoutNanos,
                () -> new AcquireTimeoutException(lockName, timeout),
                true));
    }

    /**
     * A try: a turn only if the node is held and free, or a try of the node finds the lock free.
     * Null when not acquired: someone of this cohort is ahead (a turn, a waiter, a node being
     * queued or tried for), the lock is taken, or this cohort retired (the caller's next try takes
     * a fresh one).
     */
    Lease tryAcquire() {
        int attempt;
        synchronized (this) {
            Lease again = reenter();
            if (again != null) {
                return again;
            }
            if (phase == Phase.HELD && turn == null && waiters.isEmpty() && usable(node) && !batchUsedUp()) {
                return new Lease(startTurn(Thread.currentThread()));
            }
            if ((phase != Phase.IDLE && phase != Phase.RELEASING) || !waiters.isEmpty()) {
                return null;
            }
            moveTo(Phase.TRYING);
            attempt = ++generation;
        }
        // No node: try one, as a plain try-acquire would (outside the monitor: it waits for ZooKeeper).
        Grant g;
        try {
            g = client.tryNodeForCohort(lockName, lockPath, nodeOwner);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                if (phase == Phase.TRYING && generation == attempt) {
                    moveTo(Phase.IDLE);
                    retireIfIdle();
                }
            }
            throw e;
        }
        Lease granted = null;
        synchronized (this) {
            if (phase == Phase.TRYING && generation == attempt) {
                if (g == null) {
                    moveTo(Phase.IDLE);
                    retireIfIdle();
                    return null;
                }
                nodeGranted(g);
                granted = new Lease(startTurn(Thread.currentThread()));
            } else if (g == null) {
                retireIfIdle();
                return null;
            }
        }
        if (granted != null) {
            watchNodeEnd(g);
            return granted;
        }
        // An acquire queued a node of its own meanwhile: this one is one too many.
        g.releaseOne();
        return null;
    }

    /** Under the monitor: the calling thread's own turn again, if it has one and it is live. */
    private Lease reenter() {
        if (turn != null && turn.owner == Thread.currentThread() && turn.holdAgain()) {
            return new Lease(turn);
        }
        return null;
    }

    /** What a waiting thread waits for: its turn, and behind it the first attempt of the node it queued, if it did. */
    private final class TurnRequest implements GrantWait.Request<CohortHold> {

        private final Waiter w;
        private final CompletableFuture<Void> firstAttempt;

        TurnRequest(Waiter w, CompletableFuture<Void> firstAttempt) {
            this.w = w;
            this.firstAttempt = firstAttempt;
        }

        @Override
        public CompletableFuture<CohortHold> granted() {
            return w.turn;
        }

        @Override
        public CompletableFuture<Void> firstAttempt() {
            // As for a plain acquire: the first attempt at the node counts before the timeout.
            return firstAttempt;
        }

        @Override
        public CohortHold giveUp() {
            return Cohort.this.giveUp(w);
        }

        @Override
        public void release(CohortHold won) {
            won.releaseAll();
        }
    }

    /** The waiter gave up; returns its turn if it was granted first, else null. */
    private CohortHold giveUp(Waiter w) {
        Acquisition abandoned = null;
        synchronized (this) {
            if (w.granted != null) {
                return w.granted;
            }
            waiters.remove(w);
            w.turn.cancel(false);
            if (waiters.isEmpty() && phase == Phase.QUEUEING) {
                abandoned = acquisition; // nobody left to take the node it would bring
                acquisition = null;
                moveTo(Phase.IDLE);
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

    /**
     * Under the monitor: makes the cohort's node's acquisition (QUEUEING). The caller starts it with
     * {@link #start} once the monitor is released.
     *
     * @throws LockClientClosedException if the client is closing
     */
    private Acquisition queueNode() {
        Acquisition a = new Acquisition(rt, lockName, lockPath, false, null, nodeOwner);
        rt.registry.add(a);
        if (rt.isClosing()) {
            rt.registry.remove(a);
            retireIfIdle(); // a cohort the closing client made a moment ago leaves no trace either
            throw new LockClientClosedException(lockName, "LockClient is closed (lock '" + lockName + "')");
        }
        moveTo(Phase.QUEUEING);
        generation++;
        acquisition = a;
        return a;
    }

    /** Outside the monitor: hears the outcome of the node's acquisition ({@link #onNode}), and starts it. */
    private void start(Acquisition a) {
        a.result().whenComplete((g, e) -> {
            rt.registry.remove(a);
            onNode(a, g, e);
        });
        a.start();
    }

    /** The node's acquisition ended (on the thread that ended it, see the class comment). */
    private void onNode(Acquisition a, Grant g, Throwable e) {
        Grant surplus = null;
        Grant held = null;
        synchronized (this) {
            if (phase != Phase.QUEUEING || acquisition != a) {
                surplus = g; // given up, or the client closed: whatever it got is not wanted
            } else {
                acquisition = null;
                if (e != null) {
                    Throwable cause = Failures.unwrap(e);
                    waiters.forEach(w -> w.turn.completeExceptionally(cause));
                    waiters.clear();
                    moveTo(Phase.IDLE);
                } else if (waiters.isEmpty()) {
                    surplus = g;
                    moveTo(Phase.IDLE);
                } else {
                    nodeGranted(g);
                    handOff();
                    held = g;
                }
            }
            retireIfIdle();
        }
        if (surplus != null) {
            surplus.releaseAll();
        }
        if (held != null) {
            watchNodeEnd(held);
        }
    }

    /** Under the monitor: the node is held (HELD). */
    private void nodeGranted(Grant g) {
        moveTo(Phase.HELD);
        node = g;
        turnsOnNode = 0;
        nodeGrantedAtNanos = System.nanoTime();
    }

    /**
     * Outside the monitor: {@link #nodeEnded} when {@code g} ends (on the event thread; at once, on
     * this thread, if it already has).
     */
    private void watchNodeEnd(Grant g) {
        g.ended().thenRun(() -> nodeEnded(g));
    }

    /**
     * The node ended (lost, or released by close): the turn on it is LOST with it (its thread
     * learns it from its lease) and no longer holds up the others, who queue again behind a new
     * node, with a higher token.
     */
    private void nodeEnded(Grant g) {
        Acquisition queued = null;
        synchronized (this) {
            if (phase != Phase.HELD || node != g) {
                return;
            }
            node = null;
            turn = null;
            if (!waiters.isEmpty() && !rt.isClosing()) {
                queued = queueNode();
            } else {
                moveTo(Phase.IDLE);
                retireIfIdle();
            }
        }
        if (queued != null) {
            start(queued);
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
            if (!loseNode && usable(node) && !waiters.isEmpty() && !batchUsedUp()) {
                handOff();
                return;
            }
            if (loseNode) {
                lose = node;
            } else {
                release = node;
            }
            node = null;
            moveTo(Phase.RELEASING);
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
        Acquisition queued = null;
        synchronized (this) {
            if (phase == Phase.RELEASING) {
                if (!waiters.isEmpty() && !rt.isClosing()) {
                    queued = queueNode();
                } else {
                    moveTo(Phase.IDLE);
                }
            }
            retireIfIdle();
        }
        if (queued != null) {
            start(queued);
        }
    }

    /** Under the monitor: an idle cohort leaves the client's map, so many locks leave no trace. */
    private void retireIfIdle() {
        if (phase == Phase.IDLE && waiters.isEmpty()) {
            moveTo(Phase.RETIRED);
            rt.cohorts.remove(lockPath, this);
        }
    }

    /** Under the monitor: the first waiter's turn on the node. */
    private void handOff() {
        Waiter next = waiters.poll();
        if (next == null) {
            return;
        }
        // Giving up takes this monitor too, so the waiter cannot give up between the poll and here.
        CohortHold t = startTurn(next.thread);
        next.granted = t;
        next.turn.complete(t);
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

    /**
     * The one way the phase changes.
     *
     * @throws IllegalStateException for an edge the class comment's diagram does not have
     */
    private void moveTo(Phase to) {
        if (!to.mayFollow(phase)) {
            throw new IllegalStateException(
                    "cohort of lock '" + lockName + "' cannot move from " + phase + " to " + to);
        }
        phase = to;
    }

    /** Client close: fails the waiters; the node and turns end through the client's own sweep. */
    synchronized void close() {
        waiters.forEach(w -> w.turn.completeExceptionally(
                new LockClientClosedException(lockName, "lock client closed while acquiring '" + lockName + "'")));
        waiters.clear();
    }
}
