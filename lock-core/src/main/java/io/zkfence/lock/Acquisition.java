package io.zkfence.lock;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.lock.internal.CuratorClosedException;
import io.zkfence.lock.internal.Failures;
import io.zkfence.lock.internal.ZkGateway;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire call's way through the queue: a state machine driven by ZooKeeper's answers. The
 * phases, and what moves between them (docs/lock-core.md, "How it works", draws it):
 *
 * <pre>
 * NEW ──start──▶ PRECHECK (try only) ──queue empty──▶ CREATING
 *  │                 └──someone queued──▶ DONE (not acquired)
 *  └──start──▶ CREATING ──created + queue read──▶ decide
 *                 │ answer lost ──▶ RECOVERING ──our GUID found──▶ decide
 *                 │                      └──not found──▶ CREATING (same GUID)
 *                 └ lock znode missing ──▶ (create it) ──▶ CREATING
 * decide: head ──▶ DONE (granted) · absent ──▶ BACKING_OFF ──▶ CREATING (new GUID)
 *         waiting ──▶ WATCHING ──predecessor gone──▶ DONE (nothing can be ahead) or READING ──▶ decide
 *                        ▲                         or, in a long queue, CHECKING ──record names it──▶ DONE
 *                        └──────── the next entry ahead ◀───────────────────┴──otherwise──▶ READING
 * any phase: connection loss ──▶ BACKING_OFF ──▶ the same step again; session gone ──▶ BACKING_OFF
 *            ──▶ CREATING (new GUID); other error, abandon, cancel ──▶ DONE
 * </pre>
 *
 * <ol>
 * <li>Enqueue: an EPHEMERAL_SEQUENTIAL create named with a fresh GUID, and, without waiting for
 *     its answer, a read of the lock's children. ZooKeeper answers one session's requests in
 *     order, so the read already contains our node: an uncontended acquire costs one write
 *     round trip.</li>
 * <li>Decide ({@link QueuePosition}): the head holds the lock. Otherwise watch only the
 *     immediate predecessor, so a release wakes exactly one waiter, and remember the nearest
 *     entries ahead ({@link Ahead}).</li>
 * <li>When the predecessor goes: if nothing can be ahead any more (it was the head when we read
 *     the queue), we are the head now (nodes before it are gone for good and later ones sort
 *     after us), so take the lock without reading the children again. In a short queue, read
 *     them again. In a long one (more than {@link Ahead#WINDOW} children), read instead the lock's
 *     {@link ReleaseRecord} and our own node, pipelined: a record naming the predecessor (or an
 *     entry before it) means it was granted and released, so nothing is ahead; otherwise it went
 *     without releasing (gave up, expired, forced out), and the next remembered entry ahead is
 *     watched if it is there, the children read if not.</li>
 * </ol>
 *
 * <p>A create whose answer was lost is recovered by looking for our GUID among the children,
 * so a connection loss neither leaves an orphan nor enqueues twice. A session expiry while
 * waiting (our node went with it) enqueues again with a new GUID.
 *
 * <p><b>The phase decides.</b> State is guarded by this object's monitor, and the phase changes
 * only through {@link #moveTo}, which refuses an edge the diagram does not have: nothing leaves
 * DONE, so an acquisition that has answered (granted, failed, or a try that found the lock taken)
 * never queues again. Every request is sent in a {@link Step} (the attempt's generation and the
 * phase); its answer, watch event or timer runs through {@link #on} / {@link #later}, which take
 * the monitor and drop it unless the acquisition is still in that step; a throw inside fails the
 * acquisition. The generation tells a restarted attempt (a new queue node) from the one before;
 * the phase tells an answer that came after the acquisition moved on. What the acquisition
 * ended with is decided as the phase turns DONE (the grant, for {@link #abandon()}); removing the
 * nodes it leaves has its own future ({@link #cleanedUp()}), which a try that found the lock
 * taken waits for before it answers.
 *
 * <p><b>Futures complete outside the monitor.</b> {@code result} and {@code firstAttempt} are
 * completed only once the monitor is released (see {@link #locked}), by the thread that ended the
 * acquisition: ZooKeeper's event thread (an answer or a watch event), the client's timer (a
 * back-off), its I/O pool (creating the lock's znode), a caller that gave up ({@link #abandon()})
 * or the closing thread ({@link #cancel()}). So what depends on them (a {@link Cohort}'s
 * {@code onNode}, which takes the cohort's monitor) never runs while this monitor is held, and no
 * lock order between the two has to be argued.
 */
final class Acquisition {

    /** Where the acquisition stands; see the class comment. */
    enum Phase {
        NEW,
        PRECHECK,
        CREATING,
        RECOVERING,
        READING,
        WATCHING,
        CHECKING,
        BACKING_OFF,
        DONE;

        /** Whether the diagram has an edge from {@code from} to this phase. */
        boolean mayFollow(Phase from) {
            return switch (this) {
                case NEW -> false;
                case PRECHECK -> from == NEW || from == BACKING_OFF;
                // Again from CREATING: the lock's znode was missing and has been created.
                case CREATING ->
                    from == NEW || from == PRECHECK || from == CREATING || from == RECOVERING || from == BACKING_OFF;
                case RECOVERING -> from == BACKING_OFF;
                case READING ->
                    from == CREATING || from == READING || from == WATCHING || from == CHECKING || from == BACKING_OFF;
                // Again from WATCHING: the predecessor changed but is still there. From CHECKING: the
                // next entry ahead, once the watched one went without releasing.
                case WATCHING -> from == READING || from == RECOVERING || from == WATCHING || from == CHECKING;
                case CHECKING -> from == WATCHING;
                case BACKING_OFF -> from != NEW && from != DONE;
                case DONE -> from != DONE;
            };
        }
    }

    /** When a request was sent: its answer counts only while the acquisition is still there. */
    private record Step(int generation, Phase phase) {}

    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

    static final Duration FIRST_BACKOFF = Duration.ofMillis(20);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(1);
    private static final Backoff BACKOFF = Backoff.exponential(FIRST_BACKOFF, MAX_BACKOFF);

    private final LockRuntime rt;
    private final String lockName;
    private final String lockPath;
    private final boolean tryOnly;
    private final Duration maxHold;
    private final Thread owner;
    private final byte[] data;
    /** The grant, or null for a try that found the lock taken; completed as the phase turns DONE. */
    private final CompletableFuture<Grant> result = new CompletableFuture<>();
    /** Done once the queue has been read after our create (or the acquisition ended): one full attempt. */
    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    // Guarded by this; the phase is also read without the monitor (metrics gauges, isWaiting).
    private volatile Phase phase = Phase.NEW;
    /** Bumped by every new attempt (a new queue node): an answer carrying an older one is stale. */
    private int generation;
    /** Confirms that the nodes this acquisition made are gone; set as it turns DONE. */
    private CompletableFuture<Boolean> cleanedUp = CompletableFuture.completedFuture(true);
    /** The grant it ended with, once DONE; null for a failure, a cancel or a try that found the lock taken. */
    private Grant granted;
    /** The future completions owed once the monitor is released (see {@link #locked}). */
    private Runnable owed;
    /** Frames of this monitor on the stack of the thread that holds it; the outermost pays what is owed. */
    private int depth;

    private String guid;
    private QueueNode own;
    private long token;
    private long session;
    private String watchedPath;
    private Watcher watcher;
    /** The entries ahead of our node, as far as we know, while we wait; see {@link Ahead}. */
    private Ahead ahead;
    /** Retries since the last success: the next back-off is {@code BACKOFF}'s for one more. */
    private int retries;
    /** For {@link LockObserver#granted}: when the first request went out. */
    private long startedNanos;
    // Read without the monitor by metrics gauges (LockClientMetrics); written under it.
    /** When a queue read first found someone ahead of us; 0 while we never waited. */
    private volatile long waitingSinceNanos;
    /** The queue's length (the lock's children) at our last read of it. */
    private volatile int queueLength;

    Acquisition(LockRuntime rt, String lockName, String lockPath, boolean tryOnly, Duration maxHold, Thread owner) {
        this.rt = rt;
        this.lockName = lockName;
        this.lockPath = lockPath;
        this.tryOnly = tryOnly;
        this.maxHold = maxHold;
        this.owner = owner;
        this.data = NodeData.encode(rt.config.ownerId(), rt.clock.millis());
        result.whenComplete((g, e) -> firstAttempt.complete(null));
    }

    CompletableFuture<Grant> result() {
        return result;
    }

    /**
     * Completes when the first attempt has been decided: our node is created and the queue read
     * after it, so we either hold the lock or know whom we wait for (or the acquisition ended).
     * A timed acquire waits for this before its clock counts, so a free lock is granted at any
     * timeout, as Curator's mutex and {@code Lock.tryLock(0, unit)} do.
     */
    CompletableFuture<Void> firstAttempt() {
        return firstAttempt;
    }

    Phase phase() {
        return phase;
    }

    /**
     * Completes once the queue nodes this acquisition made are gone: true when ZooKeeper confirmed
     * it, false when the reaper gave up (they then go with their session). Already complete until
     * the acquisition ends, and after one that ended with a grant (the grant owns its node).
     */
    synchronized CompletableFuture<Boolean> cleanedUp() {
        return cleanedUp;
    }

    String lockName() {
        return lockName;
    }

    /** Whether this acquisition is queued behind another node right now. */
    boolean isWaiting() {
        return waitingSinceNanos != 0 && phase != Phase.DONE;
    }

    /** The lock's queue length at this acquisition's last read of it (its own node included). */
    int queueLength() {
        return queueLength;
    }

    String lockPath() {
        return lockPath;
    }

    // ---- entry points (callers' and Curator's threads) ----

    /** Sends the first request; does nothing if the acquisition was cancelled before it started. */
    void start() {
        locked(() -> {
            if (phase != Phase.NEW) {
                return null; // cancelled (client closing) or abandoned before it began: send nothing
            }
            startedNanos = System.nanoTime();
            if (tryOnly) {
                precheck();
            } else {
                enqueue();
            }
            return null;
        });
    }

    /**
     * The caller gave up (timeout, interrupt). Removes our node; returns the grant if it was made
     * before the caller gave up (the caller then owns it), else null.
     */
    Grant abandon() {
        return locked(() -> {
            if (phase == Phase.DONE) {
                return granted;
            }
            end();
            owe(() -> result.cancel(false));
            return null;
        });
    }

    /**
     * The client is closing: wakes the caller with {@link LockClientClosedException}. The future
     * tells when the queue node is confirmed gone (true), or that the reaper gave up on it (false).
     */
    CompletableFuture<Boolean> cancel() {
        return locked(() -> {
            if (phase == Phase.DONE) {
                return cleanedUp;
            }
            CompletableFuture<Boolean> cleaned = end();
            LockClientClosedException closed =
                    new LockClientClosedException(lockName, "lock client closed while acquiring '" + lockName + "'");
            owe(() -> result.completeExceptionally(closed));
            return cleaned;
        });
    }

    /**
     * Curator gave the session up (LOST): our node is gone or going, so queue again. An
     * acquisition that has answered (DONE) or not begun (NEW) has nothing to queue again.
     */
    void sessionLost() {
        guarded(() -> {
            if (phase != Phase.DONE && phase != Phase.NEW) {
                restart("the ZooKeeper session was lost");
            }
        });
    }

    /** Reconnected with session {@code currentSession}; a different one means our node is gone. */
    void reconnected(long currentSession) {
        guarded(() -> {
            if (phase != Phase.DONE && own != null && currentSession != session) {
                restart("reconnected with another ZooKeeper session");
            }
        });
    }

    // ---- PRECHECK: a try-acquire writes nothing if anyone is queued ----

    private void precheck() {
        moveTo(Phase.PRECHECK);
        rt.stats.childrenReads.increment();
        rt.zk.children(lockPath).whenComplete(on(step(), (kids, e) -> {
            if (e == null && QueuePosition.anyEntry(kids)) {
                settle(null);
            } else if (e == null || Failures.is(e, KeeperException.Code.NONODE)) {
                enqueue();
            } else {
                onFailure(e, "the pre-check", this::precheck);
            }
        }));
    }

    // ---- CREATING ----

    private void enqueue() {
        generation++;
        guid = rt.guids.next();
        own = null;
        sendCreate();
    }

    private void sendCreate() {
        moveTo(Phase.CREATING);
        String createGuid = guid;
        rt.stats.creates.increment();
        rt.stats.childrenReads.increment();
        CompletableFuture<ZkGateway.Created> created =
                rt.zk.create(lockPath + "/" + QueueNode.createName(createGuid), data, CreateMode.EPHEMERAL_SEQUENTIAL);
        // Sent before the create is answered: see the class comment.
        CompletableFuture<List<String>> kids = rt.zk.children(lockPath);
        created.whenComplete(on(step(), (c, e) -> onCreated(c, e, kids), (c, e) -> dropStaleCreate(createGuid, c, e)));
    }

    private void onCreated(ZkGateway.Created c, Throwable e, CompletableFuture<List<String>> kids) {
        if (e != null) {
            if (Failures.is(e, KeeperException.Code.NONODE)) {
                createLockNodeThenEnqueue();
            } else if (Failures.isConnectionProblem(e)) {
                // Applied or not? Only the children can tell: look for our GUID.
                backOff(e, "the create", this::findOwnNode);
            } else {
                onFailure(e, "the create", null);
            }
            return;
        }
        QueueNode node = QueueNode.parse(c.nodeName())
                .orElseThrow(() -> new IllegalStateException("unexpected queue node name " + c.nodeName()));
        enqueued(node, c.stat());
        moveTo(Phase.READING);
        kids.whenComplete(on(step(), (list, e2) -> {
            if (e2 == null && list.contains(node.name())) {
                decide(list);
            } else {
                // The read overtook a retried create or failed: read again, after the create.
                readChildren();
            }
        }));
    }

    /** An answer to a create of an attempt that is over: whatever it made must not stay. */
    private void dropStaleCreate(String createGuid, ZkGateway.Created c, Throwable e) {
        if (c != null) {
            rt.reaper.delete(lockPath + "/" + c.nodeName());
        } else if (e != null && Failures.isConnectionProblem(e)) {
            rt.reaper.deleteCreatedBy(lockPath, createGuid);
        }
    }

    /** Our node is known: its creation zxid is the token, its owner the session the lease lives on. */
    private void enqueued(QueueNode node, Stat stat) {
        own = node;
        token = stat.getCzxid();
        session = stat.getEphemeralOwner();
        retries = 0;
    }

    private void createLockNodeThenEnqueue() {
        execute(
                () -> {
                    try {
                        rt.zk.createContainers(lockPath);
                        return null;
                    } catch (Exception e) {
                        return e;
                    }
                },
                failure -> {
                    if (failure == null) {
                        sendCreate();
                    } else if (Failures.is(failure, KeeperException.Code.NONODE)) {
                        // A parent container, found empty, was removed by ZooKeeper's container
                        // reaper between Curator's creating the parents and the lock's znode:
                        // create them again.
                        backOff(failure, "creating the lock's znode", this::createLockNodeThenEnqueue);
                    } else {
                        onFailure(failure, "creating the lock's znode", this::createLockNodeThenEnqueue);
                    }
                });
    }

    // ---- RECOVERING: a create whose answer was lost ----

    /** Adopts our node if it exists, else creates again with the same GUID. */
    private void findOwnNode() {
        moveTo(Phase.RECOVERING);
        rt.stats.childrenReads.increment();
        rt.zk.children(lockPath).whenComplete(on(step(), (kids, e) -> {
            if (e != null) {
                if (Failures.is(e, KeeperException.Code.NONODE)) {
                    sendCreate();
                } else {
                    onFailure(e, "the recovery read", this::findOwnNode);
                }
                return;
            }
            List<QueueNode> mine = QueuePosition.queue(kids).stream()
                    .filter(n -> n.guid().equals(guid))
                    .toList();
            if (mine.isEmpty()) {
                sendCreate();
                return;
            }
            // ZooKeeper fences a moved session's late requests, so there should be one; if a
            // duplicate ever appears, keep the first and drop the rest.
            mine.stream().skip(1).forEach(n -> rt.reaper.delete(lockPath + "/" + n.name()));
            QueueNode node = mine.get(0);
            own = node;
            rt.zk.getData(lockPath + "/" + node.name()).whenComplete(on(step(), (content, e2) -> {
                if (e2 == null && content.stat().getEphemeralOwner() == rt.zk.sessionId()) {
                    enqueued(node, content.stat());
                    decide(kids);
                } else if (e2 == null || Failures.is(e2, KeeperException.Code.NONODE)) {
                    // Gone, or made by a session that is no longer ours (it goes with that
                    // session, and restart() deletes it now): queue again.
                    restart("the created queue node is gone or belongs to an earlier session");
                } else {
                    onFailure(e2, "the recovery read", this::findOwnNode);
                }
            }));
        }));
    }

    // ---- READING, WATCHING ----

    private void readChildren() {
        moveTo(Phase.READING);
        rt.stats.childrenReads.increment();
        rt.zk.children(lockPath).whenComplete(on(step(), (kids, e) -> {
            if (e == null) {
                decide(kids);
            } else if (Failures.is(e, KeeperException.Code.NONODE)) {
                restart("the lock's znode is gone, and our queue node with it");
            } else {
                onFailure(e, "the queue read", this::readChildren);
            }
        }));
    }

    private void decide(List<String> kids) {
        if (!firstAttempt.isDone()) {
            owe(() -> firstAttempt.complete(null));
        }
        queueLength = kids.size();
        QueuePosition position = QueuePosition.of(kids, own);
        switch (position.kind()) {
            case ABSENT -> restart("our queue node is gone");
            case HEAD -> grant();
            case WAITING -> {
                if (tryOnly) {
                    giveUpTry();
                } else {
                    if (waitingSinceNanos == 0) {
                        waitingSinceNanos = System.nanoTime();
                    }
                    ahead = position.ahead();
                    watchPredecessor(false);
                }
            }
        }
    }

    /**
     * Reads the nearest entry ahead that is not known gone, with a watch on it. A {@code probe} is
     * sent because the one watched before went without a release record that settles the queue:
     * found gone as well, the queue is read again.
     */
    private void watchPredecessor(boolean probe) {
        moveTo(Phase.WATCHING);
        Step step = step();
        String path = lockPath + "/" + ahead.predecessor().name();
        Watcher w = event -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                rt.stats.wakeUps.increment();
                rt.observers.wokeUp(lockName);
            }
            later(step, () -> onPredecessorEvent(event));
        };
        watchedPath = path;
        watcher = w;
        if (probe) {
            rt.stats.queueChecks.increment();
        }
        rt.zk.getData(path, w).whenComplete(on(step, (content, e) -> {
            if (e == null) {
                retries = 0;
            } else if (Failures.is(e, KeeperException.Code.NONODE)) {
                watchedPath = null;
                predecessorGone(probe);
            } else {
                onFailure(e, "watching the predecessor", this::readChildren);
            }
        }));
    }

    private void onPredecessorEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            // Disconnected / reconnected: the client restores the watch. Expired: our node is gone.
            if (event.getState() == Watcher.Event.KeeperState.Expired) {
                restart("the ZooKeeper session expired");
            }
            return;
        }
        watchedPath = null;
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            predecessorGone(false);
        } else {
            watchPredecessor(false);
        }
    }

    /**
     * The entry we watched is gone. Nothing can be ahead any more: the lock is ours, without a read.
     * Else, in a short queue, read it again (its list costs no more than the checks below); in a long
     * one, check the lock's release record instead ({@link #checkLastRelease()}). After a probe that
     * found the next entry gone too, read the queue.
     */
    private void predecessorGone(boolean foundByProbe) {
        ahead = ahead.withoutPredecessor();
        if (ahead.isClear()) {
            // Granted without reading the queue, so nothing has shown our own node is still
            // there (an operator may have deleted it while we waited): watch it right away.
            Grant g = grant();
            if (g != null) {
                g.watchOwnNodeNow();
            }
        } else if (foundByProbe || queueLength <= Ahead.WINDOW) {
            readChildren();
        } else {
            checkLastRelease();
        }
    }

    // ---- CHECKING: a long queue's wake-up without its child list ----

    /**
     * Reads the lock's {@link ReleaseRecord} and, pipelined behind it, our own node: one round trip
     * of two small reads whatever the queue's length. A record naming the entry that went (or one
     * before it) proves every entry ahead gone, and our node found there makes the grant as sound as
     * a read of the queue would. Otherwise the entry went without releasing (it gave up, its session
     * expired, it was forced out): watch the next one ahead if there is one, else read the queue.
     */
    private void checkLastRelease() {
        moveTo(Phase.CHECKING);
        rt.stats.queueChecks.add(2);
        CompletableFuture<ZkGateway.NodeContent> record = rt.zk.getData(lockPath);
        CompletableFuture<ZkGateway.NodeContent> mine = rt.zk.getData(lockPath + "/" + own.name());
        CompletableFuture.allOf(record, mine).handle((v, e) -> null).whenComplete(on(step(), (v, e) -> {
            Throwable recordFailure = failureOf(record);
            Throwable mineFailure = failureOf(mine);
            if (recordFailure == null && mineFailure == null) {
                ahead = ReleaseRecord.decode(record.join().data())
                        .map(ahead::releasedThrough)
                        .orElse(ahead);
                if (ahead.isClear()) {
                    grant();
                } else if (ahead.isEmpty()) {
                    readChildren();
                } else {
                    watchPredecessor(true);
                }
            } else if (Failures.is(mineFailure, KeeperException.Code.NONODE)) {
                restart("our queue node is gone");
            } else if (Failures.is(recordFailure, KeeperException.Code.NONODE)) {
                restart("the lock's znode is gone, and our queue node with it");
            } else {
                onFailure(
                        recordFailure != null ? recordFailure : mineFailure, "checking the queue", this::readChildren);
            }
        }));
    }

    /** The failure {@code f} completed with, or null; {@code f} is complete. */
    private static Throwable failureOf(CompletableFuture<?> f) {
        return f.handle((v, e) -> e).join();
    }

    // ---- DONE ----

    /**
     * Makes the grant and hands it to the caller. Every step that can fail (the gateway, the
     * max-hold timer on a closing client) comes before the future completes, and a failure
     * completes it exceptionally and removes our node: the caller never waits for a grant that
     * was not made. Null if it failed.
     */
    private Grant grant() {
        Grant g = null;
        try {
            g = new Grant(rt, lockName, lockPath, own, token, session, owner, maxHold);
            rt.registry.add(g);
            if (!rt.zk.isConnected()) {
                // A SUSPENDED event that came before the registry knew this grant did not reach it.
                g.suspend();
            }
            // Before the caller sees the lease: its max-hold deadline must already run.
            g.activate();
        } catch (RuntimeException | Error e) {
            if (g != null) {
                g.abort();
            }
            fail(e);
            return null;
        }
        rt.stats.grants.increment();
        long now = System.nanoTime();
        long waitingSince = waitingSinceNanos;
        rt.observers.granted(lockName, now - startedNanos, waitingSince == 0 ? -1 : now - waitingSince);
        own = null; // the grant owns the node now: ending must not delete it
        guid = null;
        settle(g);
        return g;
    }

    /**
     * try-acquire that was not the head: "not acquired". The answer is final at once; the caller
     * waits for {@link #cleanedUp()} too, so that no node of the try is left when it returns.
     */
    private void giveUpTry() {
        settle(null);
    }

    /** Ends with {@code grant} (null: a try found the lock taken). */
    private void settle(Grant grant) {
        end();
        granted = grant;
        owe(() -> result.complete(grant));
    }

    /** Ends with an error: transient ones are retried elsewhere, so this one is final. */
    private void fail(Throwable e) {
        Throwable cause = Failures.unwrap(e);
        LockException failure;
        if (cause instanceof CuratorClosedException curatorClosed) {
            failure = new LockClientClosedException(
                    lockName, curatorClosed.getMessage() + " (acquiring lock '" + lockName + "')", curatorClosed);
        } else if (rt.isClosing()) {
            failure = new LockClientClosedException(
                    lockName, "lock client closed while acquiring '" + lockName + "'", cause);
        } else {
            KeeperException.Code code = Failures.code(e);
            failure = new CoordinationException(
                    lockName,
                    (code == null
                                    ? "acquiring lock '" + lockName + "' failed: "
                                    : "ZooKeeper refused acquiring lock '" + lockName + "' at " + lockPath + " (" + code
                                            + "): ")
                            + cause.getMessage(),
                    cause);
            if (code == null) {
                log.error("acquiring lock '{}' failed unexpectedly", lockName, cause);
            }
        }
        end();
        owe(() -> result.completeExceptionally(failure));
    }

    /** Moves to DONE: no answer of this acquisition counts any more; removes our node and watch. */
    private CompletableFuture<Boolean> end() {
        moveTo(Phase.DONE);
        cleanedUp = cleanUp();
        return cleanedUp;
    }

    // ---- failures and back-off ----

    private void onFailure(Throwable e, String what, Runnable retry) {
        if (Failures.isSessionGone(e)) {
            restart("the ZooKeeper session is gone (" + Failures.unwrap(e) + ")");
        } else if (retry != null && Failures.isConnectionProblem(e)) {
            backOff(e, what, retry);
        } else {
            fail(e);
        }
    }

    /** Runs {@code task} after a back-off, unless the acquisition moved on; a changed session starts over. */
    private void backOff(Throwable cause, String what, Runnable task) {
        moveTo(Phase.BACKING_OFF);
        long delayMs = BACKOFF.delay(++retries).toMillis();
        rt.retries.retrying(lockName, what, cause, delayMs);
        Step step = step();
        schedule(
                delayMs,
                () -> later(step, () -> {
                    if (own != null && rt.zk.sessionId() != session) {
                        restart("the ZooKeeper session changed while retrying " + what);
                    } else {
                        task.run();
                    }
                }));
    }

    /**
     * Our session is gone, or our node is: drop what we had and queue again with a new GUID, as a
     * new attempt (the generation moves on, so nothing of the old one counts).
     */
    private void restart(String why) {
        cleanUp();
        moveTo(Phase.BACKING_OFF);
        generation++;
        long delayMs = BACKOFF.delay(++retries).toMillis();
        rt.retries.retrying(lockName, "queueing (with a new queue node)", why, delayMs);
        Step step = step();
        schedule(delayMs, () -> later(step, this::enqueue));
    }

    /** Removes our node (or whatever our in-flight create made) and our watch. */
    private CompletableFuture<Boolean> cleanUp() {
        CompletableFuture<Boolean> cleaned = CompletableFuture.completedFuture(true);
        if (own != null) {
            cleaned = rt.reaper.delete(lockPath + "/" + own.name());
        } else if (guid != null) {
            cleaned = rt.reaper.deleteCreatedBy(lockPath, guid);
        }
        own = null;
        guid = null;
        if (watchedPath != null) {
            rt.zk.removeWatch(watchedPath, watcher);
            watchedPath = null;
            watcher = null;
        }
        return cleaned;
    }

    // ---- the guard ----

    /** A callback for one answer from ZooKeeper. */
    private interface Answer<T> {
        void accept(T value, Throwable failure);
    }

    /**
     * The one way the phase changes.
     *
     * @throws IllegalStateException for an edge the class comment's diagram does not have (under
     *                               the guard, that fails the acquisition; nothing leaves DONE)
     */
    private void moveTo(Phase to) {
        Phase from = phase;
        if (!to.mayFollow(from)) {
            throw new IllegalStateException(
                    "acquisition of lock '" + lockName + "' cannot move from " + from + " to " + to);
        }
        phase = to;
    }

    /** Where the acquisition stands now: a request sent now is answered into this step. */
    private Step step() {
        return new Step(generation, phase);
    }

    /** {@code body} for an answer to a request sent in {@code step}: under the monitor, dropped if stale. */
    private <T> BiConsumer<T, Throwable> on(Step step, Answer<T> body) {
        return on(step, body, (v, e) -> {});
    }

    /** As {@link #on(Step, Answer)}, with {@code ifStale} run (under the monitor) for a stale answer. */
    private <T> BiConsumer<T, Throwable> on(Step step, Answer<T> body, Answer<T> ifStale) {
        return (value, failure) -> guarded(() -> {
            if (stale(step)) {
                ifStale.accept(value, failure);
            } else {
                body.accept(value, failure);
            }
        });
    }

    /** {@code body} for a watch event or a timer set in {@code step}: under the monitor, dropped if stale. */
    private void later(Step step, Runnable body) {
        guarded(() -> {
            if (!stale(step)) {
                body.run();
            }
        });
    }

    /** Runs {@code body} under the monitor; whatever it throws fails this acquisition. */
    private void guarded(Runnable body) {
        locked(() -> {
            try {
                body.run();
            } catch (RuntimeException | Error e) {
                if (phase != Phase.DONE) {
                    fail(e);
                }
            }
            return null;
        });
    }

    /**
     * The one way into the monitor: runs {@code body} under it, then, once the monitor is released,
     * completes the futures the body owes ({@link #owe}). A frame nested in another of this monitor
     * (an answer that came synchronously while a request was being sent) leaves them to the
     * outermost one, so they never run with the monitor held.
     */
    private <T> T locked(Supplier<T> body) {
        Runnable due = null;
        try {
            synchronized (this) {
                depth++;
                try {
                    return body.get();
                } finally {
                    if (--depth == 0) {
                        due = owed;
                        owed = null;
                    }
                }
            }
        } finally {
            if (due != null) {
                due.run();
            }
        }
    }

    /** Under the monitor: {@code completion} runs once the monitor is released (see {@link #locked}). */
    private void owe(Runnable completion) {
        Runnable before = owed;
        owed = before == null
                ? completion
                : () -> {
                    before.run();
                    completion.run();
                };
    }

    /** Over, or moved on since {@code step}: a new attempt, or another phase of this one. */
    private boolean stale(Step step) {
        return phase == Phase.DONE || step.generation() != generation || step.phase() != phase;
    }

    /** Runs blocking {@code work} on the I/O pool, then {@code then} with its outcome under the guard. */
    private <T> void execute(Supplier<T> work, Consumer<T> then) {
        Step step = step();
        try {
            rt.io.execute(() -> {
                T outcome = work.get();
                later(step, () -> then.accept(outcome));
            });
        } catch (RejectedExecutionException closing) {
            fail(new IllegalStateException("the lock client is closed", closing));
        }
    }

    /** Runs {@code task} after {@code delayMs} on the timer; a closing client fails the acquisition. */
    private void schedule(long delayMs, Runnable task) {
        try {
            rt.scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            fail(new IllegalStateException("the lock client is closed", closing));
        }
    }
}
