package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ReentrancyTest extends EnsembleTestBase {

    @Test
    void holdingThreadReacquiresTheSameGrantAndTokenWithoutANewNode() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = lock(a, "reentrant");
        try (Lease outer = lock.acquire()) {
            long creates = a.stats().creates();
            try (Lease inner = lock.acquire()) {
                assertThat(inner.token()).isEqualTo(outer.token());
                assertThat(inner.nodePath()).isEqualTo(outer.nodePath());
                assertThat(lock.tryAcquire()).get().extracting(Lease::token).isEqualTo(outer.token());
            }
            assertThat(a.stats().creates()).isEqualTo(creates);
            assertThat(queueOf(lock)).hasSize(1);
        }
    }

    @Test
    void theNodeGoesOnlyWhenTheLastHoldIsReleased() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = lock(a, "holds");
        Lease first = lock.acquire();
        Lease second = lock.acquire();
        first.release();
        assertThat(first.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(second.state()).isEqualTo(LeaseState.HELD);
        assertThat(queueOf(lock)).hasSize(1);
        second.release();
        assertThat(second.state()).isEqualTo(LeaseState.RELEASED);
        // A release whose delete meets a connection hiccup finishes it in the background.
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
    }

    @Test
    void releasingOneHandleTwiceDoesNotDropAnotherHandlesHold() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = lock(a, "idempotent");
        Lease first = lock.acquire();
        Lease second = lock.acquire();
        first.release();
        first.release();
        first.close();
        assertThat(second.isValid()).isTrue();
        assertThat(queueOf(lock)).hasSize(1);
        second.close();
        // A release whose delete meets a connection hiccup finishes it in the background.
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
    }

    @Test
    void anotherThreadOfTheSameClientIsNotReentrant() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = lock(a, "per-thread");
        try (Lease held = lock.acquire()) {
            boolean otherGotIt = CompletableFuture.supplyAsync(
                            () -> lock.tryAcquire().isPresent())
                    .get();
            assertThat(otherGotIt).isFalse();
        }
    }

    @Test
    void aLeaseCanBeReleasedFromAnotherThread() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = lock(a, "handoff");
        Lease lease = lock.acquire();
        CompletableFuture.runAsync(lease::release).get();
        assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
        // A release whose delete meets a connection hiccup finishes it in the background.
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
        try (Lease next = lock(b, "handoff").acquire()) {
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }

    @Test
    void afterTheLastReleaseTheSameThreadGetsANewGrantWithAHigherToken() {
        LockClient a = newClient("a");
        FencedLock lock = lock(a, "again");
        long first;
        try (Lease lease = lock.acquire()) {
            first = lease.token();
        }
        try (Lease lease = lock.acquire()) {
            assertThat(lease.token()).isGreaterThan(first);
        }
    }

    @Test
    void aReleasedHandleFailsCheckValidWithTheLockNameAndToken() {
        LockClient a = newClient("a");
        Lease lease = lock(a, "done").acquire();
        lease.release();
        LeaseLostException e = assertThrows(LeaseLostException.class, lease::checkValid);
        assertThat(e.lockName()).isEqualTo("done");
        assertThat(e.token()).hasValue(lease.token());
        assertThat(e.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(lease.ended().toCompletableFuture().join()).isEqualTo(LeaseState.RELEASED);
    }
}
