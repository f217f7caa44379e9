package io.zkfence.server;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The {@link ZkConnection} of a real ensemble: the raw asynchronous API of Curator's current
 * handle. Curator keeps the connection, the session and the credentials; the requests are the
 * service's own, because it needs what Curator's builders do not give together (a multi and a
 * read pipelined behind it, the multi's per-operation results).
 */
final class CuratorZkConnection implements ZkConnection {

    private final CuratorFramework curator;

    CuratorZkConnection(CuratorFramework curator) {
        this.curator = curator;
    }

    @Override
    public String namespace() {
        String ns = curator.getNamespace();
        return ns == null || ns.isEmpty() ? "" : "/" + ns;
    }

    @Override
    public CompletableFuture<MultiAnswer> multi(List<Op> ops) {
        CompletableFuture<MultiAnswer> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.multi(ops, (rc, p, ctx, results) -> f.complete(new MultiAnswer(rc, results)), null);
        }
        return f;
    }

    @Override
    public CompletableFuture<ZkWire.Children> children(String path, Watcher watcher) {
        CompletableFuture<ZkWire.Children> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.getChildren(
                    path,
                    watcher,
                    (AsyncCallback.Children2Callback)
                            (rc, p, ctx, kids, stat) -> answer(f, rc, path, new ZkWire.Children(kids, stat)),
                    null);
        }
        return f;
    }

    @Override
    public CompletableFuture<ZkWire.Node> data(String path, Watcher watcher) {
        CompletableFuture<ZkWire.Node> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.getData(
                    path, watcher, (rc, p, ctx, data, stat) -> answer(f, rc, path, new ZkWire.Node(data, stat)), null);
        }
        return f;
    }

    @Override
    public CompletableFuture<Stat> exists(String path, Watcher watcher) {
        CompletableFuture<Stat> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.exists(
                    path,
                    watcher,
                    (rc, p, ctx, stat) -> {
                        if (rc == KeeperException.Code.NONODE.intValue()) {
                            f.complete(null);
                        } else {
                            answer(f, rc, path, stat);
                        }
                    },
                    null);
        }
        return f;
    }

    @Override
    public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        CompletableFuture<Stat> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.setData(path, data, version, (rc, p, ctx, stat) -> answer(f, rc, path, stat), null);
        }
        return f;
    }

    @Override
    public CompletableFuture<Void> delete(String path, int version) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.delete(path, version, (rc, p, ctx) -> answer(f, rc, path, null), null);
        }
        return f;
    }

    @Override
    public CompletableFuture<String> create(String path, byte[] data, List<ACL> acl, CreateMode mode) {
        CompletableFuture<String> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.create(
                    path,
                    data,
                    acl,
                    mode,
                    (AsyncCallback.StringCallback) (rc, p, ctx, name) -> answer(f, rc, path, name),
                    null);
        }
        return f;
    }

    @Override
    public CompletableFuture<Void> sync(String path) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        ZooKeeper zk = handle(f);
        if (zk != null) {
            zk.sync(path, (rc, p, ctx) -> answer(f, rc, path, null), null);
        }
        return f;
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
    public boolean connected() {
        return curator.getZookeeperClient().isConnected();
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

    /** Completes {@code f} with {@code value} if ZooKeeper answered OK, else with its error for {@code path}. */
    private static <T> void answer(CompletableFuture<T> f, int rc, String path, T value) {
        if (rc == 0) {
            f.complete(value);
        } else {
            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    private ZooKeeper handle(CompletableFuture<?> f) {
        if (curator.getState() == CuratorFrameworkState.STOPPED) {
            f.completeExceptionally(new LockServiceException(ErrorCode.SHUTTING_DOWN, "this replica is stopping"));
            return null;
        }
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            // Curator throws while it has no usable handle (replacing an expired one, connecting):
            // nothing was sent, so "connection loss" is the truth and the request is sent again.
            f.completeExceptionally(new KeeperException.ConnectionLossException());
            return null;
        }
    }
}
