package io.zkfence.lock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * zkfence's one gateway to ZooKeeper: the requests lock-core and the lock service send on one
 * session, asynchronous and in order, and the session's facts. Two requests sent one after the
 * other from one thread reach the server in that order, and ZooKeeper answers one session's
 * requests in order; a watch event is delivered before the answer of any later request that saw
 * the change behind it. Both modules rely on that: a read pipelined behind a write sees the
 * write's effect, and a watch that fired is known by the time a later read answers.
 *
 * <p>Futures fail with the {@link KeeperException} of ZooKeeper's answer (connection loss and
 * session expiry included; {@link Failures} classifies them), or with a
 * {@link CuratorClosedException} when nothing could be sent because the client is closed. Their
 * continuations run on the client's event thread and must not block.
 *
 * <p>Paths are the client's: the gateway applies its namespace, if it has one. A multi's ops
 * carry full paths ({@link #fullPath}), and its refusals name them.
 *
 * <p>{@link CuratorZkGateway} is the one on a real ensemble. Tests put their own behind it (the
 * lock service's simulation a simulated ensemble, lock-core's model checker an in-process one),
 * so that the code that decides runs unchanged.
 */
public interface ZkGateway {

    /** A create's answer: the created node's name (last path element, with its sequence) and its stat. */
    record Created(String nodeName, Stat stat) {}

    /** A node's children and the node's own stat. */
    record Children(List<String> names, Stat stat) {}

    /** A node's data and stat. */
    record NodeContent(byte[] data, Stat stat) {}

    /** A multi's answer: ZooKeeper's result code and, when it has them, the per-operation results. */
    record MultiAnswer(int rc, List<OpResult> results) {}

    /** The ACL every node this gateway creates gets; a multi's create ops are given it too. */
    List<ACL> acl();

    /** The full path of the client path {@code path} (the namespace prepended): what a multi's ops carry. */
    String fullPath(String path);

    /** Creates {@code path} with {@link #acl()}; fails with {@code NODEEXISTS} or {@code NONODE} (no parent). */
    CompletableFuture<Created> create(String path, byte[] data, CreateMode mode);

    /** The children and the node's stat; with {@code watcher} (may be null), a watch on the children. */
    CompletableFuture<Children> children(String path, Watcher watcher);

    /** The children's names, without a watch. */
    default CompletableFuture<List<String>> children(String path) {
        return children(path, null).thenApply(Children::names);
    }

    /**
     * The data and stat; with {@code watcher} (may be null), a watch on the node's change or
     * deletion. Fails with {@code NONODE} (and sets no watch) if the node does not exist.
     */
    CompletableFuture<NodeContent> getData(String path, Watcher watcher);

    /** The data and stat, without a watch. */
    default CompletableFuture<NodeContent> getData(String path) {
        return getData(path, null);
    }

    /** The stat, or null if the node does not exist; with {@code watcher}, a watch on it either way. */
    CompletableFuture<Stat> exists(String path, Watcher watcher);

    /** A versioned write ({@code version} -1: any); fails with {@code BADVERSION} or {@code NONODE}. */
    CompletableFuture<Stat> setData(String path, byte[] data, int version);

    /** A versioned delete ({@code version} -1: any). */
    CompletableFuture<Void> delete(String path, int version);

    /** One multi: all its operations or none; the answer carries the per-operation results. */
    CompletableFuture<MultiAnswer> multi(List<Op> ops);

    /** Brings the connected server up to date with the leader for {@code path}. */
    CompletableFuture<Void> sync(String path);

    /** Drops {@code watcher}'s data watch from {@code path}, locally at once and on the server when connected. Fire and forget. */
    void removeWatch(String path, Watcher watcher);

    /**
     * Deletes {@code path} (any version) on the caller's thread, waiting for the answer with no hop
     * through the client's event thread. Not from the event thread.
     */
    void deleteSync(String path) throws KeeperException, InterruptedException;

    /**
     * Deletes {@code nodePath} and sets the data of {@code lockPath} (its parent) to {@code record},
     * in one transaction (a multi), on the caller's thread: a lock holder's release with its release
     * record. Fails as a whole, with the {@link KeeperException} of the first operation that failed
     * ({@code NONODE} if the node was gone, {@code NOAUTH} if the parent refuses the write). Not from
     * the event thread.
     *
     * <p>This default sends {@link #multi} and waits for its answer; a gateway on a real client
     * overrides it with the client's synchronous call, whose answer wakes the caller directly.
     */
    default void deleteSyncRecording(String nodePath, String lockPath, byte[] record)
            throws KeeperException, InterruptedException {
        MultiAnswer answer;
        try {
            answer = multi(List.of(Op.delete(fullPath(nodePath), -1), Op.setData(fullPath(lockPath), record, -1)))
                    .get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException ke) {
                throw ke;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new CompletionException(e.getCause());
        }
        if (answer.rc() != KeeperException.Code.OK.intValue()) {
            throw KeeperException.create(KeeperException.Code.get(answer.rc()), nodePath);
        }
    }

    /** Creates {@code path} and its missing ancestors as container nodes with {@link #acl()}. Blocking; not from the event thread. */
    void createContainers(String path) throws KeeperException, InterruptedException;

    /** True while the client has a live connection to a server. */
    boolean isConnected();

    /** The current session's id, 0 while there is none. */
    long sessionId();

    /** The session timeout ZooKeeper granted (ms), 0 while there is no session. */
    int sessionTimeoutMs();

    /**
     * Runs {@code listener} each time the client (re)connects, a new session included.
     *
     * @return what stops that
     */
    Runnable onConnected(Runnable listener);
}
