package io.zkfence.lock;

import static io.zkfence.lock.LockObserver.LossCause.MAX_HOLD;
import static io.zkfence.lock.LockObserver.LossCause.NODE_DELETED;
import static io.zkfence.lock.LockObserver.LossCause.OTHER;
import static io.zkfence.lock.LockObserver.LossCause.SESSION_EXPIRED;

import io.zkfence.lock.internal.Failures;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
 * the order they happened, and a renew that races the end cannot leave a timer behind. What a
 * hold does the same way as a cohort's turn (re-entrant holds, renew, the max-hold clock) is
 * {@link Hold}'s; the node is deleted when the last hold is released.
 */
final class Grant extends Hold {

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
    private final LockRuntime rt;

    private final Watcher ownNodeWatcher = this::onOwnNodeEvent;
    private final long grantedAtNanos = System.nanoTime();

    // Written under the monitor, read without it.
    private volatile LeaseState state = LeaseState.HELD;
    private volatile String endReason;
    /** A hint, not state: two threads arming the watch at once cost one read more. */
    private volatile boolean ownNodeWatched;

    Grant(
            LockRuntime rt,
            String lockName,
            String lockPath,
            QueueNode node,
            long token,
            long sessionId,
            Thread owner,
            Duration maxHold) {
        super(rt, lockName, maxHold);
        this.rt = rt;
        this.lockName = lockName;
        this.lockPath = lockPath;
        this.nodeName = node.name();
        this.nodePath = lockPath + "/" + nodeName;
        this.sequence = node.sequence();
        this.token = token;
        this.sessionId = sessionId;
        this.owner = owner;
        this.ttl = Duration.ofMillis(rt.zk.sessionTimeoutMs());
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
    String lockName() {
        return lockName;
    }

    @Override
    long token() {
        return token;
    }

    @Override
    int sequence() {
        return sequence;
    }

    @Override
    Duration ttl() {
        return ttl;
    }

    @Override
    String nodePath() {
        return nodePath;
    }

    @Override
    LeaseState state() {
        return state;
    }

    @Override
    String endReason() {
        return endReason;
    }

    @Override
    void releaseOne() {
        if (dropHold()) {
            deleteNode();
        }
    }

    /**
     * The final state, as a stage: completed on the event thread when the grant ends, or already
     * completed if it has ended (continuations then run on the attaching thread).
     */
    @Override
    CompletionStage<LeaseState> ended() {
        return life.ended(state);
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
     * the caller directly, with no hop through ZooKeeper's event thread. In the same transaction it
     * writes the {@link ReleaseRecord} on the lock's znode, so that a waiter in a long queue learns
     * from one small read that it is the head. If the connection fails meanwhile (the client gives
     * a request up within its read timeout, two thirds of the session timeout), the delete goes on
     * in the background, without the record.
     */
    void deleteNode() {
        try {
            deleteRecordingRelease();
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

    /**
     * The delete with the record; a plain delete once a lock znode has refused the record to this
     * client (its ACL lets the client delete its nodes but not write the lock's znode): waiters
     * then read the queue, as they do behind releases of zkfence versions without the record.
     */
    private void deleteRecordingRelease() throws Exception {
        if (rt.recordsReleases()) {
            try {
                rt.zk.deleteSyncRecording(nodePath(), lockPath, ReleaseRecord.encode(nodeName));
                return;
            } catch (KeeperException.NoAuthException refused) {
                rt.zk.deleteSync(nodePath()); // this one failing too means the delete itself was refused
                rt.stopRecordingReleases();
                log.warn(
                        "the znode of lock '{}' ({}) refuses this client's release record (ACL: no WRITE);"
                                + " releases of this client are plain deletes from now on, and waiters in long"
                                + " queues behind them read the whole queue",
                        lockName,
                        lockPath);
                return;
            }
        }
        rt.zk.deleteSync(nodePath());
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
    void maxHoldPassed() {
        lose(MAX_HOLD, life.maxHoldPassed());
    }

    /** A move between live states (HELD ⇄ SUSPECT); false if the state was not {@code expected}. */
    private synchronized boolean transition(LeaseState expected, LeaseState to) {
        if (state != expected) {
            return false;
        }
        state = to;
        life.tell(expected, to);
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
            life.tell(from, to);
            life.end(to);
        }
        rt.registry.remove(this);
        rt.observers.ended(lockName, System.nanoTime() - grantedAtNanos, to, cause);
        return true;
    }

    /**
     * Reads the grant's own node with a watch on it: gone means LOST. With {@code resume}, the node
     * found there turns a SUSPECT lease HELD again. A connection problem leaves things as they
     * are: SUSPENDED/RECONNECTED come round again and call {@link #resume}.
     */
    private void armOwnNodeWatch(boolean resume) {
        ownNodeWatched = true;
        rt.zk.getData(nodePath(), ownNodeWatcher).whenComplete((content, e) -> {
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
