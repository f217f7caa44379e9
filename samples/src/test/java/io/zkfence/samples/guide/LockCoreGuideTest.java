package io.zkfence.samples.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockInfo;
import io.zkfence.samples.testing.EnsembleClients;
import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** Runs the code that docs/lock-core.md and docs/token-contract.md quote. */
class LockCoreGuideTest {

    private final Ensemble ensemble = Ensemble.shared();

    @Test
    void bothWaysToMakeAClientTakeLocks() {
        try (LockClient owned = LockCoreGuide.connect(ensemble.connectString());
                CuratorFramework curator = ensemble.curator(Duration.ofSeconds(10));
                LockClient onCurator = LockCoreGuide.onCurator(curator, "host-1")) {
            owned.lock("guide:clients").acquire(Duration.ofSeconds(30)).release();
            try (Lease lease = onCurator.lock("guide:clients").acquire(Duration.ofSeconds(30))) {
                assertThat(onCurator
                                .inspect("guide:clients")
                                .holder()
                                .orElseThrow()
                                .ownerId())
                        .isEqualTo("checkout-7f9c@host-1");
                assertThat(lease.nodePath()).startsWith("/myapp/locks/");
            }
        }
    }

    @Test
    void theThreeAcquireModesHandIncreasingTokensToTheWrite() {
        try (LockClient client = EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("guide"), "guide")) {
            List<Long> written = new ArrayList<>();

            LockCoreGuide.acquireModes(client, written::add);

            assertThat(written).hasSize(3).isSorted().doesNotHaveDuplicates();
        }
    }

    @Test
    void watchingALeaseSeesItsEnd() throws InterruptedException {
        try (LockClient client = EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("guide"), "guide")) {
            Lease lease = client.lock("guide:lease").acquire(Duration.ofSeconds(30));
            CountDownLatch stopped = new CountDownLatch(1);

            LockCoreGuide.watch(lease, stopped::countDown);
            lease.release();

            assertThat(stopped.await(30, TimeUnit.SECONDS))
                    .as("stopWorkers ran")
                    .isTrue();
            assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
            assertThatThrownBy(() -> LockCoreGuide.watch(lease, () -> {})).hasMessageContaining("RELEASED");
        }
    }

    @Test
    void lookingInsideShowsTheHolder() {
        try (LockClient client = EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("guide"), "inspector");
                Lease lease = client.lock("db-migration:user-service").acquire(Duration.ofSeconds(30))) {
            LockInfo info = LockCoreGuide.lookInside(client);

            assertThat(info.holder())
                    .hasValueSatisfying(h -> assertThat(h.token()).isEqualTo(lease.token()));
            assertThat(info.waiters()).isEmpty();
        }
    }

    @Test
    void theContractHoldsForSuccessiveGrants() {
        try (LockClient a = EnsembleClients.lockClient(ensemble, Ensemble.freshRoot("guide-contract"), "a")) {
            Lease g1 = a.lock("x").acquire(Duration.ofSeconds(30));
            g1.release();
            Lease g2 = a.lock("x").acquire(Duration.ofSeconds(30));
            g2.release();

            LockCoreGuide.tokensIncrease(g1, g2); // surefire runs with assertions enabled
            assertThatThrownBy(() -> LockCoreGuide.tokensIncrease(g2, g1)).isInstanceOf(AssertionError.class);
        }
    }
}
