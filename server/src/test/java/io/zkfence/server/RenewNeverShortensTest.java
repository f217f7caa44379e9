package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;

/**
 * A renewal never moves a lease's expiry back under what an earlier answer told its holder: a
 * renewal through a replica whose clock is behind, or one that read its clock before another
 * renewal's write reached ZooKeeper (its answer lost, its request held by a proxy), keeps the later
 * expiry. The fault campaign met the second: a renewal answered through one replica, then an
 * earlier renewal applied late through another, and the lease ended 0.5 to 1.9 s before the first
 * renewal's answered validity.
 */
class RenewNeverShortensTest {

    private static final LockKey KEY = LockKey.parse("inventory:sku-renewed");

    @Test
    void aRenewalThroughAReplicaWhoseClockIsBehindKeepsTheLaterExpiry() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                CuratorFramework aZk = client(ensemble);
                CuratorFramework bZk = client(ensemble);
                StoreUnderTest a = new StoreUnderTest(aZk, "/renew");
                StoreUnderTest behind = new StoreUnderTest(
                        bZk,
                        "/renew",
                        Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-3)),
                        LeaseService.Settings.defaults("/renew"))) {
            LeaseGrant lease = a.acquire(KEY, "holder", 10_000);
            long answered = a.renew(KEY, lease, 10_000);

            long again = behind.renew(KEY, lease, 10_000);

            assertThat(again).isEqualTo(answered);
            assertThat(a.queue(KEY).get(0).data().expiresAt()).isEqualTo(answered);
        }
    }

    @Test
    void aRenewalThatReadItsClockBeforeAnotherRenewalWroteKeepsTheOthersExpiry() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                CuratorFramework aZk = client(ensemble);
                CuratorFramework bZk = client(ensemble);
                StoreUnderTest a = new StoreUnderTest(aZk, "/renew");
                StoreUnderTest slow = new StoreUnderTest(bZk, "/renew")) {
            LeaseGrant lease = a.acquire(KEY, "holder", 10_000);
            String entry = a.queue(KEY).get(0).name().node();
            AtomicBoolean once = new AtomicBoolean();
            AtomicLong answeredMeanwhile = new AtomicLong();
            slow.wire().injectFaults((kind, path) -> {
                // The slow renewal's read of the entry: its clock was read before it; another
                // renewal, with a longer TTL, is answered before the read reaches ZooKeeper.
                if (kind.equals("data") && path.endsWith("/" + entry) && once.compareAndSet(false, true)) {
                    answeredMeanwhile.set(a.renew(KEY, lease, 20_000));
                }
                return null;
            });

            long slowAnswer = slow.renew(KEY, lease, 10_000);

            assertThat(once).as("the other renewal ran inside the slow one").isTrue();
            assertThat(slowAnswer).isEqualTo(answeredMeanwhile.get());
            assertThat(a.queue(KEY).get(0).data().expiresAt()).isEqualTo(answeredMeanwhile.get());
        }
    }

    private static CuratorFramework client(EmbeddedEnsemble ensemble) {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }
}
