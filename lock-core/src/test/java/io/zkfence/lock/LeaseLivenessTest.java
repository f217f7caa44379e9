package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.Ensemble;
import io.zkfence.testkit.FreezableProxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.Test;

class LeaseLivenessTest extends EnsembleTestBase {

    private static final Duration SHORT_SESSION = Duration.ofSeconds(4);

    @Test
    void serverExpiresAStalledHoldersSessionAndTheNextHolderGetsAHigherToken() throws Exception {
        FreezableProxy proxy = closeLater(new FreezableProxy(firstServerPort()));
        LockClient stalled = clientThrough(proxy, "stalled");
        LockClient next = newClient("next");
        FencedLock lock = stalled.lock("inventory:sku:123");
        Lease old = lock.acquire();
        List<LeaseState> seen = new CopyOnWriteArrayList<>();
        old.addListener((lease, from, to) -> seen.add(to));

        CompletableFuture<Lease> successor = CompletableFuture.supplyAsync(
                () -> next.lock("inventory:sku:123").acquire());
        eventually().until(() -> queueOf(lock).size() == 2);
        proxy.freeze(); // no heartbeats reach the server from now on

        // The successor is granted while the old holder is still cut off: only the server can
        // have removed the old node, by expiring its session.
        Lease fresh = successor.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(fresh.token()).isGreaterThan(old.token());
        eventually().until(() -> old.state() == LeaseState.LOST);
        LeaseLostException e = assertThrows(LeaseLostException.class, old::checkValid);
        assertThat(e.lockName()).isEqualTo("inventory:sku:123");
        assertThat(e.token()).hasValue(old.token());
        eventually().until(() -> seen.equals(List.of(LeaseState.SUSPECT, LeaseState.LOST)));

        proxy.thaw();
        old.release(); // must not touch the new holder's node
        assertThat(old.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(fresh.state()).isEqualTo(LeaseState.HELD);
        LockInfo info = next.inspect("inventory:sku:123");
        assertThat(info.holder()).get().extracting(LockInfo.Entry::token).isEqualTo(fresh.token());
        assertThat(info.entries()).hasSize(1);
        fresh.release();
    }

    @Test
    void leaseIsSuspectWhileTheConnectionStallsAndHeldAgainWhenItReturns() throws Exception {
        FreezableProxy proxy = closeLater(new FreezableProxy(firstServerPort()));
        // 20 s (the servers' maximum): SUSPECT comes after two thirds of it, leaving time to reconnect.
        CuratorFramework curator = closeLater(Ensemble.curator(proxy.connectString(), Duration.ofSeconds(20)));
        LockClient client = newClient(curator, "blip", UnaryOperator.identity());
        try (Lease lease = client.lock("blip").acquire()) {
            List<String> transitions = new CopyOnWriteArrayList<>();
            lease.addListener((l, from, to) -> transitions.add(from + "->" + to));
            proxy.freeze();
            eventually().until(() -> lease.state() == LeaseState.SUSPECT);
            LeaseSuspendedException e = assertThrows(LeaseSuspendedException.class, lease::checkValid);
            assertThat(e.lockName()).isEqualTo("blip");
            assertThat(e.token()).hasValue(lease.token());
            assertThat(lease.isValid()).isFalse();
            proxy.thaw();
            eventually().until(() -> lease.state() == LeaseState.HELD);
            lease.checkValid();
            eventually().until(() -> transitions.equals(List.of("HELD->SUSPECT", "SUSPECT->HELD")));
        }
    }

    @Test
    void deletingTheHoldersNodeMakesTheLeaseLost() throws Exception {
        LockClient a = newClient("a");
        Lease lease = a.lock("operator-deletes").acquire();
        raw.delete().forPath(lease.nodePath());
        eventually().until(() -> lease.state() == LeaseState.LOST);
        assertThat(lease.endReason()).get().asString().contains("deleted");
        assertThat(lease.ended().toCompletableFuture().join()).isEqualTo(LeaseState.LOST);
        lease.release();
        assertThat(a.stats().leasesLost()).isEqualTo(1);
    }

    @Test
    void maxHoldReleasesTheLockAndMarksTheLeaseLost() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("bounded").withMaxHold(Duration.ofMillis(700));
        Lease lease = lock.acquire();
        assertThat(lease.deadline()).isPresent();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("bounded").acquire());
        try (Lease next = waiting.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(lease.state()).isEqualTo(LeaseState.LOST);
            assertThat(lease.endReason()).get().asString().contains("max-hold");
            assertThat(next.token()).isGreaterThan(lease.token());
            assertThrows(LeaseLostException.class, lease::renew);
        }
    }

    @Test
    void renewingKeepsAMaxHoldLeaseUntilRenewingStops() {
        LockClient a = newClient("a");
        Lease lease = a.lock("renewed").withMaxHold(Duration.ofMillis(1500)).acquire();
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
        try {
            renewer.scheduleAtFixedRate(lease::renew, 300, 300, TimeUnit.MILLISECONDS);
            // Twice the max-hold, still held because of the renewals.
            eventually().during(Duration.ofSeconds(3)).until(() -> lease.state() == LeaseState.HELD);
        } finally {
            renewer.shutdownNow();
        }
        eventually().until(() -> lease.state() == LeaseState.LOST);
    }

    @Test
    void renewWithoutAMaxHoldIsAnErrorNamingTheLock() {
        LockClient a = newClient("a");
        try (Lease lease = a.lock("no-max-hold").acquire()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, lease::renew);
            assertThat(e).hasMessageContaining("no-max-hold").hasMessageContaining("withMaxHold");
        }
    }

    @Test
    void nonPositiveMaxHoldIsRejected() {
        LockClient a = newClient("a");
        assertThrows(IllegalArgumentException.class, () -> a.lock("x").withMaxHold(Duration.ZERO));
    }

    @Test
    void leaseTtlIsTheNegotiatedSessionTimeout() {
        LockClient a = newClient("a");
        try (Lease lease = a.lock("ttl").acquire()) {
            assertThat(lease.ttl()).isEqualTo(Duration.ofSeconds(10));
        }
    }

    private int firstServerPort() {
        InstanceSpec first = ensemble.cluster().getInstances().iterator().next();
        return first.getPort();
    }

    private LockClient clientThrough(FreezableProxy proxy, String owner) {
        CuratorFramework curator = closeLater(Ensemble.curator(proxy.connectString(), SHORT_SESSION));
        LockClientConfig config =
                LockClientConfig.builder().rootPath(root).ownerId(owner).build();
        return closeLater(new LockClient(curator, config, false, UnaryOperator.identity(), Clock.systemUTC()));
    }
}
