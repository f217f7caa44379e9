package io.zkfence.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zkfence.testkit.internal.ListenPorts;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedEnsembleTest {

    private static EmbeddedEnsemble zk;

    @BeforeAll
    static void start() {
        zk = EmbeddedEnsemble.builder()
                .servers(3)
                .tickTime(Duration.ofSeconds(1))
                .start();
    }

    @AfterAll
    static void stop() {
        zk.close();
    }

    @Test
    void threeServersElectExactlyOneLeaderOnDistinctPorts() {
        List<InstanceSpec> servers = zk.servers();
        assertThat(servers).hasSize(3);
        assertThat(servers.stream().map(zk::mode)).containsExactlyInAnyOrder("leader", "follower", "follower");
        Set<Integer> ports = new HashSet<>();
        for (InstanceSpec s : servers) {
            ports.add(s.getPort());
            ports.add(s.getElectionPort());
            ports.add(s.getQuorumPort());
        }
        assertThat(ports).hasSize(9);
        assertThat(zk.connectString().split(",")).hasSize(3);
        assertThat(zk.tickTime()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void serversListenBelowTheEphemeralPortRangeSoNoOutgoingConnectionTakesAKilledServersPort() {
        int ephemeralLow = ListenPorts.ephemeralLow();
        assumeTrue(ephemeralLow > 0, "the system does not say where its ephemeral ports start (not Linux)");
        for (InstanceSpec s : zk.servers()) {
            assertThat(List.of(s.getPort(), s.getElectionPort(), s.getQuorumPort()))
                    .allSatisfy(port -> assertThat(port).isBetween(ListenPorts.LOWEST, ephemeralLow - 1));
        }
    }

    @Test
    void theQuorumKeepsServingWithOneServerKilledAndTheServerComesBack() throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(
                zk.connectString(), 10_000, 10_000, new ExponentialBackoffRetry(50, 20, 500))) {
            client.start();
            InstanceSpec follower = zk.servers().stream()
                    .filter(s -> zk.mode(s).equals("follower"))
                    .findFirst()
                    .orElseThrow();
            zk.kill(follower);
            assertThat(zk.mode(follower)).isEmpty();
            client.create().creatingParentsIfNeeded().forPath("/testkit/with-one-down", new byte[] {1});
            zk.restart(follower);
            zk.awaitAllServing(Duration.ofSeconds(60));
            assertThat(zk.mode(follower)).isEqualTo("follower");
            assertThat(client.getData().forPath("/testkit/with-one-down")).containsExactly(1);
        }
    }

    @Test
    void aKilledLeaderNoLongerHoldsItsClientQuorumOrElectionPort() throws Exception {
        InstanceSpec leader = zk.leader();
        zk.kill(leader);
        try {
            for (int port : new int[] {leader.getPort(), leader.getQuorumPort(), leader.getElectionPort()}) {
                try (ServerSocket free = new ServerSocket(port)) {
                    assertThat(free.getLocalPort()).isEqualTo(port);
                }
            }
        } finally {
            zk.restart(leader);
            zk.awaitAllServing(Duration.ofSeconds(60));
        }
    }

    @Test
    void waitingForAllServersWhileOneIsDownFailsNamingEveryServersMode() {
        InstanceSpec follower = zk.servers().stream()
                .filter(s -> zk.mode(s).equals("follower"))
                .findFirst()
                .orElseThrow();
        zk.kill(follower);
        try {
            IllegalStateException notAll =
                    assertThrows(IllegalStateException.class, () -> zk.awaitAllServing(Duration.ofMillis(300)));
            assertThat(notAll)
                    .hasMessageContaining("did not all serve within 300 ms")
                    .hasMessageContaining("leader")
                    .hasMessageContaining("follower");
        } finally {
            zk.restart(follower);
            zk.awaitAllServing(Duration.ofSeconds(60));
        }
    }

    @Test
    void badSettingsAreRejectedNamingTheSetting() {
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> EmbeddedEnsemble.builder().servers(0)))
                .hasMessageContaining("servers");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> EmbeddedEnsemble.builder().tickTime(Duration.ZERO)))
                .hasMessageContaining("tickTime");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> EmbeddedEnsemble.builder().maxClientConnections(-1)))
                .hasMessageContaining("maxClientConnections");
    }
}
