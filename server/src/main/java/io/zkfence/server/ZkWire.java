package io.zkfence.server;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.lock.internal.CuratorClosedException;
import io.zkfence.lock.internal.Failures;
import io.zkfence.lock.internal.ZkGateway;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The replica's ZooKeeper requests, on zkfence's one gateway ({@link ZkGateway}: a real replica's
 * is lock-core's {@code CuratorZkGateway}, the simulation's its own): a {@code multi}'s refusal as
 * the exception of the op refused, and waiting for an answer through the {@link Scheduler}.
 *
 * <p>The service sends its own requests because it needs what Curator's builders do not give
 * together: a {@code multi} and a read pipelined behind it (ZooKeeper answers one session's
 * requests in order, so the read sees the multi's effect), the {@code multi}'s per-operation
 * results, and its own recovery of a write whose answer was lost (every write of the service is
 * built so that sending it again is safe or detectably refused).
 *
 * <p>{@link #call} waits for one request, sending it again while its answer is lost, until
 * {@link #OPERATION_TIMEOUT} has passed; then, or on any other failure of the connection, it
 * answers 503 {@link ErrorCode#UNAVAILABLE}. Answers from ZooKeeper about the data (no node, bad
 * version, node exists) come back as the {@link KeeperException} for the caller to decide. What a
 * failure is, lock-core's {@link Failures} says; what the service does about each:
 *
 * <ul>
 *   <li>a connection problem ({@code CONNECTIONLOSS}, {@code OPERATIONTIMEOUT}): the request may
 *       or may not have been applied. {@link #call} sends it again once Curator has reconnected;
 *       {@link #callOnce} hands it to its caller to read back ({@link AnswerLost}).
 *   <li>the session gone ({@code SESSIONEXPIRED}, {@code SESSIONMOVED}): treated the same,
 *       sent again on the session Curator makes next (or read back). lock-core restarts on it
 *       instead, because its queue node is ephemeral and went with the session; nothing the
 *       service decides on lives on its session that way. Its entries and records are persistent
 *       nodes, and a write that relies on this replica's session (queueing a waiting entry,
 *       taking an entry over) checks the session's marker in the same multi: sent again on a new
 *       session, that check fails with {@code NONODE}, and the caller registers the new session
 *       and decides again. Every caller reads back or decides again after a retry, so sending it
 *       again is safe whether or not it was applied. The one ephemeral node the service writes,
 *       the marker itself ({@link ReplicaRegistry#ensureOwnMarker}), is created under the name
 *       its caller chose: sent again on a new session, it makes a marker named after the old
 *       session that lives as long as the new one.
 *   <li>trouble of the server (a system error, failed authentication, a throttled operation...):
 *       503 at once; waiting would not help within a call.
 * </ul>
 *
 * <p>Between two sends it waits as the one {@link Backoff} says, through the {@link Scheduler}
 * (whose random gives the jitter, so that the simulation's seed decides it too).
 */
final class ZkWire {

    /** How long one request may take, connection losses and retries included, before a 503. */
    static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(10);

    /** The first pause before a request is sent again, while Curator reconnects; the pauses double from it. */
    static final Duration FIRST_RETRY = Duration.ofMillis(20);

    /** The longest pause before a request is sent again. */
    static final Duration MAX_RETRY = Duration.ofMillis(500);

    private final ZkGateway link;
    private final Scheduler scheduler;
    private final Backoff backoff;
    /** Test hook: answers a request with an error code instead of sending it (null: send everything). */
    private final AtomicReference<FaultInjector> faults = new AtomicReference<>();

    /** A test's stand-in for ZooKeeper's answer to one request. */
    interface FaultInjector {
        /** The error to answer {@code kind} on {@code path} with, or null to send it. */
        KeeperException.Code inject(String kind, String path);
    }

    ZkWire(ZkGateway link, Scheduler scheduler) {
        this.link = link;
        this.scheduler = scheduler;
        this.backoff = Backoff.exponential(FIRST_RETRY, MAX_RETRY, scheduler::random);
    }

    /** Where this wire's calls wait (and the replica's background work runs). */
    Scheduler scheduler() {
        return scheduler;
    }

    /** Test hook: from now on, requests {@code faults} names fail with its code. */
    void injectFaults(FaultInjector injector) {
        faults.set(injector);
    }

    /** A {@code create} op for a {@link #multi}, with the gateway's ACL. */
    Op createOp(String path, byte[] data, CreateMode mode) {
        return Op.create(abs(path), data, link.acl(), mode);
    }

    /** A {@code delete} op for a {@link #multi} ({@code version} -1: any version). */
    Op deleteOp(String path, int version) {
        return Op.delete(abs(path), version);
    }

    /** A {@code setData} op for a {@link #multi}; its result's stat carries the multi's zxid. */
    Op setDataOp(String path, byte[] data, int version) {
        return Op.setData(abs(path), data, version);
    }

    /** A {@code check} op for a {@link #multi}: the multi fails unless the node exists (at {@code version}, or -1). */
    Op checkOp(String path, int version) {
        return Op.check(abs(path), version);
    }

    /**
     * One multi: all its operations or none. Fails with the {@link KeeperException} of the
     * operation that was refused, whose {@link KeeperException#getPath() path} is that op's.
     */
    CompletableFuture<List<OpResult>> multi(List<Op> ops) {
        CompletableFuture<List<OpResult>> f =
                injected("multi", ops.isEmpty() ? "" : ops.get(0).getPath());
        if (f != null) {
            return f;
        }
        return link.multi(ops).thenApply(answer -> {
            if (answer.rc() != 0) {
                throw new CompletionException(refusal(answer.rc(), ops, answer.results()));
            }
            return answer.results();
        });
    }

    /**
     * A multi's refusal as the exception of the op that was refused, carrying that op's path (with
     * the namespace, {@link #abs}): callers tell by the path which op it was.
     */
    private static KeeperException refusal(int rc, List<Op> ops, List<OpResult> results) {
        if (results != null) {
            for (int i = 0; i < results.size() && i < ops.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult err
                        && err.getErr() != 0
                        && err.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return KeeperException.create(
                            KeeperException.Code.get(err.getErr()), ops.get(i).getPath());
                }
            }
        }
        return KeeperException.create(KeeperException.Code.get(rc));
    }

    CompletableFuture<ZkGateway.Children> children(String path) {
        return watchChildren(path, null);
    }

    /** The children of {@code path}; with {@code watcher} (may be null), a watch that fires once when they change. */
    CompletableFuture<ZkGateway.Children> watchChildren(String path, Watcher watcher) {
        CompletableFuture<ZkGateway.Children> f = injected("children", path);
        return f != null ? f : link.children(path, watcher);
    }

    /** A node's data; with {@code watcher} (may be null), a watch that fires when it changes or goes. */
    CompletableFuture<ZkGateway.NodeContent> data(String path, Watcher watcher) {
        CompletableFuture<ZkGateway.NodeContent> f = injected("data", path);
        return f != null ? f : link.getData(path, watcher);
    }

    /** The node's stat, or null if it does not exist; with {@code watcher}, a watch on its creation or deletion. */
    CompletableFuture<Stat> exists(String path, Watcher watcher) {
        CompletableFuture<Stat> f = injected("exists", path);
        return f != null ? f : link.exists(path, watcher);
    }

    /** A versioned write; fails with {@code BADVERSION} or {@code NONODE} if the node changed or went. */
    CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        CompletableFuture<Stat> f = injected("setData", path);
        return f != null ? f : link.setData(path, data, version);
    }

    /** A versioned delete ({@code version} -1: any version). */
    CompletableFuture<Void> delete(String path, int version) {
        CompletableFuture<Void> f = injected("delete", path);
        return f != null ? f : link.delete(path, version);
    }

    /** A plain create (parents must exist), with the gateway's ACL; fails with {@code NODEEXISTS} or {@code NONODE}. */
    CompletableFuture<ZkGateway.Created> create(String path, byte[] data, CreateMode mode) {
        CompletableFuture<ZkGateway.Created> f = injected("create", path);
        return f != null ? f : link.create(path, data, mode);
    }

    /**
     * Creates {@code path}, and its missing ancestors first if it has any, with {@code mode}; a
     * node that exists is left as it is. Waits for each create.
     *
     * @throws LockServiceException 503 if ZooKeeper cannot be reached in time
     */
    void createPath(String path, CreateMode mode) {
        try {
            call("creating " + path, () -> create(path, new byte[0], mode));
        } catch (KeeperException.NodeExistsException exists) {
            // made before, by this replica or another
        } catch (KeeperException.NoNodeException noParent) {
            createPath(path.substring(0, path.lastIndexOf('/')), mode);
            createPath(path, mode);
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("creating " + path, e);
        }
    }

    /**
     * Brings the server this replica is connected to up to date with the leader for {@code path}:
     * every read after it sees at least what was committed when the sync was answered. A sync
     * that fails is a failure, never a read.
     */
    CompletableFuture<Void> sync(String path) {
        CompletableFuture<Void> f = injected("sync", path);
        return f != null ? f : link.sync(path);
    }

    /**
     * Sends the request {@code send} makes and waits for its answer, sending it again (a new
     * request from {@code send}) while its answer is lost, until {@link #OPERATION_TIMEOUT}.
     *
     * @param what the request in words, for the 503's message (never a lockToken)
     * @throws KeeperException ZooKeeper's answer about the data (no node, exists, bad version...)
     * @throws LockServiceException 503 {@code UNAVAILABLE} if ZooKeeper cannot be reached in time
     */
    <T> T call(String what, Supplier<CompletableFuture<T>> send) throws KeeperException {
        long deadline = scheduler.nanoTime() + OPERATION_TIMEOUT.toNanos();
        for (int retry = 1; ; retry++) {
            KeeperException lost;
            try {
                return attempt(what, send, Math.max(1, deadline - scheduler.nanoTime()));
            } catch (AnswerLost e) {
                lost = e.lost();
            }
            OptionalLong pause = backoff.delayNanosWithin(retry, deadline - scheduler.nanoTime());
            if (pause.isEmpty()) {
                throw Unavailable.noAnswer(what, OPERATION_TIMEOUT, lost.code(), lost);
            }
            // The connection (or the session) is being re-established: Curator does it on its own.
            scheduler.sleep(pause.getAsLong());
        }
    }

    /**
     * A write's answer was lost with the connection or the session: the write may have been
     * applied or not. Its caller reads back what happened instead of sending it again blindly.
     */
    static final class AnswerLost extends Exception {
        AnswerLost(String what, KeeperException cause) {
            super(what + ": ZooKeeper's answer was lost (" + cause.code() + ")", cause);
        }

        /** ZooKeeper's failure that lost the answer. */
        KeeperException lost() {
            return (KeeperException) getCause();
        }
    }

    /**
     * Sends a write once and waits for its answer as {@link #call} does, but never sends it again:
     * a lost answer is {@link AnswerLost}, for the caller to read back what happened (a release
     * that succeeded and was sent again would find its entry gone and answer that nothing was held).
     *
     * @throws KeeperException ZooKeeper's answer about the data
     * @throws AnswerLost the answer was lost: the write may have been applied
     * @throws LockServiceException 503 {@code UNAVAILABLE} if ZooKeeper cannot be reached in time
     */
    <T> T callOnce(String what, Supplier<CompletableFuture<T>> send) throws KeeperException, AnswerLost {
        return attempt(what, send, OPERATION_TIMEOUT.toNanos());
    }

    /** One request sent and waited for, at most {@code timeoutNanos}; a lost answer is {@link AnswerLost}. */
    private <T> T attempt(String what, Supplier<CompletableFuture<T>> send, long timeoutNanos)
            throws KeeperException, AnswerLost {
        try {
            return scheduler.await(send.get(), timeoutNanos);
        } catch (ExecutionException e) {
            throw new AnswerLost(what, answerLost(what, e.getCause()));
        } catch (TimeoutException e) {
            throw Unavailable.noAnswer(what, OPERATION_TIMEOUT, null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Unavailable.interrupted(what, e);
        }
    }

    /**
     * A request's failure as its caller gets it: the {@link KeeperException} if its answer was
     * lost ({@link Failures#isAnswerLost}: send it again or read back), thrown otherwise: ZooKeeper's
     * answer about the data as it is, the service's own answer as it is, a closed client as 503
     * {@code SHUTTING_DOWN}, anything else as 503 {@code UNAVAILABLE}.
     */
    private static KeeperException answerLost(String what, Throwable failure) throws KeeperException {
        if (failure instanceof LockServiceException answered) {
            throw answered;
        }
        if (failure instanceof CuratorClosedException) {
            throw new LockServiceException(ErrorCode.SHUTTING_DOWN, "this replica is stopping");
        }
        if (!(failure instanceof KeeperException ke)) {
            throw Unavailable.failed(what, failure);
        }
        if (Failures.isAnswerLost(ke)) {
            return ke;
        }
        if (Failures.isServerTrouble(ke)) {
            throw Unavailable.zooKeeperAnswered(what, ke);
        }
        throw ke;
    }

    /** The current session's id, 0 while there is none. */
    long sessionId() {
        return link.sessionId();
    }

    /** The session timeout the ensemble granted (ms), 0 while there is no session. */
    int sessionTimeoutMs() {
        return link.sessionTimeoutMs();
    }

    boolean connected() {
        return link.isConnected();
    }

    /** Runs {@code listener} each time the link (re)connects; returns what stops that. */
    Runnable onConnected(Runnable listener) {
        return link.onConnected(listener);
    }

    /** The full path of {@code path}, as a multi's ops and its refusals carry it. */
    String abs(String path) {
        return link.fullPath(path);
    }

    /** A failed future if a test's injector answers this request, else null (send it). */
    private <T> CompletableFuture<T> injected(String kind, String path) {
        FaultInjector injector = faults.get();
        if (injector != null) {
            KeeperException.Code code = injector.inject(kind, path);
            if (code != null) {
                return CompletableFuture.failedFuture(KeeperException.create(code, path));
            }
        }
        return null;
    }
}
