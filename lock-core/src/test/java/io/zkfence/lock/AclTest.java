package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
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

    /**
     * A lock znode whose ACL lets the client create and delete queue nodes but not write the znode
     * itself refuses the release record: the release still deletes the node (the next waiter is
     * granted), and the client's later releases are plain deletes.
     */
    @Test
    void aLockZnodeThatRefusesTheReleaseRecordStillReleasesAndTheNextWaiterIsGranted() throws Exception {
        raw.create().creatingParentsIfNeeded().forPath(root + "/locks");
        String lockPath = LockPaths.lockPath(root + "/locks", "orders:7");
        Id alice = new Id("digest", DigestAuthenticationProvider.generateDigest("alice:secret"));
        raw.create()
                .withACL(List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE, alice)))
                .forPath(lockPath);
        LockClient first = aliceClient("alice-1");
        LockClient second = aliceClient("alice-2");
        Lease held = first.lock("orders:7").acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> second.lock("orders:7").acquire());
        CuratorFramework aliceReads = closeLater(authenticated("alice:secret"));
        eventually().until(() -> aliceReads.getChildren().forPath(lockPath).size() == 2);

        held.release();

        assertThat(held.state()).isEqualTo(LeaseState.RELEASED);
        try (Lease next = waiting.get(30, TimeUnit.SECONDS)) {
            assertThat(next.token()).isGreaterThan(held.token());
        }
        assertThat(first.runtime().recordsReleases())
                .as("the refused client stops recording")
                .isFalse();
        assertThat(ReleaseRecord.decode(aliceReads.getData().forPath(lockPath)))
                .as("no record was written")
                .isEmpty();
        eventually().until(() -> aliceReads.getChildren().forPath(lockPath).isEmpty());
    }

    private LockClient aliceClient(String ownerId) {
        return closeLater(new LockClient(
                closeLater(authenticated("alice:secret")),
                LockClientConfig.builder()
                        .rootPath(root + "/locks")
                        .ownerId(ownerId)
                        .acl(ZooDefs.Ids.CREATOR_ALL_ACL)
                        .build(),
                false,
                UnaryOperator.identity(),
                Clock.systemUTC()));
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
