package io.zkfence.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * A diagnostic lock cycle on ZooKeeper's asynchronous API, awaited by the calling thread, to
 * split the uncontended cost: {@code floor-async} sends exactly the floor's requests (create,
 * delete) the way zkfence sends requests (callbacks on ZooKeeper's event thread complete futures
 * the caller waits on); {@code zkfence-wire} sends exactly zkfence's requests for one uncontended
 * cycle the way zkfence sends them (create and getChildren pipelined on the asynchronous API, then
 * the delete with the synchronous one, as {@code Lease.release()} does; a hold this short arms no
 * own-node watch) without any lock logic.
 */
final class WireCycle implements Op {

    private static final byte[] DATA = "bench-wire@host|2026-01-01T00:00:00Z".getBytes(StandardCharsets.UTF_8);

    private final String name;
    private final CuratorFramework curator;
    private final String parent;
    private final boolean zkfenceRequests;

    private WireCycle(String name, CuratorFramework curator, String parent, boolean zkfenceRequests) {
        this.name = name;
        this.curator = curator;
        this.parent = parent;
        this.zkfenceRequests = zkfenceRequests;
        try {
            curator.create().creatingParentsIfNeeded().forPath(parent);
        } catch (KeeperException.NodeExistsException e) {
            // Already there from an earlier use.
        } catch (Exception e) {
            throw new IllegalStateException("cannot create " + parent, e);
        }
    }

    static WireCycle floorAsync(CuratorFramework curator, String parent) {
        return new WireCycle("floor-async", curator, parent, false);
    }

    static WireCycle zkfenceWire(CuratorFramework curator, String parent) {
        return new WireCycle("zkfence-wire", curator, parent, true);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void run() {
        ZooKeeper zk;
        try {
            zk = curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle", e);
        }
        CompletableFuture<String> created = new CompletableFuture<>();
        zk.create(
                parent + "/n-",
                DATA,
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL,
                (AsyncCallback.Create2Callback) (rc, p, ctx, nodeName, stat) -> complete(created, rc, nodeName),
                null);
        CompletableFuture<List<String>> kids = new CompletableFuture<>();
        if (zkfenceRequests) {
            zk.getChildren(
                    parent,
                    false,
                    (AsyncCallback.ChildrenCallback) (rc, p, ctx, children) -> complete(kids, rc, children),
                    null);
        }
        String path = created.join();
        if (zkfenceRequests) {
            kids.join();
            try {
                zk.delete(path, -1);
            } catch (KeeperException e) {
                throw new IllegalStateException("delete of " + path + " failed", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted deleting " + path, e);
            }
            return;
        }
        CompletableFuture<Void> deleted = new CompletableFuture<>();
        zk.delete(path, -1, (rc, p, ctx) -> complete(deleted, rc, null), null);
        deleted.join();
    }

    private static <T> void complete(CompletableFuture<T> f, int rc, T value) {
        if (rc == 0) {
            f.complete(value);
        } else {
            f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
        }
    }
}
