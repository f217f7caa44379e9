package io.zkfence.server;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The replica's ZooKeeper requests, on its {@link ZkConnection}: the service's paths, its ACL,
 * a {@code multi}'s refusal as the exception of the op refused, and waiting for an answer.
 *
 * <p>The service sends its own requests because it needs what Curator's builders do not give
 * together: a {@code multi} and a read pipelined behind it (ZooKeeper answers one session's
 * requests in order, so the read sees the multi's effect), the {@code multi}'s per-operation
 * results, and its own recovery of a write whose answer was lost (every write of the service is
 * built so that sending it again is safe or detectably refused).
 *
 * <p>{@link #call} waits for one request, sending it again after a connection loss until
 * {@link #OPERATION_TIMEOUT} has passed; then, or on any other failure of the connection, it
 * answers 503 {@link ErrorCode#UNAVAILABLE}. Answers from ZooKeeper about the data (no node, bad
 * version, node exists) come back as the {@link KeeperException} for the caller to decide.
 */
final class ZkWire {

    /** How long one request may take, connection losses and retries included, before a 503. */
    static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(10);

    private final ZkConnection link;
    private final Scheduler scheduler;
    private final List<ACL> acl;
    private final String namespace;
    /** Test hook: answers a request with an error code instead of sending it (null: send everything). */
    private final AtomicReference<FaultInjector> faults = new AtomicReference<>();

    /** A test's stand-in for ZooKeeper's answer to one request. */
    interface FaultInjector {
        /** The error to answer {@code kind} on {@code path} with, or null to send it. */
        KeeperException.Code inject(String kind, String path);
    }

    ZkWire(ZkConnection link, Scheduler scheduler, List<ACL> acl) {
        this.link = link;
        this.scheduler = scheduler;
        this.acl = List.copyOf(acl);
        this.namespace = link.namespace();
    }

    /** Where this wire's calls wait (and the replica's background work runs). */
    Scheduler scheduler() {
        return scheduler;
    }

    /** The ACL every znode of the service is created with. */
    List<ACL> acl() {
        return acl;
    }

    /** Test hook: from now on, requests {@code faults} names fail with its code. */
    void injectFaults(FaultInjector injector) {
        faults.set(injector);
    }

    /** A {@code create} op for a {@link #multi}, with the service's ACL. */
    Op createOp(String path, byte[] data, CreateMode mode) {
        return Op.create(abs(path), data, acl, mode);
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
     * the namespace): callers tell by the path which op it was.
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

    /** A node's children and the node's own stat. */
    record Children(List<String> names, Stat stat) {}

    CompletableFuture<Children> children(String path) {
        return watchChildren(path, null);
    }

    /** The children of {@code path}; with {@code watcher} (may be null), a watch that fires once when they change. */
    CompletableFuture<Children> watchChildren(String path, Watcher watcher) {
        CompletableFuture<Children> f = injected("children", path);
        return f != null ? f : link.children(abs(path), watcher);
    }

    /** A node's data and stat. */
    record Node(byte[] data, Stat stat) {}

    /** A node's data; with {@code watcher} (may be null), a watch that fires when it changes or goes. */
    CompletableFuture<Node> data(String path, Watcher watcher) {
        CompletableFuture<Node> f = injected("data", path);
        return f != null ? f : link.data(abs(path), watcher);
    }

    /** The node's stat, or null if it does not exist; with {@code watcher}, a watch on its creation or deletion. */
    CompletableFuture<Stat> exists(String path, Watcher watcher) {
        CompletableFuture<Stat> f = injected("exists", path);
        return f != null ? f : link.exists(abs(path), watcher);
    }

    /** A versioned write; fails with {@code BADVERSION} or {@code NONODE} if the node changed or went. */
    CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        CompletableFuture<Stat> f = injected("setData", path);
        return f != null ? f : link.setData(abs(path), data, version);
    }

    /** A versioned delete ({@code version} -1: any version). */
    CompletableFuture<Void> delete(String path, int version) {
        CompletableFuture<Void> f = injected("delete", path);
        return f != null ? f : link.delete(abs(path), version);
    }

    /** A plain create (parents must exist); fails with {@code NODEEXISTS} or {@code NONODE}. */
    CompletableFuture<String> create(String path, byte[] data, CreateMode mode) {
        CompletableFuture<String> f = injected("create", path);
        return f != null ? f : link.create(abs(path), data, acl, mode);
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
        return f != null ? f : link.sync(abs(path));
    }

    /**
     * Sends the request {@code send} makes and waits for its answer, sending it again (a new
     * request from {@code send}) after a connection loss, until {@link #OPERATION_TIMEOUT}.
     *
     * @param what the request in words, for the 503's message (never a lockToken)
     * @throws KeeperException ZooKeeper's answer about the data (no node, exists, bad version...)
     * @throws LockServiceException 503 {@code UNAVAILABLE} if ZooKeeper cannot be reached in time
     */
    <T> T call(String what, Supplier<CompletableFuture<T>> send) throws KeeperException {
        long deadline = scheduler.nanoTime() + OPERATION_TIMEOUT.toNanos();
        long pause = 20;
        while (true) {
            try {
                return scheduler.await(send.get(), Math.max(1, deadline - scheduler.nanoTime()));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof LockServiceException answered) {
                    throw answered;
                }
                if (!(e.getCause() instanceof KeeperException ke)) {
                    throw Unavailable.failed(what, e.getCause());
                }
                if (!retryable(ke.code())) {
                    if (connectionTrouble(ke.code())) {
                        throw Unavailable.zooKeeperAnswered(what, ke);
                    }
                    throw ke;
                }
                if (scheduler.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) >= deadline) {
                    throw Unavailable.noAnswer(what, OPERATION_TIMEOUT, ke.code(), ke);
                }
                // The connection is being re-established: Curator reconnects on its own.
                scheduler.sleep(TimeUnit.MILLISECONDS.toNanos(pause));
                pause = Math.min(500, pause * 2);
            } catch (TimeoutException e) {
                throw Unavailable.noAnswer(what, OPERATION_TIMEOUT, null, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Unavailable.interrupted(what, e);
            }
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
        try {
            return scheduler.await(send.get(), OPERATION_TIMEOUT.toNanos());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LockServiceException answered) {
                throw answered;
            }
            if (!(e.getCause() instanceof KeeperException ke)) {
                throw Unavailable.failed(what, e.getCause());
            }
            if (retryable(ke.code())) {
                throw new AnswerLost(what, ke);
            }
            if (connectionTrouble(ke.code())) {
                throw Unavailable.zooKeeperAnswered(what, ke);
            }
            throw ke;
        } catch (TimeoutException e) {
            throw Unavailable.noAnswer(what, OPERATION_TIMEOUT, null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Unavailable.interrupted(what, e);
        }
    }

    /** A request whose answer was lost with the connection: sending it again is how to go on. */
    private static boolean retryable(KeeperException.Code code) {
        return code == KeeperException.Code.CONNECTIONLOSS
                || code == KeeperException.Code.OPERATIONTIMEOUT
                || code == KeeperException.Code.SESSIONEXPIRED
                || code == KeeperException.Code.SESSIONMOVED;
    }

    /** Errors about the connection or the server, not about the data. */
    private static boolean connectionTrouble(KeeperException.Code code) {
        return code == KeeperException.Code.SYSTEMERROR
                || code == KeeperException.Code.MARSHALLINGERROR
                || code == KeeperException.Code.UNIMPLEMENTED
                || code == KeeperException.Code.NEWCONFIGNOQUORUM
                || code == KeeperException.Code.RECONFIGINPROGRESS
                || code == KeeperException.Code.AUTHFAILED
                || code == KeeperException.Code.THROTTLEDOP
                || code == KeeperException.Code.QUOTAEXCEEDED;
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
        return link.connected();
    }

    /** Runs {@code listener} each time the link (re)connects; returns what stops that. */
    Runnable onConnected(Runnable listener) {
        return link.onConnected(listener);
    }

    String abs(String path) {
        return namespace + path;
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
