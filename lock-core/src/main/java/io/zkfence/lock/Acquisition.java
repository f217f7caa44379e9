package io.zkfence.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire call's way through the queue, as a state machine driven by ZooKeeper callbacks.
 *
 * <ol>
 * <li>Enqueue: an EPHEMERAL_SEQUENTIAL create named with a fresh GUID, and, without waiting for
 *     its answer, a read of the lock's children. ZooKeeper answers one session's requests in
 *     order, so the read already contains our node: an uncontended acquire costs one write
 *     round trip.</li>
 * <li>Decide: sorted in queue order, the head holds the lock. Otherwise watch only the
 *     immediate predecessor, so a release wakes exactly one waiter.</li>
 * <li>When the predecessor goes: if it was the head when we read the queue, we are the head now
 *     (nodes before it are gone for good and later ones sort after us), so take the lock
 *     without reading the children again; otherwise read them again.</li>
 * </ol>
 *
 * <p>A create whose answer was lost is recovered by looking for our GUID among the children,
 * so a connection loss neither leaves an orphan nor enqueues twice. A session expiry while
 * waiting (our node went with it) enqueues again with a new GUID.
 *
 * <p>Every callback carries the generation it was issued in; a callback from an older
 * generation (before a restart, after the caller gave up) only cleans up.
 */
final class Acquisition {

    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

    private static final long FIRST_BACKOFF_MS = 20;
    private static final long MAX_BACKOFF_MS = 1_000;

    private final LockRuntime rt;
    private final String lockName;
    private final String lockPath;
    private final boolean tryOnly;
    private final Duration maxHold;
    private final Thread owner;
    private final byte[] data;
    /** The grant, or null for a try that found the lock taken. */
    private final CompletableFuture<Grant> result = new CompletableFuture<>();
    /** Done once the queue has been read after our create (or the acquisition ended): one full attempt. */
    private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

    // Guarded by this.
    private int generation;
    private boolean finished;
    private String guid;
    private long session;
    private QueueNode own;
    private long token;
    private String watchedPath;
    private Watcher watcher;
    private long backoffMs = FIRST_BACKOFF_MS;

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

    synchronized void start() {
        if (tryOnly) {
            precheck();
        } else {
            enqueue();
        }
    }

    /**
     * The caller gave up (timeout, interrupt). Removes our node; returns the grant if it was made
     * before the caller gave up (the caller then owns it), else null.
     */
    synchronized Grant abandon() {
        if (finished) {
            return result.isDone() && !result.isCompletedExceptionally() ? result.getNow(null) : null;
        }
        finish();
        result.cancel(false);
        return null;
    }

    /**
     * The client is closing: wakes the caller with an error. The future tells when the queue node
     * is confirmed gone (true), or that the reaper gave up on it (false).
     */
    synchronized CompletableFuture<Boolean> cancel() {
        if (finished) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> cleaned = finish();
        result.completeExceptionally(new CoordinationException(lockName, "lock client closed while acquiring '"
                + lockName + "'", null));
        return cleaned;
    }

    /** Curator gave the session up (LOST): our node is gone or going, so queue again. */
    synchronized void sessionLost() {
        if (!finished) {
            restart();
        }
    }

    /** Reconnected with session {@code currentSession}; a different one means our node is gone. */
    synchronized void reconnected(long currentSession) {
        if (!finished && own != null && currentSession != session) {
            restart();
        }
    }

    // ---- enqueue ----

