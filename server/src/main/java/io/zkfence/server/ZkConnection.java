package io.zkfence.server;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * A replica's link to ZooKeeper: its session's requests, asynchronous and in order, on absolute
 * paths. Two requests sent one after the other reach the server in that order and are answered
 * in that order, and a watch event is delivered before the answer of any later request that saw
 * the change behind it: the protocol relies on both (a read pipelined behind a multi sees the
 * multi's effect; a watch that fired is known by the time a later read answers).
 *
 * <p>Futures fail with the {@link org.apache.zookeeper.KeeperException} of ZooKeeper's answer
 * (connection loss and session expiry included), or with a {@link LockServiceException} when
 * nothing could be sent (the replica is stopping). Their continuations run on the link's event
 * thread and must not block.
 *
 * <p>{@link CuratorZkConnection} is the one on a real ensemble; the service simulation has its
 * own, so the service's decisions run unchanged against a simulated ensemble.
 */
interface ZkConnection {

    /** A multi's answer: ZooKeeper's result code and, when it has them, the per-operation results. */
    record MultiAnswer(int rc, List<OpResult> results) {}

    /** The path prefix of this link's namespace ("" for none), prepended to the service's paths. */
    String namespace();

    CompletableFuture<MultiAnswer> multi(List<Op> ops);

    /** The children and the node's own stat; with {@code watcher} (may be null), a watch on the children. */
    CompletableFuture<ZkWire.Children> children(String path, Watcher watcher);

    /** The data and stat; with {@code watcher} (may be null), a watch on the node's change or deletion. */
    CompletableFuture<ZkWire.Node> data(String path, Watcher watcher);

    /** The stat, or null if the node does not exist; with {@code watcher}, a watch on it either way. */
    CompletableFuture<Stat> exists(String path, Watcher watcher);

    CompletableFuture<Stat> setData(String path, byte[] data, int version);

    CompletableFuture<Void> delete(String path, int version);

    /** The created node's path (with its sequence, for a sequential node). */
    CompletableFuture<String> create(String path, byte[] data, List<ACL> acl, CreateMode mode);

    CompletableFuture<Void> sync(String path);

    /** The current session's id, 0 while there is none. */
    long sessionId();

    /** The session timeout ZooKeeper granted (ms), 0 while there is no session. */
    int sessionTimeoutMs();

    /** True while the link has a live connection to a server. */
    boolean connected();

    /**
     * Runs {@code listener} each time the link (re)connects, a new session included.
     *
     * @return stops that
     */
    Runnable onConnected(Runnable listener);
}
