package io.zkfence.samples.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import java.io.IOException;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;

/** The example of testkit/README.md: a holder cut off until the servers expire its session. */
class TestkitExampleTest {

    @Test
    void aHolderCutOffByTheProxyLosesTheLockToANewHolderWithAHigherToken() throws IOException {
        // snippet:testkit
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder()
                        .servers(3)
                        .tickTime(Duration.ofSeconds(1))
                        .start();
                FreezableProxy proxy = new FreezableProxy(zk.servers().get(0).getPort());
                CuratorFramework throughProxy = CuratorFrameworkFactory.builder()
                        .connectString(proxy.connectString())
                        .ensembleTracker(false) // keep to the proxy's address
                        .sessionTimeoutMs(4_000)
                        .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                        .build();
                LockClient next = LockClient.connect(zk.connectString())) {
            throughProxy.start();
            LockClient paused = LockClient.create(throughProxy, LockClientConfig.defaults());
            Lease old = paused.lock("orders:42").acquire();
            proxy.freeze(); // no heartbeat reaches the server any more
            Lease fresh = next.lock("orders:42").acquire(); // granted once the server expired the session
            assertThat(fresh.token()).isGreaterThan(old.token()); // your resource must now reject old.token()
            paused.close();
        }
        // end:testkit
    }
}
