package io.zkfence.samples.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.lock.CoordinationException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.samples.testing.EnsembleClients;
import io.zkfence.testing.Ensemble;
import io.zkfence.testing.TlsZooKeeperServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZooKeeperClientsTest {

    private final Ensemble ensemble = Ensemble.shared();

    @Test
    void creatorOnlyAclsKeepOtherIdentitiesAwayFromTheLock() throws Exception {
        try (CuratorFramework orders = ZooKeeperClients.authenticated(ensemble.connectString(), "orders", "s3cret");
                LockClient locks = ZooKeeperClients.lockClient(orders);
                CuratorFramework anonymous = ensemble.curator(Duration.ofSeconds(10));
                CuratorFramework billing =
                        ZooKeeperClients.authenticated(ensemble.connectString(), "billing", "other");
                LockClient billingLocks = LockClient.create(
                        billing,
                        LockClientConfig.builder().rootPath("/orders/locks").build())) {
            try (Lease lease = locks.lock("invoice:42").acquire(Duration.ofSeconds(30))) {
                assertThatThrownBy(() -> anonymous.getData().forPath(lease.nodePath()))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> anonymous.delete().forPath(lease.nodePath()))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> billingLocks.lock("invoice:42").tryAcquire())
                        .isInstanceOf(CoordinationException.class);
                assertThat(lease.isValid()).isTrue();
            }
            try (CuratorFramework ordersAgain =
                            ZooKeeperClients.authenticated(ensemble.connectString(), "orders", "s3cret");
                    LockClient sameIdentity = ZooKeeperClients.lockClient(ordersAgain)) {
                assertThat(sameIdentity.lock("invoice:42").tryAcquire())
                        .as("the same identity, another session")
                        .hasValueSatisfying(Lease::release);
            }
        }
    }

    @Test
    void locksWorkOverTlsWithClientCertificates(@TempDir Path dir) throws Exception {
        try (TlsZooKeeperServer server = TlsZooKeeperServer.start(dir)) {
            // The server's certificate is self-signed, so the client uses the server's own pair: it
            // trusts that certificate and presents it as the client certificate the server requires.
            TlsZooKeeperServer.Stores stores = server.stores();
            try (CuratorFramework curator = ZooKeeperClients.overTls(
                    server.connectString(), stores.keyStore(), stores.trustStore(), TlsZooKeeperServer.PASSWORD)) {
                assertThat(curator.blockUntilConnected(90, TimeUnit.SECONDS))
                        .as("TLS connection")
                        .isTrue();
                try (LockClient locks = LockClient.create(curator);
                        Lease lease = locks.lock("invoice:42").acquire(Duration.ofSeconds(30))) {
                    assertThat(lease.token()).isPositive();
                }
            }
            TlsZooKeeperServer.Stores stranger = TlsZooKeeperServer.keyPair(dir, "stranger", "localhost");
            try (CuratorFramework untrusting = ZooKeeperClients.overTls(
                    server.connectString(), stranger.keyStore(), stranger.trustStore(), TlsZooKeeperServer.PASSWORD)) {
                assertThat(untrusting.blockUntilConnected(5, TimeUnit.SECONDS))
                        .as("a client that does not trust the server's certificate, and is not trusted")
                        .isFalse();
            }
        }
    }

    @Test
    void theTlsPropertyNamesAreZooKeepersOwn() {
        ClientX509Util x509 = new ClientX509Util();
        assertThat(x509.getSslKeystoreLocationProperty()).isEqualTo("zookeeper.ssl.keyStore.location");
        assertThat(x509.getSslKeystorePasswdProperty()).isEqualTo("zookeeper.ssl.keyStore.password");
        assertThat(x509.getSslTruststoreLocationProperty()).isEqualTo("zookeeper.ssl.trustStore.location");
        assertThat(x509.getSslTruststorePasswdProperty()).isEqualTo("zookeeper.ssl.trustStore.password");
        assertThat(ZKClientConfig.SECURE_CLIENT).isEqualTo("zookeeper.client.secure");
        assertThat(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET).isEqualTo("zookeeper.clientCnxnSocket");
    }

    @Test
    void metricsCountWhatTheClientDid() {
        try (LockClient locks = EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("metrics"), "metrics-test")) {
            locks.lock("a").acquire(Duration.ofSeconds(30)).release();
            locks.lock("b").acquire(Duration.ofSeconds(30)).release();

            assertThat(ZooKeeperClients.metrics(locks))
                    .containsEntry("zkfence.grants", 2L)
                    .containsEntry("zkfence.releases", 2L)
                    .containsEntry("zkfence.leases.lost", 0L)
                    .containsKeys("zkfence.creates", "zkfence.children.reads", "zkfence.wakeups");
        }
    }
}
