package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;

/** The thread rules of a lease's end: where continuations run, and no timer outlives a lease. */
class LeaseEndThreadTest extends EnsembleTestBase {

    @Test
    void continuationsAttachedWhileTheLeaseIsLostNeverRunOnZooKeepersEventThread() throws Exception {
        LockClient client = newClient("holder");
        Set<String> threads = ConcurrentHashMap.newKeySet();
        for (int round = 0; round < 8; round++) {
            Lease lease = client.lock("lost-" + round).acquire();
            CompletableFuture<Void> attacher = CompletableFuture.runAsync(() -> {
                // Attach continuously around the end (bounded, so a slow loss cannot fill the heap).
                int attached = 0;
                int afterEnd = 0;
                while (afterEnd < 50) {
                    if (lease.state().isFinal()) {
                        afterEnd++;
                    }
                    if (attached++ < 200_000 || lease.state().isFinal()) {
                        lease.ended()
                                .thenRun(
                                        () -> threads.add(Thread.currentThread().getName()));
                    } else {
                        Thread.onSpinWait();
                    }
                }
            });
            raw.delete().forPath(lease.nodePath()); // an operator removes the holder's node
            attacher.get();
            assertThat(lease.ended().toCompletableFuture().get()).isEqualTo(LeaseState.LOST);
        }
        eventually().until(() -> !threads.isEmpty());
        assertThat(threads).noneMatch(name -> name.contains("EventThread"));
        assertThat(threads).anyMatch(name -> name.startsWith("zkfence-events"));
    }

    @Test
    void aRenewRacingTheReleaseLeavesNoMaxHoldTimerBehind() throws Exception {
        LockClient client = newClient("renewer");
        FencedLock lock = client.lock("renew-race").withMaxHold(Duration.ofMinutes(10));
        ScheduledThreadPoolExecutor timer = (ScheduledThreadPoolExecutor) client.runtime().scheduler;
        int idle = timer.getQueue().size(); // the own-node watch sweeper
        for (int round = 0; round < 100; round++) {
            Lease lease = lock.acquire();
            CompletableFuture<Void> renewing = CompletableFuture.runAsync(() -> {
                while (true) {
                    try {
                        lease.renew();
                    } catch (LeaseLostException ended) {
                        return;
                    }
                }
            });
            lease.release();
            renewing.get();
            assertThrows(LeaseLostException.class, lease::renew);
        }
        eventually().untilAsserted(() -> assertThat(timer.getQueue()).hasSize(idle));
    }
}
