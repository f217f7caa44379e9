package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NonReentrantTest extends EnsembleTestBase {

    @Test
    void aThreadHoldingANonReentrantLockWaitsForItselfAndTimesOut() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("permit").nonReentrant();
        try (Lease held = lock.acquire()) {
            assertThrows(AcquireTimeoutException.class, () -> lock.acquire(Duration.ofMillis(200)));
            assertThat(lock.tryAcquire()).isEmpty();
            assertThat(queueOf(lock)).hasSize(1);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void aPlainAcquireDoesNotReenterANonReentrantGrant() {
        LockClient a = newClient("a");
        try (Lease held = a.lock("mixed").nonReentrant().acquire()) {
            assertThrows(AcquireTimeoutException.class, () -> a.lock("mixed").acquire(Duration.ofMillis(200)));
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void aPermitReleasedByAnotherThreadLetsTheHolderThreadAcquireAgainWithAHigherToken() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("handed").nonReentrant();
        Lease first = lock.acquire();
        CompletableFuture<Lease> again = CompletableFuture.supplyAsync(() -> {
            Lease second = lock.acquire(); // same lock, waits behind the first
            return second;
        });
        eventually().until(() -> queueOf(lock).size() == 2);
        CompletableFuture.runAsync(first::release).get();
        try (Lease second = again.get(30, TimeUnit.SECONDS)) {
            assertThat(second.token()).isGreaterThan(first.token());
        }
    }

    @Test
    void nonReentrantAndCohortModeCannotBeCombined() {
        LockClient a = newClient("a");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> a.lock("x").withCohort().nonReentrant()))
                .hasMessageContaining("nonReentrant");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> a.lock("x").nonReentrant().withCohort()))
                .hasMessageContaining("cohort");
    }
}
