package io.zkfence.campaigns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The campaign's "session expires while it waits" fault, against a real ensemble. */
class SessionExpiryTest {

    private static EmbeddedEnsemble ensemble;

    @TempDir
    Path dir;

    @BeforeAll
    static void startEnsemble() {
        ensemble = EmbeddedEnsemble.start();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    private static CuratorFramework connect() throws InterruptedException {
        CuratorFramework c =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), 4_000, 15_000, new RetryOneTime(100));
        c.start();
        assertThat(c.blockUntilConnected(15, TimeUnit.SECONDS)).isTrue();
        return c;
    }

    @Test
    void aPublishedSessionReadsBackTheSame() {
        Path file = dir.resolve("w0.session");
        assertThat(SessionExpiry.read(file)).isEmpty();
        SessionExpiry.publish(file, new SessionExpiry.Session(0xfedcba9876543210L, new byte[] {1, 2, 3, -1}));
        SessionExpiry.Session back = SessionExpiry.read(file).orElseThrow();
        assertThat(back.id()).isEqualTo(0xfedcba9876543210L);
        assertThat(back.password()).containsExactly(1, 2, 3, -1);
    }

    @Test
    void theWaitersSessionIsExpiredByTheServerAndItsNodeLeavesTheQueue() throws Exception {
        try (CuratorFramework holderZk = connect();
                CuratorFramework waiterZk = connect();
                CuratorFramework observer = connect();
                LockClient holder = LockClient.create(
                        holderZk,
                        LockClientConfig.builder().rootPath("/faults/locks").build());
                LockClient waiter = LockClient.create(
                        waiterZk,
                        LockClientConfig.builder().rootPath("/faults/locks").build())) {
            ZooKeeper zk = waiterZk.getZookeeperClient().getZooKeeper();
            SessionExpiry.Session session = new SessionExpiry.Session(zk.getSessionId(), zk.getSessionPasswd());
            assertThat(SessionExpiry.waitingNode(observer, "/faults/locks", session.id()))
                    .as("nothing queued yet")
                    .isEmpty();
            Lease held = holder.lock("res-0").acquire();
            CompletableFuture<Lease> waiting =
                    CompletableFuture.supplyAsync(() -> waiter.lock("res-0").acquire(Duration.ofSeconds(60)));
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> SessionExpiry.waitingNode(observer, "/faults/locks", session.id())
                            .isPresent());
            String node = SessionExpiry.waitingNode(observer, "/faults/locks", session.id())
                    .orElseThrow();

            SessionExpiry.expire(ensemble.connectString(), session);

            await().atMost(Duration.ofSeconds(15))
                    .until(() -> observer.checkExists().forPath(node) == null);
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> waiterZk.getZookeeperClient().getZooKeeper().getSessionId() != session.id());
            assertThat(held.state()).as("the holder's session was not touched").isEqualTo(LeaseState.HELD);
            held.close();
            // The waiter queued again on its new session (docs/lock-core.md) and gets the lock now.
            try (Lease granted = waiting.get(30, TimeUnit.SECONDS)) {
                assertThat(granted.state()).isEqualTo(LeaseState.HELD);
                assertThat(granted.token()).isGreaterThan(held.token());
            }
            assertThat(SessionExpiry.waitingNode(observer, "/faults/locks", session.id()))
                    .isEmpty();
        }
    }
}
