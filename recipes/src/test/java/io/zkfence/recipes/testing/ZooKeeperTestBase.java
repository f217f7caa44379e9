package io.zkfence.recipes.testing;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testing.Ensemble;
import io.zkfence.testing.Teardown;
import io.zkfence.testkit.FreezableProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tests on lock-core's shared 3-server ensemble: a fresh root path per test, lock clients on
 * their own sessions, clients behind a freezable proxy whose sessions the servers expire, and
 * cleanup in reverse order of creation.
 */
public abstract class ZooKeeperTestBase {

    /** Short enough that a frozen client's session is expired by the servers within seconds. */
    protected static final Duration SHORT_SESSION = Duration.ofSeconds(4);

    protected Ensemble ensemble;
    protected String root;
    /** Closes what the test made, newest first, after the test. */
    @RegisterExtension
    final Teardown teardown = Teardown.afterEach();

    private ExecutorService threads;

    @BeforeEach
    void setUpEnsemble() {
        threads = null;
        ensemble = Ensemble.shared();
        root = Ensemble.freshRoot(getClass().getSimpleName());
    }

    /**
     * Runs {@code task} on a thread of its own (not the common pool, which has a single thread
     * on a 2-core machine, so two blocking tasks there would run one after the other).
     */
    protected <T> CompletableFuture<T> async(Supplier<T> task) {
        if (threads == null) {
            ExecutorService pool = Executors.newCachedThreadPool();
            threads = pool;
            closeLater(() -> {
                pool.shutdownNow();
                if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("test threads did not stop");
                }
            });
        }
        return CompletableFuture.supplyAsync(task, threads);
    }

    protected <T extends AutoCloseable> T closeLater(T closeable) {
        return teardown.closeLater(closeable);
    }

    /** A lock client on its own 10 s session on the whole ensemble. */
    protected LockClient client(String ownerId) {
        return closeLater(LockClient.connect(
                ensemble.connectString(),
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId(ownerId)
                        .sessionTimeout(Duration.ofSeconds(10))
                        .build()));
    }

    /** A freezable proxy in front of the first server. */
    protected FreezableProxy proxy() {
        try {
            return closeLater(new FreezableProxy(
                    ensemble.cluster().getInstances().iterator().next().getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A lock client that reaches ZooKeeper only through {@code proxy}: freezing the proxy cuts it
     * off, and the servers expire its session after {@code session}. Bounded calls give up after
     * {@code operationTimeout}.
     */
    protected LockClient clientThrough(
            FreezableProxy proxy, String ownerId, Duration session, Duration operationTimeout) {
        CuratorFramework curator = closeLater(Ensemble.curator(proxy.connectString(), session));
        return closeLater(LockClient.create(
                curator,
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId(ownerId)
                        .operationTimeout(operationTimeout)
                        .build()));
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Ensemble.PATIENCE).pollInterval(Duration.ofMillis(20));
    }
}
