package io.zkfence.curator;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.LockClient;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.PathUtils;
import org.apache.curator.utils.ZKPaths;

/**
 * A Curator lock path as a zkfence lock: the parent is the lock client's root, the last element
 * the lock's name, so both name the same znode and a Curator mutex and the door on one path share
 * one queue (zkfence reads Curator's nodes as queue entries; see docs/curator.md).
 */
final class DoorPath {

    private DoorPath() {}

    /**
     * The non-re-entrant zkfence lock on {@code path}.
     *
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path, is the root,
     *                                  or its last element is not a lock name zkfence keeps as it is
     */
    static FencedLock lockFor(CuratorFramework curator, String path) {
        Objects.requireNonNull(curator, "client");
        Objects.requireNonNull(path, "path");
        PathUtils.validatePath(path);
        ZKPaths.PathAndNode split = ZKPaths.getPathAndNode(path);
        if (split.getNode().isEmpty()) {
            throw new IllegalArgumentException(
                    "lock path \"" + path + "\" is the root: give the lock a znode of its own");
        }
        LockClient client = DoorClients.of(curator, split.getPath());
        FencedLock lock = client.lock(split.getNode()).nonReentrant();
        if (!lock.path().equals(path)) {
            throw new IllegalArgumentException("lock path \"" + path + "\": its last element \"" + split.getNode()
                    + "\" holds characters zkfence percent-encodes in lock names (it would use " + lock.path()
                    + ", another znode, so it would not exclude a Curator mutex on " + path + "); use letters, digits"
                    + " and - _ . : ~ @ + = , in the last element");
        }
        return lock;
    }
}