    /** try-acquire: if anyone is queued, fail at once without writing anything. */
    private void precheck() {
        int gen = generation;
        rt.stats.childrenReads.increment();
        rt.zk.children(lockPath).whenComplete(guarded((kids, e) -> {
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (e == null && kids.stream().anyMatch(k -> QueueNode.parse(k).isPresent())) {
                    finish();
                    result.complete(null);
                } else if (e == null || Failures.is(e, KeeperException.Code.NONODE)) {
                    enqueue();
                } else {
                    onFailure(gen, e, this::precheck);
                }
            }
        }));
    }

    private void enqueue() {
        generation++;
        guid = rt.guids.next();
        own = null;
        sendCreate(generation);
    }

    private void sendCreate(int gen) {
        String createGuid = guid;
        rt.stats.creates.increment();
        rt.stats.childrenReads.increment();
        CompletableFuture<ZkGateway.Created> created =
                rt.zk.create(lockPath + "/" + QueueNode.createName(createGuid), data, CreateMode.EPHEMERAL_SEQUENTIAL);
        // Sent before the create is answered: see the class comment.
        CompletableFuture<List<String>> kids = rt.zk.children(lockPath);
        created.whenComplete(guarded((c, e) -> onCreated(gen, createGuid, c, e, kids)));
    }

    private synchronized void onCreated(int gen, String createGuid, ZkGateway.Created c, Throwable e,
            CompletableFuture<List<String>> kids) {
        if (stale(gen)) {
            if (c != null) {
                rt.reaper.delete(lockPath + "/" + c.nodeName());
            } else if (e != null && Failures.isConnectionProblem(e)) {
                rt.reaper.deleteCreatedBy(lockPath, createGuid);
            }
            return;
        }
        if (e != null) {
            if (Failures.is(e, KeeperException.Code.NONODE)) {
                createLockNodeThenEnqueue(gen);
            } else if (Failures.isConnectionProblem(e)) {
                // Applied or not? Only the children can tell: look for our GUID.
                retryLater(gen, () -> findOwnNode(gen));
            } else {
                onFailure(gen, e, null);
            }
            return;
        }
        QueueNode node = QueueNode.parse(c.nodeName()).orElseThrow(
                () -> new IllegalStateException("unexpected queue node name " + c.nodeName()));
        enqueued(node, c.stat());
        kids.whenComplete(guarded((list, e2) -> {
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (e2 == null && list.contains(node.name())) {
                    decide(gen, list);
                } else {
                    // The read overtook a retried create or failed: read again, after the create.
                    readChildren(gen);
                }
            }
        }));
    }

    /** Our node is known: its creation zxid is the token, its owner the session the lease lives on. */
    private void enqueued(QueueNode node, Stat stat) {
        own = node;
        token = stat.getCzxid();
        session = stat.getEphemeralOwner();
        backoffMs = FIRST_BACKOFF_MS;
    }

    private void createLockNodeThenEnqueue(int gen) {
        submit(rt.io, () -> {
            Exception failure = null;
            try {
                rt.zk.createContainers(lockPath);
            } catch (Exception e) {
                failure = e;
            }
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (failure == null) {
                    sendCreate(gen);
                } else {
                    onFailure(gen, failure, () -> createLockNodeThenEnqueue(gen));
                }
            }
        });
    }

    /** After a create whose answer was lost: adopt our node if it exists, else create again (same GUID). */
    private void findOwnNode(int gen) {
        rt.stats.childrenReads.increment();
        rt.zk.children(lockPath).whenComplete(guarded((kids, e) -> {
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (e != null) {
                    if (Failures.is(e, KeeperException.Code.NONODE)) {
                        sendCreate(gen);
                    } else {
                        onFailure(gen, e, () -> findOwnNode(gen));
                    }
                    return;
                }
                List<QueueNode> mine = kids.stream().map(QueueNode::parse).flatMap(Optional::stream)
                        .filter(n -> n.guid().equals(guid)).sorted(QueueNode.ORDER).toList();
                if (mine.isEmpty()) {
                    sendCreate(gen);
                    return;
                }
                // ZooKeeper fences a moved session's late requests, so there should be one; if a
                // duplicate ever appears, keep the first and drop the rest.
                mine.stream().skip(1).forEach(n -> rt.reaper.delete(lockPath + "/" + n.name()));
                QueueNode node = mine.get(0);
                own = node;
                rt.zk.getData(lockPath + "/" + node.name()).whenComplete(guarded((content, e2) -> {
                    synchronized (this) {
                        if (stale(gen)) {
                            return;
                        }
                        if (e2 == null && content.stat().getEphemeralOwner() == rt.zk.sessionId()) {
                            enqueued(node, content.stat());
                            decide(gen, kids);
                        } else if (e2 == null || Failures.is(e2, KeeperException.Code.NONODE)) {
                            // Gone, or made by a session that is no longer ours (it goes with that
                            // session, and restart() deletes it now): queue again.
                            restart();
                        } else {
                            onFailure(gen, e2, () -> findOwnNode(gen));
                        }
                    }
                }));
            }
        }));
    }

    // ---- wait ----

    private void readChildren(int gen) {
        rt.stats.childrenReads.increment();
        rt.zk.children(lockPath).whenComplete(guarded((kids, e) -> {
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (e == null) {
                    decide(gen, kids);
                } else if (Failures.is(e, KeeperException.Code.NONODE)) {
                    restart();
                } else {
                    onFailure(gen, e, () -> readChildren(gen));
                }
            }
        }));
    }

    private void decide(int gen, List<String> kids) {
        firstAttempt.complete(null);
        // One pass, no sort: only our place matters, i.e. whether anyone is ahead of us, who is
        // right ahead (the predecessor) and whether that one is the head. Large queues make this
        // the waiter's work on every re-read.
        boolean found = false;
        QueueNode predecessor = null;
        QueueNode head = null;
        for (String kid : kids) {
            QueueNode n = QueueNode.parse(kid).orElse(null);
            if (n == null) {
                continue;
            }
            if (n.name().equals(own.name())) {
                found = true;
                continue;
            }
            if (QueueNode.ORDER.compare(n, own) < 0) {
                if (predecessor == null || QueueNode.ORDER.compare(n, predecessor) > 0) {
                    predecessor = n;
                }
                if (head == null || QueueNode.ORDER.compare(n, head) < 0) {
                    head = n;
                }
            }
        }
        if (!found) {
            // Our node is gone (session expired, or someone deleted it): queue again.
            restart();
        } else if (predecessor == null) {
            grant();
        } else if (tryOnly) {
            giveUpTry();
        } else {
            watchPredecessor(gen, predecessor, predecessor == head);
        }
    }

    private void watchPredecessor(int gen, QueueNode predecessor, boolean predecessorIsHead) {
        String path = lockPath + "/" + predecessor.name();
        Watcher w = event -> guard(() -> onPredecessorEvent(gen, predecessor, predecessorIsHead, event));
        watchedPath = path;
        watcher = w;
        rt.zk.watchData(path, w).whenComplete(guarded((content, e) -> {
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (e == null) {
                    backoffMs = FIRST_BACKOFF_MS;
                } else if (Failures.is(e, KeeperException.Code.NONODE)) {
                    watchedPath = null;
                    predecessorGone(gen, predecessorIsHead);
                } else {
                    onFailure(gen, e, () -> readChildren(gen));
                }
            }
        }));
    }

    private void onPredecessorEvent(int gen, QueueNode predecessor, boolean predecessorIsHead, WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            // Disconnected / reconnected: the client restores the watch. Expired: our node is gone.
            if (event.getState() == Watcher.Event.KeeperState.Expired) {
                synchronized (this) {
                    if (!stale(gen)) {
                        restart();
                    }
                }
            }
            return;
        }
        rt.stats.wakeUps.increment();
        synchronized (this) {
            if (stale(gen)) {
                return;
            }
            watchedPath = null;
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                predecessorGone(gen, predecessorIsHead);
            } else {
                watchPredecessor(gen, predecessor, predecessorIsHead);
            }
        }
    }

    private void predecessorGone(int gen, boolean predecessorWasHead) {
        if (predecessorWasHead) {
            // Granted without reading the queue, so nothing has shown our own node is still
            // there (an operator may have deleted it while we waited): watch it right away.
            grant().watchOwnNodeNow();
        } else {
            readChildren(gen);
        }
    }

    // ---- outcomes ----

    private Grant grant() {
        finished = true;
        generation++;
        Grant g = new Grant(rt, lockName, lockPath, own, token, session, owner, maxHold);
        rt.registry.add(g);
        rt.stats.grants.increment();
        if (!rt.zk.isConnected()) {
            // A SUSPENDED event that came before the registry knew this grant did not reach it.
            g.suspend();
        }
        // Before the caller sees the lease: its max-hold deadline must already run.
        g.activate();
        result.complete(g);
        return g;
    }

    /** try-acquire that was not the head: leave no node behind, then report "not acquired". */
    private void giveUpTry() {
        finished = true;
        generation++;
        String path = lockPath + "/" + own.name();
        own = null;
        rt.reaper.delete(path).whenComplete((ok, e) -> result.complete(null)); // never throws
    }

    private void onFailure(int gen, Throwable e, Runnable retry) {
        if (Failures.isSessionGone(e)) {
            restart();
        } else if (retry != null && Failures.isConnectionProblem(e)) {
            retryLater(gen, retry);
        } else {
            finish();
            Throwable cause = Failures.unwrap(e);
            KeeperException.Code code = Failures.code(e);
            result.completeExceptionally(new CoordinationException(lockName, "ZooKeeper refused acquiring lock '"
                    + lockName + "' at " + lockPath + (code == null ? "" : " (" + code + ")") + ": " + cause.getMessage(),
                    cause));
        }
    }

    /** Runs {@code task} after a back-off, unless the acquisition moved on or the session changed. */
    private void retryLater(int gen, Runnable task) {
        long delay = nextBackoff();
        schedule(delay, () -> {
            synchronized (this) {
                if (stale(gen)) {
                    return;
                }
                if (own != null && rt.zk.sessionId() != session) {
                    restart();
                } else {
                    task.run();
                }
            }
        });
    }

    /** Our session is gone, or our node is: drop what we had and queue again with a new GUID. */
    private void restart() {
        cleanUp();
        int gen = ++generation;
        schedule(nextBackoff(), () -> {
            synchronized (this) {
                if (!stale(gen)) {
                    enqueue();
                }
            }
        });
    }

    private CompletableFuture<Boolean> finish() {
        finished = true;
        generation++;
        return cleanUp();
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

    String lockPath() {
        return lockPath;
    }

    /**
     * A ZooKeeper callback's body: whatever it throws fails this acquisition instead of vanishing
     * on ZooKeeper's event thread, which would leave the caller waiting for ever.
     */
    private <T> BiConsumer<T, Throwable> guarded(BiConsumer<T, Throwable> body) {
        return (value, failure) -> guard(() -> body.accept(value, failure));
    }

    private void guard(Runnable body) {
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            failUnexpectedly(e);
        }
    }

    private void failUnexpectedly(Throwable e) {
        synchronized (this) {
            if (finished) {
                return;
            }
            finish();
        }
        log.error("acquiring lock '{}' failed unexpectedly", lockName, e);
        result.completeExceptionally(new CoordinationException(lockName, "acquiring lock '" + lockName
                + "' failed: " + e, e));
    }

    /** Runs {@code task} after {@code delayMs} on the timer, guarded; the client closing fails the acquisition. */
    private void schedule(long delayMs, Runnable task) {
        try {
            rt.scheduler.schedule(() -> guard(task), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            failUnexpectedly(new IllegalStateException("the lock client is closed", closing));
        }
    }

    private void submit(Executor executor, Runnable task) {
        try {
            executor.execute(() -> guard(task));
        } catch (RejectedExecutionException closing) {
            failUnexpectedly(new IllegalStateException("the lock client is closed", closing));
        }
    }

    private boolean stale(int gen) {
        return finished || gen != generation;
    }

    private long nextBackoff() {
        long delay = backoffMs;
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
        return delay;
    }
}
