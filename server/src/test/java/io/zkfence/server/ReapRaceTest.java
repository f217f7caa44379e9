package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A replica that reads a lease as expired and deletes it, while another replica renews it in
 * between, must leave the renewed lease in place: its delete is versioned on the version it read.
 *
 * <p>The race is made deterministic: the reaper's clock runs ahead (so it reads the lease as
 * expired while the renewing replica, on the true clock, still finds it live), and the renew is
 * sent from inside the reaper's removal, after its read and before its versioned delete reaches
 * ZooKeeper. Without skew the same interleaving happens when a renew just before
 * {@code expiresAt} crosses a waiter woken at {@code expiresAt}.
 */
class ReapRaceTest {

    private static final LockKey KEY = LockKey.parse("inventory:sku-raced");

    @Test
    void aLeaseRenewedWhileAnotherReplicaReapsItStaysAndTheOtherCallerIsRefused() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                StoreUnderTest renewer = StoreUnderTest.connect(ensemble, "/race");
                StoreUnderTest reaper = StoreUnderTest.connect(
                        ensemble,
                        "/race",
                        Clock.offset(Clock.systemUTC(), Duration.ofSeconds(10)),
                        LeaseService.Settings.defaults("/race"))) {
            LeaseGrant lease = renewer.acquire(KEY, "holder", 5_000);
            String entry = renewer.queue(KEY).get(0).name().node();

            AtomicBoolean renewed = new AtomicBoolean();
            reaper.wire().injectFaults((kind, path) -> {
                // The reaper's removal of the holder's entry: a multi whose first op deletes it.
                if (kind.equals("multi") && path.endsWith("/" + entry) && renewed.compareAndSet(false, true)) {
                    renewer.renew(KEY, lease, 60_000);
                }
                return null;
            });

            LockServiceException refused =
                    assertThrows(LockServiceException.class, () -> reaper.acquire(KEY, "other", 60_000));

            assertThat(renewed)
                    .as("the renew ran between the reaper's read and its delete")
                    .isTrue();
            assertThat(refused.code()).isEqualTo(ErrorCode.LOCK_ALREADY_HELD);
            List<QueueEntry> queue = renewer.queue(KEY);
            assertThat(queue).hasSize(1);
            assertThat(queue.get(0).fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(queue.get(0).data().expiresAt()).isGreaterThan(System.currentTimeMillis() + 30_000);
        }
    }
}
