package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class FastPathTest extends EnsembleTestBase {

    @Test
    void anUncontendedAcquireSendsOneCreateAndOnePipelinedChildrenRead() {
        LockClient a = newClient("a");
        try (Lease warmUp = a.lock("fast").acquire()) {
            // the first acquire also creates the lock's znode
        }
        LockStats before = a.stats();
        try (Lease lease = a.lock("fast").acquire()) {
            LockStats after = a.stats();
            assertThat(after.creates() - before.creates()).isEqualTo(1);
            assertThat(after.childrenReads() - before.childrenReads()).isEqualTo(1);
            assertThat(after.grants() - before.grants()).isEqualTo(1);
        }
    }

    @Test
    void aWaiterBehindTheHeadTakesTheLockOnTheDeletionEventWithoutReadingChildrenAgain() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lock = a.lock("handoff");
        Lease held = lock.acquire();
        LockStats before = b.stats();
        CompletableFuture<Lease> waiter =
                CompletableFuture.supplyAsync(() -> b.lock("handoff").acquire());
        eventually().until(() -> queueOf(lock).size() == 2);
        held.release();
        try (Lease next = waiter.get()) {
            LockStats after = b.stats();
            assertThat(after.childrenReads() - before.childrenReads())
                    .as("only the pipelined read at enqueue")
                    .isEqualTo(1);
            assertThat(after.wakeUps() - before.wakeUps()).isEqualTo(1);
            assertThat(next.token()).isGreaterThan(held.token());
        }
    }

    @Test
    void aWaiterWhosePredecessorGaveUpReadsTheQueueAgainAndWaitsForTheHead() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        LockClient c = newClient("c");
        FencedLock lock = a.lock("middle-leaves");
        Lease held = lock.acquire();
        Thread middle = new Thread(() -> {
            try {
                b.lock("middle-leaves").acquire();
            } catch (AcquireInterruptedException expected) {
                // the middle waiter gives up when interrupted
            }
        });
        middle.start();
        eventually().until(() -> queueOf(lock).size() == 2);
        CompletableFuture<Lease> last =
                CompletableFuture.supplyAsync(() -> c.lock("middle-leaves").acquire());
        eventually().until(() -> queueOf(lock).size() == 3);
        middle.interrupt(); // gives up only once the last waiter is queued behind it
        middle.join(Ensemble.PATIENCE.toMillis());
        eventually().until(() -> queueOf(lock).size() == 2);
        assertThat(last).isNotDone(); // the holder still holds
        held.release();
        try (Lease lease = last.get()) {
            assertThat(lease.token()).isGreaterThan(held.token());
        }
    }
}
