package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zkfence.testing.Ensemble;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** Each meter moves when its event happens, on the real ensemble. */
class LockClientMetricsTest extends EnsembleTestBase {

    private static MeterRegistry bound(LockClient client) {
        MeterRegistry registry = new SimpleMeterRegistry();
        LockClientMetrics.of(client).bindTo(registry);
        return registry;
    }

    private static double count(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private static long timerCount(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).timer().count();
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    @Test
    void aGrantRecordsAcquireLatencyAGrantAndOnReleaseItsHoldTime() {
        LockClient a = newClient("a");
        MeterRegistry registry = bound(a);
        assertThat(count(registry, "zkfence.lock.grants")).isZero();

        try (Lease lease = a.lock("grant").acquire()) {
            assertThat(lease.isValid()).isTrue();
            assertThat(count(registry, "zkfence.lock.grants", "owner", "a")).isEqualTo(1);
            Timer acquire = registry.get("zkfence.lock.acquire").timer();
            assertThat(acquire.count()).isEqualTo(1);
            assertThat(acquire.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(gauge(registry, "zkfence.lock.held")).isEqualTo(1);
            // Uncontended: it never waited behind anyone.
            assertThat(timerCount(registry, "zkfence.lock.wait")).isZero();
        }
        assertThat(timerCount(registry, "zkfence.lock.hold", "end", "released")).isEqualTo(1);
        assertThat(timerCount(registry, "zkfence.lock.hold", "end", "lost")).isZero();
        assertThat(gauge(registry, "zkfence.lock.held")).isZero();
        assertThat(registry.get("zkfence.lock.releases").functionCounter().count())
                .isEqualTo(1);
        assertThat(registry.get("zkfence.zk.creates").functionCounter().count())
                .isEqualTo(a.stats().creates());
    }

    @Test
    void aWaiterShowsInTheGaugesThenRecordsItsWaitAndOneWakeUp() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        MeterRegistry registry = bound(b);
        Lease held = a.lock("contended").acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("contended").acquire());

        eventually().until(() -> gauge(registry, "zkfence.lock.waiters") == 1);
        assertThat(gauge(registry, "zkfence.lock.queue.depth")).isEqualTo(2);

        held.release();
        try (Lease next = waiting.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(next.isValid()).isTrue();
            Timer wait = registry.get("zkfence.lock.wait").timer();
            assertThat(wait.count()).isEqualTo(1);
            assertThat(wait.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(count(registry, "zkfence.lock.wakeups")).isEqualTo(1);
            assertThat(gauge(registry, "zkfence.lock.waiters")).isZero();
            assertThat(gauge(registry, "zkfence.lock.queue.depth")).isZero();
        }
    }

    @Test
    void aTimedOutAcquireCountsATimeoutAndNoGrant() {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        MeterRegistry registry = bound(b);
        try (Lease held = a.lock("busy").acquire()) {
            assertThat(held.isValid()).isTrue();
            assertThrows(AcquireTimeoutException.class, () -> b.lock("busy").acquire(Duration.ofMillis(200)));
        }
        assertThat(count(registry, "zkfence.lock.timeouts")).isEqualTo(1);
        assertThat(count(registry, "zkfence.lock.grants")).isZero();
    }

    @Test
    void aFailedTryAcquireIsNotATimeout() {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        MeterRegistry registry = bound(b);
        try (Lease held = a.lock("tried").acquire()) {
            assertThat(held.isValid()).isTrue();
            assertThat(b.lock("tried").tryAcquire()).isEmpty();
        }
        assertThat(count(registry, "zkfence.lock.timeouts")).isZero();
    }

    @Test
    void aSessionExpiryCountsASuspectMoveAndALeaseLostForSessionExpired() throws Exception {
        FreezableProxy proxy = closeLater(new FreezableProxy(
                ensemble.cluster().getInstances().iterator().next().getPort()));
        CuratorFramework curator = closeLater(Ensemble.curator(proxy.connectString(), Duration.ofSeconds(4)));
        LockClient stalled = newClient(curator, "stalled", UnaryOperator.identity());
        LockClient next = newClient("next");
        MeterRegistry registry = bound(stalled);
        Lease old = stalled.lock("expiring").acquire();
        CompletableFuture<Lease> successor =
                CompletableFuture.supplyAsync(() -> next.lock("expiring").acquire());
        eventually().until(() -> queueOf(stalled.lock("expiring")).size() == 2);

        proxy.freeze(); // no heartbeats: the servers expire the session, the successor is granted
        try (Lease fresh = successor.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(fresh.token()).isGreaterThan(old.token());
            eventually().until(() -> old.state() == LeaseState.LOST);
            // The meters are told right after the state changes, on the thread that ended the lease.
            eventually()
                    .untilAsserted(() -> assertThat(count(registry, "zkfence.lease.lost", "cause", "session_expired"))
                            .isEqualTo(1));
            assertThat(count(registry, "zkfence.lease.suspect")).isEqualTo(1);
            assertThat(count(registry, "zkfence.lease.lost", "cause", "node_deleted"))
                    .isZero();
            assertThat(timerCount(registry, "zkfence.lock.hold", "end", "lost")).isEqualTo(1);
        } finally {
            proxy.thaw();
        }
    }

    @Test
    void aForcedReleaseCountsOnTheAdminAndAsANodeDeletedLossOnTheHolder() {
        LockClient holder = newClient("holder");
        LockClient operator = newClient("operator");
        MeterRegistry holderMeters = bound(holder);
        MeterRegistry operatorMeters = bound(operator);
        Lease lease = holder.lock("stuck").acquire();

        ForcedRelease done = operator.admin("/zkfence-audit-metrics" + root, 10).forceRelease("stuck", "metrics test");

        assertThat(done.outcome()).isEqualTo(ForcedRelease.Outcome.RELEASED);
        assertThat(count(operatorMeters, "zkfence.admin.force.releases", "outcome", "released"))
                .isEqualTo(1);
        eventually().until(() -> lease.state() == LeaseState.LOST);
        // The meters are told right after the state changes, on the thread that ended the lease.
        eventually()
                .untilAsserted(() -> assertThat(count(holderMeters, "zkfence.lease.lost", "cause", "node_deleted"))
                        .isEqualTo(1));
        assertThat(count(operatorMeters, "zkfence.admin.force.releases", "outcome", "not_held"))
                .isZero();
        lease.release();
    }

    @Test
    void aPassedMaxHoldCountsALeaseLostForMaxHold() {
        LockClient a = newClient("a");
        MeterRegistry registry = bound(a);
        Lease lease = a.lock("bounded").withMaxHold(Duration.ofMillis(300)).acquire();
        eventually().until(() -> lease.state() == LeaseState.LOST);
        // The meters are told right after the state changes, on the thread that ended the lease.
        eventually()
                .untilAsserted(() -> assertThat(count(registry, "zkfence.lease.lost", "cause", "max_hold"))
                        .isEqualTo(1));
        assertThat(timerCount(registry, "zkfence.lock.hold", "end", "lost")).isEqualTo(1);
        assertThat(timerCount(registry, "zkfence.lock.hold", "end", "released")).isZero();
    }

    @Test
    void lockNamesAreTaggedOnlyWhenTheUserOptsInWithABoundedGroup() {
        LockClient a = newClient("a");
        MeterRegistry plain = bound(a);
        MeterRegistry grouped = new SimpleMeterRegistry();
        LockClientMetrics.builder(a)
                .lockTag(name -> name.substring(0, name.indexOf(':')))
                .build()
                .bindTo(grouped);

        a.lock("inventory:sku:1").acquire().release();
        a.lock("inventory:sku:2").acquire().release();
        a.lock("orders:7").acquire().release();

        assertThat(plain.getMeters())
                .allSatisfy(m -> assertThat(m.getId().getTag("lock")).isNull());
        assertThat(count(plain, "zkfence.lock.grants")).isEqualTo(3);
        assertThat(count(grouped, "zkfence.lock.grants", "lock", "inventory")).isEqualTo(2);
        assertThat(count(grouped, "zkfence.lock.grants", "lock", "orders")).isEqualTo(1);
        assertThat(grouped.find("zkfence.lock.grants").counters()).hasSize(2);
    }

    @Test
    void bindingTwiceToOneRegistryCountsOnce() {
        LockClient a = newClient("a");
        MeterRegistry registry = new SimpleMeterRegistry();
        LockClientMetrics metrics = LockClientMetrics.of(a);
        metrics.bindTo(registry);
        metrics.bindTo(registry);
        LockClientMetrics.of(a).bindTo(registry); // another binder, same client and registry
        a.lock("once").acquire().release();
        assertThat(count(registry, "zkfence.lock.grants")).isEqualTo(1);
        assertThat(registry.getMeters()).extracting(Meter::getId).doesNotHaveDuplicates();
    }

    @Test
    void timersPublishAPercentileHistogramUnlessTurnedOff() {
        LockClient a = newClient("a");
        MeterRegistry on = new SimpleMeterRegistry();
        MeterRegistry off = new SimpleMeterRegistry();
        Map<String, Boolean> onHistogram = histogramSettings(on);
        Map<String, Boolean> offHistogram = histogramSettings(off);
        LockClientMetrics.of(a).bindTo(on);
        LockClientMetrics.builder(a).percentileHistogram(false).build().bindTo(off);
        assertThat(onHistogram)
                .containsEntry("zkfence.lock.acquire", true)
                .containsEntry("zkfence.lock.wait", true)
                .containsEntry("zkfence.lock.hold", true);
        assertThat(offHistogram).containsEntry("zkfence.lock.acquire", false);
    }

    /** What each timer asks the registry for (the simple registry itself keeps no buckets). */
    private static Map<String, Boolean> histogramSettings(MeterRegistry registry) {
        Map<String, Boolean> seen = new ConcurrentHashMap<>();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() == Meter.Type.TIMER) {
                    seen.put(id.getName(), Boolean.TRUE.equals(config.isPercentileHistogram()));
                }
                return config;
            }
        });
        return seen;
    }
}
