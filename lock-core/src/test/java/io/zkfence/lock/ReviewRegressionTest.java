package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.Ensemble;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** Behaviours a code review found wrong, each kept right by a test. */
class ReviewRegressionTest extends EnsembleTestBase {

    @Test
    void aTimeoutTooLongForNanosecondsMeansNoTimeoutAndLeavesNothingBehind() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("forever");
        Lease held = lock.acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("forever").acquire(ChronoUnit.FOREVER.getDuration()));
        eventually().until(() -> queueOf(lock).size() == 2);
        held.release();
        try (Lease next = waiting.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(next.token()).isGreaterThan(held.token());
        }
        eventually().until(() -> queueOf(lock).isEmpty());
        assertThat(b.stats().grants()).isEqualTo(b.stats().releases());
    }

    @Test
    void renewsFromTwoThreadsAtOnceLeaveNoStrayMaxHoldTimer() throws Exception {
        LockClient a = newClient("a");
        Lease lease =
                a.lock("renewed-twice").withMaxHold(Duration.ofMillis(1500)).acquire();
        CountDownLatch go = new CountDownLatch(1);
        Runnable burst = () -> {
            try {
                go.await();
                for (int i = 0; i < 200; i++) {
                    lease.renew();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CompletableFuture<Void> one = CompletableFuture.runAsync(burst);
        CompletableFuture<Void> two = CompletableFuture.runAsync(burst);
        go.countDown();
        CompletableFuture.allOf(one, two).get();
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
        try {
            renewer.scheduleAtFixedRate(lease::renew, 0, 200, TimeUnit.MILLISECONDS);
            // Well past the first deadline: a timer left behind by the burst would have fired.
            eventually().during(Duration.ofSeconds(3)).until(() -> lease.state() == LeaseState.HELD);
        } finally {
            renewer.shutdownNow();
        }
        lease.release();
    }

    @Test
    void aCuratorClosedBeforeTheLockClientFailsAcquiresAtOnceNamingTheCause() throws Exception {
        CuratorFramework curator = ensemble.curator(Duration.ofSeconds(10));
        LockClient client = newClient(curator, "orphaned", UnaryOperator.identity());
        FencedLock lock = client.lock("curator-closed");
        curator.close();
        long started = System.nanoTime();
        LockClientClosedException e =
                assertThrows(LockClientClosedException.class, () -> lock.acquire(Duration.ofMinutes(5)));
        assertThat(e).hasMessageContaining("CuratorFramework was closed");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started))
                .as("did not wait for the timeout")
                .isLessThan(60);
        assertThrows(LockClientClosedException.class, lock::tryAcquire);
    }

    @Test
    void closingTheClientReleasesEveryReentrantHold() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("reentrant-close");
        Lease outer = lock.acquire();
        Lease inner = lock.acquire();
        a.close();
        assertThat(outer.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(inner.state()).isEqualTo(LeaseState.RELEASED);
        eventually().until(() -> queueOf(lock).isEmpty());
    }

    @Test
    void aWaiterWhoseNodeAnOperatorDeletedEndsLostWhenItReachesTheHeadOnTheFastPath() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("deleted-waiter");
        Lease held = lock.acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("deleted-waiter").acquire());
        eventually().until(() -> queueOf(lock).size() == 2);
        String waiterNode = queueOf(lock).stream()
                .filter(n -> !held.nodePath().endsWith("/" + n))
                .findFirst()
                .orElseThrow();
        raw.delete().forPath(lock.path() + "/" + waiterNode);
        held.release();
        Lease granted = waiting.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        eventually().until(() -> granted.state() == LeaseState.LOST);
        assertThat(granted.endReason()).get().asString().contains("deleted");
        granted.release();
    }

    @Test
    void theClockOfAClientIsOnlyUsedForTheRequestTime() {
        // Guards the test seam: a fixed clock changes what inspect shows, nothing else.
        CuratorFramework curator = closeLater(ensemble.curator(Duration.ofSeconds(10)));
        Clock fixed = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);
        LockClient client = closeLater(new LockClient(
                curator,
                LockClientConfig.builder().rootPath(root).ownerId("t").build(),
                false,
                UnaryOperator.identity(),
                fixed));
        try (Lease lease = client.lock("clocked").acquire()) {
            assertThat(client.inspect("clocked").holder().orElseThrow().requestedAt())
                    .isEqualTo(fixed.instant());
        }
    }
}
