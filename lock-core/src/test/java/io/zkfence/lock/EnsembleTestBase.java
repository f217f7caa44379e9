package io.zkfence.lock;

import io.zkfence.lock.internal.ZkGateway;
import io.zkfence.testing.Ensemble;
import io.zkfence.testing.Teardown;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Tests on the shared 3-server ensemble; each test gets its own root path and clients. */
abstract class EnsembleTestBase {

    protected Ensemble ensemble;
    protected String root;
    /** A plain Curator client for looking at znodes the way an operator would. */
    protected CuratorFramework raw;
    /** Closes the test's clients, newest first, after the test. */
    @RegisterExtension
    final Teardown teardown = Teardown.afterEach();

    /** The ensemble the test runs on; tests that break servers override this with their own. */
    protected Ensemble ensemble() {
        return Ensemble.shared();
    }

    @BeforeEach
    void setUpEnsemble() {
        ensemble = ensemble();
        root = Ensemble.freshRoot(getClass().getSimpleName());
        raw = closeLater(ensemble.curator(Duration.ofSeconds(10)));
    }

    protected <T extends AutoCloseable> T closeLater(T closeable) {
        return teardown.closeLater(closeable);
    }

    /**
     * The lock as this class's tests acquire it. The behaviour suites run in both modes: their
     * cohort-mode subclasses override this with {@link FencedLock#withCohort()}.
     */
    protected FencedLock lock(LockClient client, String name) {
        return client.lock(name);
    }

    /** Whether {@link #lock} hands out cohort-mode locks (tokens may repeat across grants). */
    protected boolean cohortMode() {
        return false;
    }

    /** A lock client on its own session (10 s) on the whole ensemble. */
    protected LockClient newClient(String ownerId) {
        return closeLater(LockClient.connect(
                ensemble.connectString(),
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId(ownerId)
                        .sessionTimeout(Duration.ofSeconds(10))
                        .build()));
    }

    /** A lock client on a given Curator client, with its gateway decorated (fault injection). */
    protected LockClient newClient(CuratorFramework curator, String ownerId, UnaryOperator<ZkGateway> decorate) {
        LockClientConfig config =
                LockClientConfig.builder().rootPath(root).ownerId(ownerId).build();
        return closeLater(new LockClient(curator, config, false, decorate, Clock.systemUTC()));
    }

    /**
     * The queue nodes under a lock's znode, as an operator sees them; empty if the znode is gone.
     * Syncs first: another client's server may lag behind the write this test just saw confirmed.
     */
    protected List<String> queueOf(FencedLock lock) throws Exception {
        sync(lock.path());
        try {
            return raw.getChildren().forPath(lock.path());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** The stat of {@code path} as an operator sees it after a sync; null if it does not exist. */
    protected Stat statOf(String path) throws Exception {
        sync(path);
        return raw.checkExists().forPath(path);
    }

    /** Brings the operator client's server up to date with the leader for {@code path}. */
    private void sync(String path) throws Exception {
        CountDownLatch synced = new CountDownLatch(1);
        raw.getZookeeperClient().getZooKeeper().sync(path, (rc, p, ctx) -> synced.countDown(), null);
        if (!synced.await(Ensemble.PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("sync of " + path + " did not complete");
        }
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Ensemble.PATIENCE).pollInterval(Duration.ofMillis(20));
    }
}
