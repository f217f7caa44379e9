package io.zkfence.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The ZooKeeper operations lock-core uses, asynchronous and in request order: two calls made
 * one after the other from the same thread reach the server in that order, and ZooKeeper
 * answers one session's requests in order, which is what lets an acquire pipeline its create
 * and its children read.
 *
 * <p>Futures complete on ZooKeeper's event thread: continuations must not block. They fail with
 * a {@link org.apache.zookeeper.KeeperException} carrying the result code.
 *
 * <p>Paths are client paths (the Curator namespace, if any, is applied inside).
 */
interface ZkGateway {

    /** Result of a create: the created node's name (last path element) and its stat. */
    record Created(String nodeName, Stat stat) {}

    /** Result of a data read. */
    record NodeContent(byte[] data, Stat stat) {}

    CompletableFuture<Created> create(String path, byte[] data, CreateMode mode);

    CompletableFuture<List<String>> children(String path);

    /** Reads the node and leaves {@code watcher} on it; fails with NONODE (and sets no watch) if absent. */
    CompletableFuture<NodeContent> watchData(String path, Watcher watcher);

    CompletableFuture<NodeContent> getData(String path);

    CompletableFuture<Void> delete(String path);

    /** Deletes {@code path} synchronously, on the caller's thread. */
    void deleteSync(String path) throws Exception;

    /**
     * Deletes {@code nodePath} and sets the data of {@code lockPath} (its parent) to {@code record},
     * in one transaction (a multi), synchronously on the caller's thread: a holder's release with its
     * {@link ReleaseRecord}. Fails as a whole, with the code of the first operation that failed
     * (NONODE if the node was gone).
     */
    void deleteSyncRecording(String nodePath, String lockPath, byte[] record) throws Exception;

    /** Drops {@code watcher} from {@code path}, locally at once and on the server when connected. Fire and forget. */
    void removeWatch(String path, Watcher watcher);

    /** Creates {@code path} and its missing ancestors as container nodes with the client's ACL. Blocking. */
    void createContainers(String path) throws Exception;

    /** True while the client has a live connection to a server. */
    boolean isConnected();

    /** The current session's id, 0 if there is no live handle. */
    long sessionId();

    /** The negotiated session timeout in ms (the lease TTL). */
    int sessionTimeoutMs();
}
