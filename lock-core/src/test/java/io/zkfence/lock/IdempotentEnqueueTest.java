package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class IdempotentEnqueueTest extends EnsembleTestBase {

    @Test
    void createAppliedButItsAnswerLostIsAdoptedNotEnqueuedTwice() throws Exception {
        AtomicReference<FaultyGateway> faults = new AtomicReference<>();
        LockClient client = faultyClient("lossy", faults);
        FencedLock lock = client.lock("lost-answer");
        warmUp(lock, faults.get());
        faults.get().failNextCreates(1, FaultyGateway.Mode.APPLIED_ANSWER_LOST);
        try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
            List<String> queue = queueOf(lock);
            assertThat(queue).hasSize(1);
            assertThat(faults.get().createsSent).hasValue(1);
            Stat stat = statOf(lease.nodePath());
            assertThat(lease.token()).isEqualTo(stat.getCzxid());
        }
        // A release whose delete meets a connection hiccup finishes it in the background.
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
    }

    @Test
    void createThatNeverReachedTheServerIsSentOnceMore() throws Exception {
        AtomicReference<FaultyGateway> faults = new AtomicReference<>();
        LockClient client = faultyClient("lossy", faults);
        FencedLock lock = client.lock("never-sent");
        warmUp(lock, faults.get());
        faults.get().failNextCreates(1, FaultyGateway.Mode.NEVER_SENT);
        try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
            assertThat(queueOf(lock)).hasSize(1);
            assertThat(faults.get().createsSent).hasValue(1);
        }
    }

    @Test
    void aWaiterWhoseCreateAnswerWasLostKeepsItsPlaceInTheQueue() throws Exception {
        LockClient holder = newClient("holder");
        AtomicReference<FaultyGateway> faults = new AtomicReference<>();
        LockClient lossy = faultyClient("lossy", faults);
        LockClient third = newClient("third");
        FencedLock lock = holder.lock("keep-place");
        Lease held = lock.acquire();

        faults.get().failNextCreates(1, FaultyGateway.Mode.APPLIED_ANSWER_LOST);
        CompletableFuture<Lease> second =
                CompletableFuture.supplyAsync(() -> lossy.lock("keep-place").acquire());
        eventually().until(() -> queueOf(lock).size() == 2);
        CompletableFuture<Lease> last =
                CompletableFuture.supplyAsync(() -> third.lock("keep-place").acquire());
        eventually().until(() -> queueOf(lock).size() == 3);

        held.release();
        Lease secondLease = second.get();
        assertThat(last).isNotDone();
        assertThat(queueOf(lock)).hasSize(2);
        secondLease.release();
        try (Lease lastLease = last.get()) {
            assertThat(lastLease.token()).isGreaterThan(secondLease.token()).isGreaterThan(held.token());
        }
    }

    @Test
    void aWaiterThatGivesUpWhileItsCreateOutcomeIsUnknownLeavesNoOrphan() throws Exception {
        LockClient holder = newClient("holder");
        AtomicReference<FaultyGateway> faults = new AtomicReference<>();
        LockClient lossy = faultyClient("lossy", faults);
        FencedLock lock = holder.lock("orphan");
        try (Lease held = lock.acquire()) {
            faults.get().failNextCreates(Integer.MAX_VALUE, FaultyGateway.Mode.APPLIED_ANSWER_LOST);
            Assertions.assertThrows(
                    AcquireTimeoutException.class, () -> lossy.lock("orphan").acquire(Duration.ofMillis(200)));
            faults.get().failNextCreates(0, FaultyGateway.Mode.APPLIED_ANSWER_LOST);
            eventually().until(() -> queueOf(lock).size() == 1);
        }
        eventually().until(() -> queueOf(lock).isEmpty());
    }

    @Test
    void aTryThatLosesTheRaceAfterEnqueueingRemovesItsNodeBeforeReturningEmpty() throws Exception {
        LockClient holder = newClient("holder");
        AtomicReference<FaultyGateway> faults = new AtomicReference<>();
        LockClient trier = faultyClient("trier", faults);
        FencedLock lock = holder.lock("try-race");
        try (Lease held = lock.acquire()) {
            faults.get().hideChildrenOnce(); // the pre-check sees a free lock
            long createsBefore = trier.stats().creates();
            assertThat(trier.lock("try-race").tryAcquire()).isEmpty();
            assertThat(trier.stats().creates()).isEqualTo(createsBefore + 1);
            assertThat(queueOf(lock)).hasSize(1);
        }
    }

    /** Creates the lock's znode, so the creates counted afterwards are queue nodes only. */
    private static void warmUp(FencedLock lock, FaultyGateway faults) {
        lock.acquire().release();
        faults.createsSent.set(0);
    }

    private LockClient faultyClient(String owner, AtomicReference<FaultyGateway> faults) {
        CuratorFramework curator = closeLater(ensemble.curator(Duration.ofSeconds(10)));
        return newClient(curator, owner, real -> {
            FaultyGateway g = new FaultyGateway(real);
            faults.set(g);
            return g;
        });
    }
}
