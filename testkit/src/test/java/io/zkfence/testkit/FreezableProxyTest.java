package io.zkfence.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class FreezableProxyTest {

    @Test
    void aFrozenProxyStopsTheHeartbeatsSoTheServerExpiresTheSessionAndDeletesItsEphemeralNodes() throws Exception {
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.start();
                FreezableProxy proxy = new FreezableProxy(zk.servers().get(0).getPort());
                CuratorFramework cut = client(proxy.connectString(), 3_000);
                CuratorFramework observer = client(zk.connectString(), 10_000)) {
            String node = cut.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath("/proxy/e");
            observer.sync().forPath(node);
            assertThat(observer.checkExists().forPath(node)).isNotNull();

            proxy.freeze();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> observer.checkExists().forPath(node) == null);

            proxy.thaw();
            // After the thaw the client reconnects through the proxy (with a new session).
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> cut.getZookeeperClient().isConnected()
                            && cut.checkExists().forPath("/proxy") != null);
        }
    }

    @Test
    void whileFrozenNewConnectionsAreClosedAtOnce() throws Exception {
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder().servers(1).start();
                FreezableProxy proxy = new FreezableProxy(zk.servers().get(0).getPort())) {
            proxy.freeze();
            int port = Integer.parseInt(proxy.connectString().split(":")[1]);
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                assertThat(in.read()).isEqualTo(-1);
            }
        }
    }

    private static CuratorFramework client(String connectString, int sessionMs) {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionMs)
                .ensembleTracker(false)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 500))
                .build();
        c.start();
        return c;
    }
}
