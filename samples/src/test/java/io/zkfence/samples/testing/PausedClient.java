package io.zkfence.samples.testing;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testing.Ensemble;
import io.zkfence.testkit.FreezableProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;

/**
 * A lock client that reaches ZooKeeper through a {@link FreezableProxy}, with a 4 s session:
 * {@link #freeze()} stops its heartbeats, so the servers expire its session and delete its nodes,
 * as they would for a paused or partitioned process.
 */
public final class PausedClient implements AutoCloseable {

    private final FreezableProxy proxy;
    private final CuratorFramework curator;
    private final LockClient locks;

    public PausedClient(Ensemble ensemble, String ownerId) {
        try {
            proxy = new FreezableProxy(
                    ensemble.cluster().getInstances().iterator().next().getPort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        curator = Ensemble.curator(proxy.connectString(), Duration.ofSeconds(4));
        locks = LockClient.create(
                curator, LockClientConfig.builder().ownerId(ownerId).build());
    }

    public LockClient locks() {
        return locks;
    }

    public void freeze() {
        proxy.freeze();
    }

    public void thaw() {
        proxy.thaw();
    }

    @Override
    public void close() {
        proxy.thaw();
        locks.close();
        curator.close();
        try {
            proxy.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
