package io.zkfence.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * {@link ZkGateway} over the raw asynchronous ZooKeeper API of Curator's current handle.
 *
 * <p>Curator keeps the connection, the session, the ensemble list and the credentials; the lock
 * talks to the handle directly because it needs what Curator's builders do not give together:
 * two requests pipelined in order, the create's {@code Stat} on every path, and its own
 * recovery of a create whose answer was lost.
 */
final class CuratorZkGateway implements ZkGateway {

    private final CuratorFramework curator;
    private final List<ACL> acl;
    private final String namespace;

    CuratorZkGateway(CuratorFramework curator, List<ACL> acl) {
        this.curator = curator;
        this.acl = acl;
        this.namespace = curator.getNamespace();
    }

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        CompletableFuture<Created> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.create(
                    abs(path),
                    data,
                    acl,
                    mode,
                    (AsyncCallback.Create2Callback) (rc, p, ctx, name, stat) -> {
                        if (rc == 0) {
                            f.complete(new Created(ZKPaths.getNodeFromPath(name), stat));
                        } else {
                            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
                        }
                    },
                    null);
        }
        return f;
    }

    @Override
    public CompletableFuture<List<String>> children(String path) {
        CompletableFuture<List<String>> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.getChildren(
                    abs(path),
                    false,
                    (AsyncCallback.ChildrenCallback) (rc, p, ctx, kids) -> {
                        if (rc == 0) {
                            f.complete(kids);
                        } else {
                            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
                        }
                    },
                    null);
        }
        return f;
    }

    @Override
    public CompletableFuture<NodeContent> watchData(String path, Watcher watcher) {
        CompletableFuture<NodeContent> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.getData(abs(path), watcher, dataCallback(f, path), null);
        }
        return f;
    }

    @Override
    public CompletableFuture<NodeContent> getData(String path) {
        CompletableFuture<NodeContent> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.getData(abs(path), false, dataCallback(f, path), null);
        }
        return f;
    }

    @Override
    public CompletableFuture<Void> delete(String path) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.delete(
                    abs(path),
                    -1,
                    (rc, p, ctx) -> {
                        if (rc == 0) {
                            f.complete(null);
                        } else {
                            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
                        }
                    },
                    null);
        }
        return f;
    }

    @Override
    public void deleteSync(String path) throws Exception {
        if (curator.getState() == CuratorFrameworkState.STOPPED) {
            throw new CuratorClosedException();
        }
        curator.getZookeeperClient().getZooKeeper().delete(abs(path), -1);
    }

    @Override
    public void deleteSyncRecording(String nodePath, String lockPath, byte[] record) throws Exception {
        if (curator.getState() == CuratorFrameworkState.STOPPED) {
            throw new CuratorClosedException();
        }
        curator.getZookeeperClient()
                .getZooKeeper()
                .multi(List.of(Op.delete(abs(nodePath), -1), Op.setData(abs(lockPath), record, -1)));
    }

    @Override
    public void removeWatch(String path, Watcher watcher) {
        ZooKeeper zk = handle(new CompletableFuture<>());
        if (zk != null) {
            // local=true: the watcher goes from the client even when the server cannot be reached.
            zk.removeWatches(abs(path), watcher, Watcher.WatcherType.Data, true, (rc, p, ctx) -> {}, null);
        }
    }

    @Override
    public void createContainers(String path) throws Exception {
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
        } catch (Exception e) {
            return 0;
        }
    }

    @Override
    public int sessionTimeoutMs() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            return 0;
        }
    }

    private static AsyncCallback.DataCallback dataCallback(CompletableFuture<NodeContent> f, String path) {
        return (rc, p, ctx, data, stat) -> {
            if (rc == 0) {
                f.complete(new NodeContent(data, stat));
            } else {
                f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
            }
        };
    }

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

    private String abs(String path) {
        // Without a namespace the path is used as it is (ZooKeeper validates it); Curator's helper
        // would validate and copy it on every request.
        return namespace == null || namespace.isEmpty() ? path : ZKPaths.fixForNamespace(namespace, path);
    }
}
