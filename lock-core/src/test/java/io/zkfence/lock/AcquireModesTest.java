package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class AcquireModesTest extends EnsembleTestBase {

    @Test
    void blockingAcquireWaitsUntilTheHolderReleases() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        Lease held = a.lock("m").acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("m").acquire());
        eventually().until(() -> queueOf(a.lock("m")).size() == 2);
        assertThat(waiting).isNotDone();
        held.release();
        try (Lease next = waiting.get()) {
            assertThat(next.token()).isGreaterThan(held.token());
            assertThat(next.state()).isEqualTo(LeaseState.HELD);
        }
    }

    @Test
    void timedAcquireThrowsADistinctTimeoutAndLeavesTheQueue() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("inventory:sku:9");
        try (Lease held = lock.acquire()) {
            AcquireTimeoutException e = assertThrows(
                    AcquireTimeoutException.class,
                    () -> b.lock("inventory:sku:9").acquire(Duration.ofMillis(300)));
            assertThat(e.lockName()).isEqualTo("inventory:sku:9");
            assertThat(e.waited()).isEqualTo(Duration.ofMillis(300));
            assertThat(e).hasMessageContaining("inventory:sku:9");
            eventually().until(() -> queueOf(lock).size() == 1);
            assertThat(queueOf(lock))
                    .containsExactly(held.nodePath().substring(lock.path().length() + 1));
        }
    }

    @Test
    void timedAcquireOfAFreeLockSucceeds() {
        LockClient a = newClient("a");
        try (Lease lease = a.lock("free").acquire(Duration.ofSeconds(30))) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void zeroTimeoutTakesAFreeLockEveryTime() {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("free:zero");
        long previous = 0;
        for (int i = 0; i < 100; i++) {
            try (Lease lease = lock.acquire(Duration.ZERO)) {
                assertThat(lease.state()).isEqualTo(LeaseState.HELD);
                assertThat(lease.token()).isGreaterThan(previous);
                previous = lease.token();
            }
        }
    }

    @Test
    void zeroTimeoutOnAHeldLockTimesOutAndLeavesTheQueueAsItWas() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("held:zero");
        try (Lease held = lock.acquire()) {
            String holderNode = held.nodePath().substring(lock.path().length() + 1);
            AcquireTimeoutException e = assertThrows(
                    AcquireTimeoutException.class, () -> b.lock("held:zero").acquire(Duration.ZERO));
            assertThat(e.waited()).isEqualTo(Duration.ZERO);
            eventually().until(() -> queueOf(lock).size() == 1);
            assertThat(queueOf(lock)).containsExactly(holderNode);
            assertThat(held.state()).isEqualTo(LeaseState.HELD);
        }
    }

    @Test
    void tryAcquireOfATakenLockReturnsEmptyAtOnceAndLeavesNoNode() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("job:nightly");
        try (Lease held = lock.acquire()) {
            // b's server may not have applied a's create yet (ZooKeeper orders reads after writes
            // within a session only): wait until b's session sees the holder.
            eventually().until(() -> b.inspect("job:nightly").holder().isPresent());
            long createsBefore = b.stats().creates();
            Optional<Lease> attempt = b.lock("job:nightly").tryAcquire();
            assertThat(attempt).isEmpty();
            assertThat(queueOf(lock)).hasSize(1);
            assertThat(b.stats().creates()).as("a taken lock costs no write").isEqualTo(createsBefore);
        }
    }

    @Test
    void tryAcquireOfAFreeLockTakesIt() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        Optional<Lease> got = a.lock("job:hourly").tryAcquire();
        assertThat(got).isPresent();
        try (Lease lease = got.get()) {
            assertThat(lease.state()).isEqualTo(LeaseState.HELD);
            assertThat(b.lock("job:hourly").tryAcquire()).isEmpty();
        }
        // A release whose delete meets a connection hiccup finishes it in the background.
        eventually()
                .untilAsserted(() -> assertThat(queueOf(a.lock("job:hourly"))).isEmpty());
    }

    @Test
    void interruptedAcquireThrowsRestoresTheFlagAndLeavesTheQueue() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("interrupt-me");
        try (Lease held = lock.acquire()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean flagAfter = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    b.lock("interrupt-me").acquire();
                } catch (RuntimeException e) {
                    thrown.set(e);
                    flagAfter.set(Thread.currentThread().isInterrupted());
                }
            });
            waiter.start();
            eventually().until(() -> queueOf(lock).size() == 2);
            waiter.interrupt();
            waiter.join(Ensemble.PATIENCE.toMillis());
            assertThat(thrown.get())
                    .isInstanceOf(AcquireInterruptedException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(((LockException) thrown.get()).lockName()).isEqualTo("interrupt-me");
            assertThat(flagAfter).isTrue();
            eventually().until(() -> queueOf(lock).size() == 1);
        }
    }

    @Test
    void interruptedTimedAcquireAlsoLeavesTheQueue() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("interrupt-timed");
        try (Lease held = lock.acquire()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    b.lock("interrupt-timed").acquire(Duration.ofMinutes(5));
                } catch (RuntimeException e) {
                    thrown.set(e);
                }
            });
            waiter.start();
            eventually().until(() -> queueOf(lock).size() == 2);
            waiter.interrupt();
            waiter.join(Ensemble.PATIENCE.toMillis());
            assertThat(thrown.get()).isInstanceOf(AcquireInterruptedException.class);
            eventually().until(() -> queueOf(lock).size() == 1);
        }
    }

    @Test
    void acquireWithAnInterruptAlreadyPendingThrowsAndEnqueuesNothingThatStays() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("pre-interrupted");
        Thread.currentThread().interrupt();
        try {
            assertThrows(AcquireInterruptedException.class, lock::acquire);
            assertThat(Thread.interrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        eventually().until(() -> queueOf(lock).isEmpty());
    }

    @Test
    void negativeTimeoutIsRejectedNamingTheLock() {
        LockClient a = newClient("a");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> a.lock("x").acquire(Duration.ofMillis(-1)));
        assertThat(e).hasMessageContaining("timeout").hasMessageContaining("'x'");
    }

    @Test
    void invalidNamesAreRejectedBeforeAnythingIsWritten() throws Exception {
        LockClient a = newClient("a");
        assertThat(assertThrows(IllegalArgumentException.class, () -> a.lock("")))
                .hasMessageContaining("empty");
        assertThat(assertThrows(IllegalArgumentException.class, () -> a.lock("bad\u0007bell")))
                .hasMessageContaining("control characters");
        assertThat(assertThrows(IllegalArgumentException.class, () -> a.lock("n".repeat(300))))
                .hasMessageContaining("at most 256 bytes");
        assertThat(statOf(root)).isNull();
    }

    @Test
    void aClosedClientRefusesToAcquire() {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("closed");
        a.close();
        LockClientClosedException e = assertThrows(LockClientClosedException.class, lock::acquire);
        assertThat(e).hasMessageContaining("closed").hasMessageContaining("'closed'");
    }

    @Test
    void closingTheClientWakesItsWaitersAndReleasesItsLeases() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = b.lock("close-wakes");
        Lease heldByA = a.lock("close-wakes").acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> b.lock("close-wakes").acquire());
        eventually().until(() -> queueOf(lock).size() == 2);
        b.close();
        Throwable failure = Assertions.catchThrowable(waiting::join);
        assertThat(failure).hasCauseInstanceOf(LockClientClosedException.class).hasMessageContaining("closed");
        a.close();
        assertThat(heldByA.state()).isEqualTo(LeaseState.RELEASED);
        eventually().until(() -> queueOf(lock).isEmpty());
    }
}
