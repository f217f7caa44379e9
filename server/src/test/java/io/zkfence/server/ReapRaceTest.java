package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;

/**
 * A replica that reads an entry as dead and deletes it races the entry's own replica, which may
 * renew it (or grant it, or a retry may extend its wait) in between. The delete is versioned, so
 * it fails; the reaper must then read again, not act as if the entry were gone.
 *
 * <p>The race is made deterministic: the reaper's clock runs ahead (so it reads the lease as
 * expired while the renewing replica, on the true clock, still finds it live), and the renew is
 * sent from inside the reaper's first delete, after its read and before its versioned delete
 * reaches ZooKeeper. Without skew the same interleaving happens when a renew just before
 * {@code expiresAt} crosses a waiter woken at {@code expiresAt}.
 */
class ReapRaceTest {

    private static final LockKey KEY = LockKey.parse("inventory:sku-raced");

    @Test
    void aLeaseRenewedWhileAnotherReplicaReapsItStaysAndTheWaiterIsNotGranted() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                CuratorFramework renewerZk = client(ensemble);
                CuratorFramework reaperZk = client(ensemble)) {
            LeaseStore renewer = new LeaseStore(renewerZk, "/race", Clock.systemUTC(), 3);
            Grant lease = renewer.acquire(KEY, "holder", 5_000, false, 0, null, CallerPresence.UNWATCHED);

            AtomicBoolean renewed = new AtomicBoolean();
            CuratorFramework reaperView = beforeFirstDelete(reaperZk, () -> {
                renewer.renew(KEY, lease.lockToken(), "holder", 60_000);
                renewed.set(true);
            });
            LeaseStore reaper =
                    new LeaseStore(reaperView, "/race", Clock.offset(Clock.systemUTC(), Duration.ofSeconds(10)), 3);

            LockServiceException refused = assertThrows(
                    LockServiceException.class,
                    () -> reaper.acquire(KEY, "other", 60_000, false, 0, null, CallerPresence.UNWATCHED));

            assertThat(renewed)
                    .as("the renew ran between the reaper's read and its delete")
                    .isTrue();
            assertThat(refused.code()).isEqualTo("LOCK_ALREADY_HELD");
            List<Entry> queue = renewer.status(KEY);
            assertThat(queue).hasSize(1);
            assertThat(queue.get(0).lockToken()).isEqualTo(lease.lockToken());
            assertThat(queue.get(0).granted()).isTrue();
        }
    }

    private static CuratorFramework client(EmbeddedEnsemble ensemble) {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }

    /** {@code zk}, except that {@code hook} runs once, on the first {@code delete()} builder asked for. */
    private static CuratorFramework beforeFirstDelete(CuratorFramework zk, Runnable hook) {
        AtomicBoolean ran = new AtomicBoolean();
        return CuratorSpy.onCall(zk, "delete", () -> {
            if (ran.compareAndSet(false, true)) {
                hook.run();
            }
        });
    }
}
