package io.zkfence.shedlock;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** One application instance: its own ZooKeeper session, lock client and provider. */
final class Replica implements AutoCloseable {

    final CuratorFramework curator;
    final LockClient client;
    final ZkfenceLockProvider provider;

    Replica(String connectString, String owner, Duration sessionTimeout) {
        curator = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                .build();
        curator.start();
        try {
            if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        // snippet:provider
        client = LockClient.create(
                curator, LockClientConfig.builder().ownerId(owner).build());
        provider = ZkfenceLockProvider.create(client, curator); // records under /zkfence/shedlock
        // end:provider
    }

    @Override
    public void close() {
        client.close();
        curator.close();
    }
}
