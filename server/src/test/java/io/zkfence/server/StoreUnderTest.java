package io.zkfence.server;

import java.time.Clock;
import java.util.List;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;

/**
 * A started {@link LeaseService} on a caller's ZooKeeper client, called as the HTTP layer calls
 * it: for tests of the protocol without HTTP.
 */
final class StoreUnderTest implements AutoCloseable {

    /**
     * How long a follower of the tests' ensembles may serve cut off from its leader: curator-test
     * configures {@code syncLimit} 5, and {@link io.zkfence.testkit.EmbeddedEnsemble}'s tick is 1 s.
     */
    static final long TEST_ENSEMBLE_LAG_BOUND_MS = 5_000;

    final LeaseService service;

    StoreUnderTest(CuratorFramework zk, String root) {
        this(zk, root, Clock.systemUTC(), settings(root));
    }

    /** The defaults, with the tests' ensembles' lag bound. */
    static LeaseService.Settings settings(String root) {
        LeaseService.Settings d = LeaseService.Settings.defaults(root);
        return new LeaseService.Settings(
                root, d.auditRetention(), d.requestRetentionMillis(), d.maxWaiters(), TEST_ENSEMBLE_LAG_BOUND_MS);
    }

    StoreUnderTest(CuratorFramework zk, String root, Clock clock, LeaseService.Settings settings) {
        this.service = new LeaseService(zk, ZooDefs.Ids.OPEN_ACL_UNSAFE, clock, settings).start();
    }

    LeaseGrant acquire(LockKey key, String owner, long ttlMillis) {
        return acquire(key, owner, ttlMillis, false, 0, null);
    }

    LeaseGrant acquire(LockKey key, String owner, long ttlMillis, boolean wait, long waitMillis, String requestId) {
        return service.acquirer()
                .acquire(
                        new Acquirer.Request(key, owner, ttlMillis, wait, waitMillis, requestId),
                        CallerPresence.UNWATCHED);
    }

    long renew(LockKey key, LeaseGrant grant, long ttlMillis) {
        return service.ops().renew(key, grant.lockToken(), grant.ownerId(), ttlMillis);
    }

    boolean release(LockKey key, LeaseGrant grant) {
        return service.ops().release(key, grant.lockToken(), grant.ownerId());
    }

    /** The live queue: the holder (if held) first, then the waiters. */
    List<QueueEntry> queue(LockKey key) {
        LockReads.Status s = service.reads().status(key);
        return s.holder() == null
                ? s.waiters()
                : Stream.concat(Stream.of(s.holder()), s.waiters().stream()).toList();
    }

    ZkWire wire() {
        return service.wire();
    }

    @Override
    public void close() {
        service.close();
    }
}
