package io.zkfence.server;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.util.List;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;

/**
 * A started {@link LeaseService} on a caller's ZooKeeper client, called as the HTTP layer calls
 * it: for tests of the protocol without HTTP. A store made by {@link #connect} is a replica of its
 * own: it has its own ZooKeeper client (its own session), closed with it.
 */
final class StoreUnderTest implements AutoCloseable {

    /**
     * How long a follower of the tests' ensembles may serve cut off from its leader: curator-test
     * configures {@code syncLimit} 5, and {@link io.zkfence.testkit.EmbeddedEnsemble}'s tick is 1 s.
     */
    static final long TEST_ENSEMBLE_LAG_BOUND_MS = 5_000;

    final LeaseService service;

    /** The client this store opened for itself ({@link #connect}), closed with it; null when the caller's. */
    private final CuratorFramework ownClient;

    StoreUnderTest(CuratorFramework zk, String root) {
        this(zk, root, Clock.systemUTC(), settings(root));
    }

    StoreUnderTest(CuratorFramework zk, String root, Clock clock, LeaseService.Settings settings) {
        this(zk, root, clock, settings, null);
    }

    private StoreUnderTest(
            CuratorFramework zk, String root, Clock clock, LeaseService.Settings settings, CuratorFramework ownClient) {
        this.ownClient = ownClient;
        this.service = new LeaseService(zk, ZooDefs.Ids.OPEN_ACL_UNSAFE, clock, settings).start();
    }

    /** A replica of its own on {@code ensemble}, on the true clock and {@link #settings}. */
    static StoreUnderTest connect(EmbeddedEnsemble ensemble, String root) {
        return connect(ensemble, root, Clock.systemUTC(), settings(root));
    }

    /** A replica of its own on {@code ensemble}, reading {@code clock}. */
    static StoreUnderTest connect(EmbeddedEnsemble ensemble, String root, Clock clock, LeaseService.Settings settings) {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        try {
            return new StoreUnderTest(zk, root, clock, settings, zk);
        } catch (RuntimeException e) {
            zk.close();
            throw e;
        }
    }

    /** The defaults, with the tests' ensembles' lag bound. */
    static LeaseService.Settings settings(String root) {
        LeaseService.Settings d = LeaseService.Settings.defaults(root);
        return new LeaseService.Settings(
                root, d.auditRetention(), d.requestRetentionMillis(), d.maxWaiters(), TEST_ENSEMBLE_LAG_BOUND_MS);
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
        try {
            service.close();
        } finally {
            if (ownClient != null) {
                ownClient.close();
            }
        }
    }
}
