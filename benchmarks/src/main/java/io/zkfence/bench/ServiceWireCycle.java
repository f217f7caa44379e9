package io.zkfence.bench;

import java.util.Arrays;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * A diagnostic cycle that splits the lock service's uncontended cost from its HTTP layer: it
 * sends exactly the ZooKeeper requests one uncontended acquire + release of the service sends
 * (acquire without a request id: create the persistent sequential entry, read the child list —
 * which alone shows the entry first — and write the grant with a versioned setData; release: read
 * the child list, the entry's own data, and delete it with a versioned delete), one after another on the
 * synchronous API as the service does, with entry data of the service's size, and nothing else:
 * no HTTP, no JSON, no lock logic.
 */
final class ServiceWireCycle implements Op {

    /** About the size of the service's entry data (owner, request id, TTL, times, as JSON). */
    private static final byte[] DATA = new byte[110];

    static {
        Arrays.fill(DATA, (byte) 'x');
    }

    private final CuratorFramework curator;
    private final String lock;

    ServiceWireCycle(CuratorFramework curator, String lock) {
        this.curator = curator;
        this.lock = lock;
        try {
            curator.create().creatingParentsIfNeeded().forPath(lock);
        } catch (KeeperException.NodeExistsException e) {
            // Already there from an earlier use.
        } catch (Exception e) {
            throw new IllegalStateException("cannot create " + lock, e);
        }
    }

    @Override
    public String name() {
        return "service-wire";
    }

    @Override
    public void run() {
        try {
            String entry =
                    curator.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(lock + "/e-", DATA);
            curator.getChildren().forPath(lock);
            curator.setData().withVersion(0).forPath(entry, DATA);
            curator.getChildren().forPath(lock);
            curator.getData().forPath(entry);
            curator.delete().withVersion(1).forPath(entry);
        } catch (Exception e) {
            throw new IllegalStateException("service-wire cycle on " + lock + " failed", e);
        }
    }
}
