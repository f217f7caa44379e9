package io.zkfence.bench;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ZooKeeper floor of a lock cycle: create an ephemeral-sequential node and delete it, from one
 * session, with ZooKeeper's own synchronous API. Two quorum writes in a row; a lock cycle that
 * queues a node and removes it cannot cost less.
 */
final class FloorCycle implements Op {

    /** About the size of the owner id and timestamp a zkfence queue node carries. */
    private static final byte[] DATA = "bench-floor@host|2026-01-01T00:00:00Z".getBytes(StandardCharsets.UTF_8);

    private final CuratorFramework curator;
    private final String prefix;

    FloorCycle(CuratorFramework curator, String parent) {
        this.curator = curator;
        this.prefix = parent + "/n-";
        try {
            curator.create().creatingParentsIfNeeded().forPath(parent);
        } catch (KeeperException.NodeExistsException e) {
            // Already there from an earlier use.
        } catch (Exception e) {
            throw new IllegalStateException("cannot create " + parent, e);
        }
    }

    @Override
    public String name() {
        return "floor";
    }

    @Override
    public void run() {
        try {
            ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
            String path = zk.create(prefix, DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
            zk.delete(path, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("floor create+delete under " + prefix + " failed", e);
        }
    }
}
