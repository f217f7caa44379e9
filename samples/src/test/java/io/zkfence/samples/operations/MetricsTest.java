package io.zkfence.samples.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zkfence.lock.LockClient;
import io.zkfence.samples.testing.EnsembleClients;
import io.zkfence.testing.Ensemble;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetricsTest {

    private final Ensemble ensemble = Ensemble.shared();

    @Test
    void boundMetersCountTheClientsGrantsWithoutALockTag() {
        try (LockClient locks =
                EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("metrics-sample"), "metrics-sample")) {
            MeterRegistry registry = new SimpleMeterRegistry();
            Metrics.bind(registry, locks, null, null);
            locks.lock("inventory:sku:1").acquire(Duration.ofSeconds(30)).release();
            assertThat(registry.get("zkfence.lock.grants").counter().count()).isEqualTo(1);
            assertThat(registry.get("zkfence.lock.grants").counter().getId().getTag("lock"))
                    .isNull();
        }
    }

    @Test
    void theOptInLockTagGroupsNamesByFamily() {
        try (LockClient locks =
                EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("metrics-sample"), "metrics-sample")) {
            MeterRegistry registry = new SimpleMeterRegistry();
            Metrics.bindByFamily(registry, locks);
            locks.lock("inventory:sku:1").acquire(Duration.ofSeconds(30)).release();
            locks.lock("inventory:sku:2").acquire(Duration.ofSeconds(30)).release();
            locks.lock("nightly-report").acquire(Duration.ofSeconds(30)).release();
            assertThat(registry.get("zkfence.lock.grants")
                            .tag("lock", "inventory")
                            .counter()
                            .count())
                    .isEqualTo(2);
            assertThat(registry.get("zkfence.lock.grants")
                            .tag("lock", "other")
                            .counter()
                            .count())
                    .isEqualTo(1);
        }
    }
}
