package io.zkfence.shedlock;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The records that keep a job locked until its {@code lockAtLeastUntil} after the run ended, even
 * when the process that ran it is gone: one persistent znode per job name under the records path,
 * holding {@code "<lockAtLeastUntil epoch ms> <token>"}. Only the holder of the job's zkfence lock
 * writes it, and always with the version it read, so a former holder that wakes up late cannot
 * overwrite a newer run's record.
 */
final class LockAtLeastRecords {

    /** A record as read: until when the job stays locked, and the znode version to write against (-1: no node). */
    record Entry(Instant lockedUntil, int version) {
        static final Entry NONE = new Entry(Instant.EPOCH, -1);
    }

    private final CuratorFramework curator;
    private final String root;
    private final List<ACL> acl;

    LockAtLeastRecords(CuratorFramework curator, String root, List<ACL> acl) {
        this.curator = curator;
        this.root = root;
        this.acl = acl;
    }

    Entry read(String name) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = curator.getData().storingStatIn(stat).forPath(path(name));
            return new Entry(
                    Instant.ofEpochMilli(parseUntil(new String(data, StandardCharsets.US_ASCII))), stat.getVersion());
        } catch (KeeperException.NoNodeException e) {
            return Entry.NONE;
        }
    }

    /**
     * Writes {@code lockedUntil} if the record is still at {@code expected}'s version.
     *
     * @return the new version, or empty if someone else wrote (or created) it since
     */
    OptionalLong write(String name, Entry expected, Instant lockedUntil, long token) throws Exception {
        byte[] data = (lockedUntil.toEpochMilli() + " " + token).getBytes(StandardCharsets.US_ASCII);
        try {
            if (expected.version() < 0) {
                curator.create().creatingParentsIfNeeded().withACL(acl).forPath(path(name), data);
                return OptionalLong.of(0);
            }
            return OptionalLong.of(curator.setData()
                    .withVersion(expected.version())
                    .forPath(path(name), data)
                    .getVersion());
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
            return OptionalLong.empty();
        }
    }

    String path(String name) {
        // Any job name becomes one valid znode name: percent-encoded, with '.' encoded too ("." and ".." are reserved).
        return root + "/"
                + URLEncoder.encode(name, StandardCharsets.UTF_8)
                        .replace(".", "%2E")
                        .replace("*", "%2A");
    }

    private static long parseUntil(String data) {
        int space = data.indexOf(' ');
        return Long.parseLong(space < 0 ? data : data.substring(0, space));
    }
}
