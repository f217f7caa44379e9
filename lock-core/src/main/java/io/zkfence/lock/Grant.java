package io.zkfence.lock;

import static io.zkfence.lock.LockObserver.LossCause.MAX_HOLD;
import static io.zkfence.lock.LockObserver.LossCause.NODE_DELETED;
import static io.zkfence.lock.LockObserver.LossCause.OTHER;
import static io.zkfence.lock.LockObserver.LossCause.SESSION_EXPIRED;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One grant of a lock: the queue node that reached the head, and the lease's state machine.
 *
 * <p><b>One mechanism for state.</b> Every write of the lease's state (and of the end reason,
 * the max-hold deadline and its timer) happens under this object's monitor; the fields are
 * {@code volatile} so reads are lock-free. A concurrent "lost" (from ZooKeeper's threads) and
 * "released" (from the holder) therefore cannot both win, listeners are handed the changes in
 * the order they happened, and a renew that races the end cannot leave a timer behind. The
 * re-entrant holds are their own small concept ({@link HoldCount}); the node is deleted when the
 * last hold is released.
 *
 * <p><b>Threads.</b> Listeners and {@link #ended()}'s continuations run on the client's event
 * thread, never on ZooKeeper's. The internal end future is completed in place by whichever thread
 * ends the grant, but no caller ever sees it: {@link #ended()} hands out a stage that depends on
 * it <em>asynchronously</em> through the event thread (so its continuations run there, after the
 * listeners' task), or, once the grant has ended, an already completed stage, whose continuations
 * run on the thread that attaches them. No check of who is waiting decides it, so no attach can
 * race it, and a release nobody waits on costs no thread hand-off.
 */
final class Grant implements Hold {

    private static final Logger log = LoggerFactory.getLogger(Grant.class);

    final String lockName;
    final String lockPath;
    final String nodeName;
    private final String nodePath;
    final long token;
    final int sequence;
    final long sessionId;
    final Thread owner;
    final Duration ttl;
    private final Duration maxHold;
    private final LockRuntime rt;

    private final HoldCount holds = new HoldCount();
    private final CopyOnWriteArrayList<Registration> listeners = new CopyOnWriteArrayList<>();
    /** Completed in place by the end; only {@link #ended()}'s asynchronous dependents see it (class comment). */
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();

    private final Watcher ownNodeWatcher = this::onOwnNodeEvent;
    private final long grantedAtNanos = System.nanoTime();

    // Written under the monitor, read without it.
    private volatile LeaseState state = LeaseState.HELD;
    private volatile String endReason;
    private volatile Instant deadline;
    private volatile ScheduledFuture<?> maxHoldTimer;
    /** A hint, not state: two threads arming the watch at once cost one read more. */
    private volatile boolean ownNodeWatched;

    private record Registration(Lease lease, LeaseListener listener) {}

    Grant(
            LockRuntime rt,
            String lockName,
            String lockPath,
            QueueNode node,
            long token,
            long sessionId,
            Thread owner,
            Duration maxHold) {
        this.rt = rt;
        this.lockName = lockName;
        this.lockPath = lockPath;
        this.nodeName = node.name();
        this.nodePath = lockPath + "/" + nodeName;
        this.sequence = node.sequence();
        this.token = token;
        this.sessionId = sessionId;
        this.owner = owner;
        this.maxHold = maxHold;
        this.ttl = Duration.ofMillis(rt.zk.sessionTimeoutMs());
    }

    /**
     * Starts the max-hold clock, if any. Called once, right after the grant, before the caller
     * sees it.
     *
     * @throws RejectedExecutionException if the client's timer is shut down (client closing)
     */
    void activate() {
        if (maxHold != null) {
            scheduleMaxHold();
        }
    }

    /**
     * Drops a grant that never reached its caller (making it failed part-way): off the registry,
     * no timer, state LOST. Its node is the acquisition's to delete.
     */
    void abort() {
        transition(LeaseState.LOST, "the grant could not be completed", OTHER);
    }

    /**
     * Watches the grant's own node once the lease has been held for {@code minAge}, so that a
     * delete by someone else (an operator) makes it LOST. Short holds, the usual critical
     * section, finish before and cost no request for it; see {@link OwnNodeWatchSweeper}.
     */
    void watchOwnNodeIfHeldFor(long minAgeNanos) {
        if (!ownNodeWatched && !state.isFinal() && System.nanoTime() - grantedAtNanos >= minAgeNanos) {
            armOwnNodeWatch(false);
        }
    }

    /** Watches the grant's own node now, whatever the lease's age. */
    void watchOwnNodeNow() {
        armOwnNodeWatch(false);
    }

    @Override
    public String lockName() {
        return lockName;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public int sequence() {
        return sequence;
    }

    @Override
    public Duration ttl() {
        return ttl;
    }

    @Override
    public String nodePath() {
        return nodePath;
    }

    @Override
    public LeaseState state() {
        return state;
    }

    @Override
    public String endReason() {
        return endReason;
    }

    @Override
    public Instant deadline() {
        return deadline;
    }

    @Override
    public Duration maxHold() {
        return maxHold;
    }

    @Override
    public void releaseOne() {
        if (dropHold()) {
            deleteNode();
        }
    }

    /**
     * The final state, as a stage: completed on the event thread when the grant ends, or already
     * completed if it has ended (continuations then run on the attaching thread).
     */
    @Override
    public CompletionStage<LeaseState> ended() {
        LeaseState s = state;
        return s.isFinal()
                ? CompletableFuture.completedStage(s)
                : ended.thenApplyAsync(end -> end, this::execute).minimalCompletionStage();
    }

    /** Adds a re-entrant hold; false if the grant already ended (the caller must acquire anew). */
    boolean holdAgain() {
        return !state.isFinal() && holds.tryAdd();
    }

    /**
     * Drops one hold. True for the last one, which releases the lock: the state becomes RELEASED
     * (unless already LOST) and the caller then deletes the node ({@link #deleteNode()}).
     */
    boolean dropHold() {
        if (!holds.drop()) {
            return false; // more holds remain, or a handle released after releaseAll()
        }
        // RELEASED before the delete, so the node-deleted event that follows is not taken as a loss.
        if (transition(LeaseState.RELEASED, "released by the holder", null)) {
            rt.stats.releases.increment();
        }
        return true;
    }

    /**
     * Deletes the node on the caller's thread with ZooKeeper's synchronous call: the answer wakes
     * the caller directly, with no hop through ZooKeeper's event thread. If the connection fails
     * meanwhile (the client gives a request up within its read timeout, two thirds of the
     * session timeout), the delete goes on in the background.
     */
    void deleteNode() {
        try {
            rt.zk.deleteSync(nodePath());
            return;
        } catch (KeeperException.NoNodeException e) {
            return; // gone already: the session expired, or max-hold or an operator removed it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn(
                    "release of lock '{}' (token {}) not confirmed ({}); deleting {} in the background",
                    lockName,
                    token,
                    e.toString(),
                    nodePath());
        }
        rt.reaper.delete(nodePath());
    }

    /** Releases the lock whatever the number of holds, deleting in the background (client close, interrupts). */
    CompletableFuture<Boolean> releaseAll() {
        // Holds to 0 first, so a re-entrant holdAgain() racing this fails and acquires anew,
        // and RELEASED whatever that race did: the node is deleted next.
        holds.clear();
        if (transition(LeaseState.RELEASED, "released by the holder", null)) {
            rt.stats.releases.increment();
        }
        return rt.reaper.delete(nodePath());
    }

    /** The connection is suspended: the session may be expiring right now. */
    void suspend() {
        if (transition(LeaseState.HELD, LeaseState.SUSPECT)) {
            rt.observers.suspected(lockName);
        }
    }

    /**
     * The client reconnected with session {@code currentSession}. Back to HELD only if it is still
     * our session and our node is still there; a different session means ours expired.
     */
    void resume(long currentSession) {
        if (state.isFinal()) {
            return;
        }
        if (currentSession != sessionId) {
            lose(SESSION_EXPIRED, "ZooKeeper session 0x" + Long.toHexString(sessionId) + " expired");
            return;
        }
        armOwnNodeWatch(true);
    }

    /** The lease is over without a release; also deletes our node so the next waiter goes sooner. */
    void lose(LockObserver.LossCause cause, String reason) {
        if (transition(LeaseState.LOST, reason, cause)) {
            rt.stats.leasesLost.increment();
            log.warn("lease on lock '{}' (token {}) lost: {}", lockName, token, reason);
            // The node is ours alone (GUID in its name). If the session is really gone this finds
            // nothing; if only the client gave up on it (Curator LOST), this frees the queue
            // before the servers expire the old session.
            rt.reaper.delete(nodePath());
        }
    }

    @Override
    public void renew() {
        if (maxHold == null) {
            throw new IllegalStateException("lease on lock '" + lockName + "' (token " + token
                    + ") has no max-hold to renew; acquire with FencedLock.withMaxHold(...)");
        }
        scheduleMaxHold();
    }

    @Override
    public void checkNotFinal() {
        LeaseState s = state;
        if (s.isFinal()) {
            throw new LeaseLostException(lockName, token, s, endReason);
        }
    }

    @Override
    public void addListener(Lease lease, LeaseListener listener) {
        listeners.add(new Registration(lease, listener));
    }

    @Override
    public void removeListener(LeaseListener listener) {
        listeners.removeIf(r -> r.listener == listener);
    }

    /** A move between live states (HELD ⇄ SUSPECT); false if the state was not {@code expected}. */
    private synchronized boolean transition(LeaseState expected, LeaseState to) {
        if (state != expected) {
            return false;
        }
        state = to;
        notifyListeners(expected, to);
        return true;
    }

    /** Moves to a final state from any live one; false if the grant had already ended. */
    private boolean transition(LeaseState to, String reason, LockObserver.LossCause cause) {
        synchronized (this) {
            LeaseState from = state;
            if (from.isFinal()) {
                return false;
            }
            endReason = reason;
            state = to;
            ScheduledFuture<?> timer = maxHoldTimer;
            if (timer != null) {
                timer.cancel(false);
            }
            notifyListeners(from, to);
            // In place: ended()'s stages hop to the event thread, queued after the listeners' task.
            ended.complete(to);
        }
        rt.registry.remove(this);
        rt.observers.ended(lockName, System.nanoTime() - grantedAtNanos, to, cause);
        return true;
    }

    /** Under the monitor: the snapshot's task is queued in the order the changes happened. */
    private void notifyListeners(LeaseState from, LeaseState to) {
        if (listeners.isEmpty()) {
            return;
        }
        List<Registration> snapshot = List.copyOf(listeners);
        execute(() -> {
            for (Registration r : snapshot) {
                try {
                    r.listener.stateChanged(r.lease, from, to);
                } catch (RuntimeException e) {
                    log.error("lease listener failed on lock '{}' ({} -> {})", lockName, from, to, e);
                }
            }
        });
    }

    /** Runs on the event thread; directly if the client is closing and the thread is gone. */
    private void execute(Runnable task) {
        try {
            rt.events.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /**
     * (Re)starts the max-hold timer. Under the monitor with the end, so a renew racing the end
     * either schedules before it (and the end cancels the timer) or sees it and fails.
     *
     * @throws LeaseLostException if the lease has ended
     */
    private synchronized void scheduleMaxHold() {
        checkNotFinal();
        ScheduledFuture<?> previous = maxHoldTimer;
        if (previous != null) {
            previous.cancel(false);
        }
        deadline = rt.clock.instant().plus(maxHold);
        maxHoldTimer = rt.scheduler.schedule(
                () -> lose(MAX_HOLD, "max-hold of " + maxHold.toMillis() + " ms passed without renew or release"),
                maxHold.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /**
     * Reads the grant's own node with a watch on it: gone means LOST. With {@code resume}, the node
     * found there turns a SUSPECT lease HELD again. A connection problem leaves things as they
     * are: SUSPENDED/RECONNECTED come round again and call {@link #resume}.
     */
    private void armOwnNodeWatch(boolean resume) {
        ownNodeWatched = true;
        rt.zk.watchData(nodePath(), ownNodeWatcher).whenComplete((content, e) -> {
            if (e == null) {
                if (resume) {
                    transition(LeaseState.SUSPECT, LeaseState.HELD);
                }
            } else if (Failures.is(e, KeeperException.Code.NONODE)) {
                lose(NODE_DELETED, "queue node " + nodePath() + " was deleted by someone else");
            } else if (Failures.isSessionGone(e)) {
                lose(SESSION_EXPIRED, "ZooKeeper session 0x" + Long.toHexString(sessionId) + " expired");
            }
        });
    }

    private void onOwnNodeEvent(WatchedEvent event) {
        switch (event.getType()) {
            case NodeDeleted -> lose(NODE_DELETED, "queue node " + nodePath() + " was deleted by someone else");
            case None -> {
                if (event.getState() == Watcher.Event.KeeperState.Expired) {
                    lose(SESSION_EXPIRED, "ZooKeeper session 0x" + Long.toHexString(sessionId) + " expired");
                }
            }
            default -> {
                if (!state.isFinal()) {
                    armOwnNodeWatch(false);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "Grant{lock=" + lockName + ", token=" + token + ", node=" + nodeName + ", state=" + state + "}";
    }
}
