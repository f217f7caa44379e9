package io.zkfence.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Tests on the shared 3-server ensemble; each test gets its own root path and clients. */
abstract class EnsembleTestBase {

    protected Ensemble ensemble;
    protected String root;
    /** A plain Curator client for looking at znodes the way an operator would. */
    protected CuratorFramework raw;
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

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

    @AfterEach
    void closeEverything() throws Exception {
        Exception first = null;
        while (!closeables.isEmpty()) {
            try {
                closeables.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    protected <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.push(closeable);
        return closeable;
    }

    /** A lock client on its own session (10 s) on the whole ensemble. */
    protected LockClient newClient(String ownerId) {
        return closeLater(ensemble.client(root, ownerId));
    }

    /** A lock client on a given Curator client, with its gateway decorated (fault injection). */
    protected LockClient newClient(CuratorFramework curator, String ownerId, UnaryOperator<ZkGateway> decorate) {
        LockClientConfig config = LockClientConfig.builder().rootPath(root).ownerId(ownerId).build();
        return closeLater(new LockClient(curator, config, false, decorate, Clock.systemUTC()));
    }

    /** The queue nodes under a lock's znode, as an operator sees them; empty if the znode is gone. */
    protected List<String> queueOf(FencedLock lock) throws Exception {
        try {
            return raw.getChildren().forPath(lock.path());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Ensemble.PATIENCE).pollInterval(Duration.ofMillis(20));
    }
}
