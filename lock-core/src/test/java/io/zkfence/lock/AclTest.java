package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

class AclTest extends EnsembleTestBase {

    @Test
    void theConfiguredAclGuardsTheRootTheLockZnodeAndTheQueueNodes() throws Exception {
        // The test's own parent is open (it is shared with other tests); everything below it that
        // the lock client creates must get the configured ACL.
        raw.create().creatingParentsIfNeeded().forPath(root);
        CuratorFramework alice = closeLater(authenticated("alice:secret"));
        LockClient client = closeLater(new LockClient(
                alice,
                LockClientConfig.builder()
                        .rootPath(root + "/locks")
                        .ownerId("alice")
                        .acl(ZooDefs.Ids.CREATOR_ALL_ACL)
                        .build(),
                false,
                UnaryOperator.identity(),
                Clock.systemUTC()));
        FencedLock lock = client.lock("orders:42");
        try (Lease lease = lock.acquire()) {
            for (String path : new String[] {root + "/locks", lock.path(), lease.nodePath()}) {
                assertThat(alice.getACL().forPath(path))
                        .as(path)
                        .singleElement()
                        .extracting(ACL::getId)
                        .extracting(id -> id.getScheme())
                        .isEqualTo("digest");
            }
            // Someone else (here: unauthenticated) can neither take the holder's place nor queue.
            assertThrows(
                    KeeperException.NoAuthException.class, () -> raw.delete().forPath(lease.nodePath()));
            assertThrows(
                    KeeperException.NoAuthException.class,
                    () -> raw.getChildren().forPath(lock.path()));
            assertThrows(
                    KeeperException.NoAuthException.class, () -> raw.create().forPath(lock.path() + "/intruder"));
            assertThat(lease.state()).isEqualTo(LeaseState.HELD);
        }
    }

    private CuratorFramework authenticated(String userAndPassword) {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(ensemble.connectString())
                .sessionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 10, 500))
                .authorization("digest", userAndPassword.getBytes(StandardCharsets.UTF_8))
                .build();
        c.start();
        return c;
    }
}
