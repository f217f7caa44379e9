package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

/** With --digest, the service's znodes belong to its ZooKeeper identity: other clients can neither read nor change leases. */
class ZooKeeperAclTest {

    @Test
    void leasesCreatedWithADigestIdentityAreClosedToOtherClients() throws Exception {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                CuratorFramework service = ServerCommand.zooKeeper(ensemble.connectString(), "zkfence-service:s3cret");
                CuratorFramework stranger = CuratorFrameworkFactory.newClient(
                        ensemble.connectString(), new ExponentialBackoffRetry(100, 3))) {
            service.start();
            stranger.start();
            LeaseService store = new LeaseService(
                            service,
                            ServerCommand.acl("zkfence-service:s3cret"),
                            Clock.systemUTC(),
                            LeaseService.Settings.defaults("/acl-service"))
                    .start();
            LeaseGrant grant = store.acquirer()
                    .acquire(
                            new Acquirer.Request(LockKey.parse("payments:tx-1"), "pod-1", 60_000, false, 0, null),
                            CallerPresence.UNWATCHED);

            String lockPath = "/acl-service/payments/tx-1";
            List<String> entries = service.getChildren().forPath(lockPath).stream()
                    .filter(n -> n.startsWith("e-"))
                    .toList();
            assertThat(entries).hasSize(1);
            String entry = lockPath + "/" + entries.get(0);
            assertThrows(
                    KeeperException.NoAuthException.class,
                    () -> stranger.delete().forPath(entry));
            assertThrows(
                    KeeperException.NoAuthException.class,
                    () -> stranger.setData().forPath(entry, new byte[0]));
            assertThrows(
                    KeeperException.NoAuthException.class,
                    () -> stranger.getData().forPath(entry));
            assertThrows(
                    KeeperException.NoAuthException.class,
                    () -> stranger.getData().forPath("/acl-service/_key"));
            assertThat(store.reads()
                            .status(LockKey.parse("payments:tx-1"))
                            .holder()
                            .fencingToken())
                    .isEqualTo(grant.fencingToken());
            store.close();
        }
    }

    @Test
    void aDigestWithoutAPasswordIsRefused() {
        assertThat(assertThrows(
                                IllegalArgumentException.class,
                                () -> ServerCommand.zooKeeper("127.0.0.1:1", "nopassword"))
                        .getMessage())
                .contains("user:password");
    }
}
