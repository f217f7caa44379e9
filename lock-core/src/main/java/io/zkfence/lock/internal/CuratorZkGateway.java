package io.zkfence.lock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * {@link ZkGateway} over the raw asynchronous ZooKeeper API of Curator's current handle.
 *
 * <p>Curator keeps the connection, the session, the ensemble list and the credentials; zkfence
 * talks to the handle directly because it needs what Curator's builders do not give together:
 * requests pipelined in order (a create or a multi and a read behind it), the create's
 * {@code Stat} on every path, a multi's per-operation results, and its own recovery of a write
 * whose answer was lost.
 */
public final class CuratorZkGateway implements ZkGateway {

    private final CuratorFramework curator;
    private final List<ACL> acl;
    private final String namespace;

    /**
     * @param curator a Curator client; the gateway never starts or closes it
     * @param acl     the ACL every node it creates gets
     */
    public CuratorZkGateway(CuratorFramework curator, List<ACL> acl) {
        this.curator = curator;
        this.acl = List.copyOf(acl);
        this.namespace = curator.getNamespace();
    }

    @Override
    public List<ACL> acl() {
        return acl;
    }

    @Override
    public String fullPath(String path) {
        // Without a namespace the path is used as it is (ZooKeeper validates it); Curator's helper
        // would validate and copy it on every request.
        return namespace == null || namespace.isEmpty() ? path : ZKPaths.fixForNamespace(namespace, path);
    }

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        return send((zk, f) -> zk.create(
                fullPath(path),
                data,
                acl,
                mode,
                (AsyncCallback.Create2Callback) (rc, p, ctx, name, stat) ->
                        answer(f, rc, path, rc == 0 ? new Created(ZKPaths.getNodeFromPath(name), stat) : null),
                null));
    }

    @Override
    public CompletableFuture<Children> children(String path, Watcher watcher) {
        return send((zk, f) -> zk.getChildren(
                fullPath(path),
                watcher,
                (AsyncCallback.Children2Callback)
                        (rc, p, ctx, kids, stat) -> answer(f, rc, path, new Children(kids, stat)),
                null));
    }

    @Override
    public CompletableFuture<NodeContent> getData(String path, Watcher watcher) {
        return send((zk, f) -> zk.getData(
                fullPath(path),
                watcher,
                (rc, p, ctx, data, stat) -> answer(f, rc, path, new NodeContent(data, stat)),
                null));
    }

    @Override
    public CompletableFuture<Stat> exists(String path, Watcher watcher) {
        return send((zk, f) -> zk.exists(
                fullPath(path),
                watcher,
                (rc, p, ctx, stat) -> {
                    if (rc == KeeperException.Code.NONODE.intValue()) {
                        f.complete(null); // the answer "no such node" is a stat of null
                    } else {
                        answer(f, rc, path, stat);
                    }
                },
                null));
    }

    @Override
    public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        return send((zk, f) ->
                zk.setData(fullPath(path), data, version, (rc, p, ctx, stat) -> answer(f, rc, path, stat), null));
    }

    @Override
    public CompletableFuture<Void> delete(String path, int version) {
        return send((zk, f) -> zk.delete(fullPath(path), version, (rc, p, ctx) -> answer(f, rc, path, null), null));
    }

    @Override
    public CompletableFuture<MultiAnswer> multi(List<Op> ops) {
        return send((zk, f) -> zk.multi(ops, (rc, p, ctx, results) -> f.complete(new MultiAnswer(rc, results)), null));
    }

    @Override
    public CompletableFuture<Void> sync(String path) {
        return send((zk, f) -> zk.sync(fullPath(path), (rc, p, ctx) -> answer(f, rc, path, null), null));
    }

    @Override
    public void removeWatch(String path, Watcher watcher) {
        ZooKeeper zk = handle(new CompletableFuture<>());
        if (zk != null) {
            // local=true: the watcher goes from the client even when the server cannot be reached.
            zk.removeWatches(fullPath(path), watcher, Watcher.WatcherType.Data, true, (rc, p, ctx) -> {}, null);
        }
    }

    @Override
    public void deleteSync(String path) throws KeeperException, InterruptedException {
        syncHandle().delete(fullPath(path), -1);
    }

    @Override
    public void deleteSyncRecording(String nodePath, String lockPath, byte[] record)
            throws KeeperException, InterruptedException {
        syncHandle().multi(List.of(Op.delete(fullPath(nodePath), -1), Op.setData(fullPath(lockPath), record, -1)));
    }

    @Override
    public void createContainers(String path) throws KeeperException, InterruptedException {
        try {
            // The configured ACL on the root and the lock znode too, not Curator's default
            // provider: deleting a queue node needs DELETE on its parent, so an open lock znode
            // would let anyone remove a holder's node and take its lock.
            curator.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .withACL(acl, true)
                    .forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // Another client created it first: what we wanted.
        } catch (KeeperException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            // Curator's builders declare Exception; a checked one that is not ZooKeeper's
            // arrives wrapped, and Failures.unwrap sees through the wrapper.
            throw new CompletionException(e);
        }
    }

    @Override
    public boolean isConnected() {
        return curator.getZookeeperClient().isConnected();
    }

    @Override
    public long sessionId() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception noHandle) {
            return 0;
        }
    }

    @Override
    public int sessionTimeoutMs() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception noHandle) {
            return 0;
        }
    }

    @Override
    public Runnable onConnected(Runnable listener) {
        ConnectionStateListener l = (client, state) -> {
            if (state.isConnected()) {
                listener.run();
            }
        };
        curator.getConnectionStateListenable().addListener(l);
        return () -> curator.getConnectionStateListenable().removeListener(l);
    }

    /**
     * Sends one request on the current handle: {@code request} gets the handle and the future its
     * callback completes. Without a handle, the future fails with why, and nothing is sent.
     */
    private <T> CompletableFuture<T> send(BiConsumer<ZooKeeper, CompletableFuture<T>> request) {
        CompletableFuture<T> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            request.accept(zk, f);
        }
        return f;
    }

    /** Completes {@code f} with {@code value} if ZooKeeper answered OK, else with its error for {@code path}. */
    private static <T> void answer(CompletableFuture<T> f, int rc, String path, T value) {
        if (rc == 0) {
            f.complete(value);
        } else {
            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    /** The current handle for a synchronous call, or why there is none, thrown (nothing was sent). */
    private ZooKeeper syncHandle() throws KeeperException {
        CompletableFuture<Void> noHandle = new CompletableFuture<>();
        ZooKeeper zk = handle(noHandle);
        if (zk == null) {
            // handle() fails it with a KeeperException or a CuratorClosedException.
            Throwable why = noHandle.exceptionNow();
            if (why instanceof KeeperException ke) {
                throw ke;
            }
            throw (RuntimeException) why;
        }
        return zk;
    }

    /** The current handle, or null with {@code f} failed with why there is none (nothing was sent). */
    private ZooKeeper handle(CompletableFuture<?> f) {
        if (curator.getState() == CuratorFrameworkState.STOPPED) {
            f.completeExceptionally(new CuratorClosedException());
            return null;
        }
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (KeeperException e) {
            f.completeExceptionally(e);
            return null;
        } catch (IllegalStateException e) {
            // Curator's "not started": closed between the state check and here.
            f.completeExceptionally(new CuratorClosedException());
            return null;
        } catch (Exception e) {
            // Curator throws plain exceptions while it has no usable handle (replacing an expired
            // one, connection timed out): no request was sent, so "connection loss" is the truth.
            KeeperException noHandle = new KeeperException.ConnectionLossException();
            noHandle.initCause(e);
            f.completeExceptionally(noHandle);
            return null;
        }
    }
}
