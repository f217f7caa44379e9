package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.RoutedClientCnxnSocket;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;

/**
 * A replica's cut-off from ZooKeeper is real: a Curator client built as the replica's command builds
 * it (the ensemble tracker on) learns the servers' own addresses, yet with the routed socket every
 * connection still goes through its proxies, so freezing them ends its session.
 */
class RoutedClientCnxnSocketTest {

    @Test
    void aClientWithTheEnsembleTrackerStaysOnItsProxiesAndLosesItsSessionWhenTheyFreeze() throws Exception {
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.start()) {
            List<FreezableProxy> proxies = new ArrayList<>();
            List<String> routes = new ArrayList<>();
            for (var server : zk.servers()) {
                FreezableProxy p = new FreezableProxy(server.getPort());
                proxies.add(p);
                routes.add(server.getPort() + "="
                        + p.connectString().substring(p.connectString().lastIndexOf(':') + 1));
            }
            ZKClientConfig config = new ZKClientConfig();
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, RoutedClientCnxnSocket.class.getName());
            config.setProperty(RoutedClientCnxnSocket.ROUTES, String.join(",", routes));
            CountDownLatch lost = new CountDownLatch(1);
            try (CuratorFramework client = CuratorFrameworkFactory.builder()
                    .connectString(
                            proxies.stream().map(FreezableProxy::connectString).collect(Collectors.joining(",")))
                    .zkClientConfig(config)
                    .sessionTimeoutMs(4_000)
                    .connectionTimeoutMs(2_000)
                    .retryPolicy(new RetryOneTime(100))
                    .build()) {
                client.getConnectionStateListenable().addListener((c, state) -> {
                    if (state == ConnectionState.LOST) {
                        lost.countDown();
                    }
                });
                client.start();
                assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
                // What the ensemble tracker does once it reads /zookeeper/config (when it does is up to
                // Curator): the servers' own addresses in place of the proxies.
                client.getZookeeperClient().getZooKeeper().updateServerList(zk.connectString());

                proxies.forEach(FreezableProxy::freeze);

                assertThat(lost.await(60, TimeUnit.SECONDS))
                        .as("the session ends")
                        .isTrue();
                assertThatThrownBy(() -> client.checkExists().forPath("/")).isInstanceOf(Exception.class);
            } finally {
                for (FreezableProxy p : proxies) {
                    p.close();
                }
            }
        }
    }

    @Test
    void malformedRoutesAreRefusedNamingTheProperty() {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(RoutedClientCnxnSocket.ROUTES, "2181:9999");
        assertThatThrownBy(() -> new RoutedClientCnxnSocket(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RoutedClientCnxnSocket.ROUTES)
                .hasMessageContaining("2181:9999");
    }
}
