package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

class HerdFreeWakeUpTest extends EnsembleTestBase {

    private static final int WAITERS = 120;

    private record Held(Lease lease, CountDownLatch releaseSignal) {}

    @Test
    void eachReleaseWakesExactlyOneOfManyWaiters() throws Exception {
        List<LockClient> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            clients.add(newClient("c" + c));
        }
        FencedLock first = clients.get(0).lock("herd");
        Lease holder = first.acquire();
        LinkedBlockingQueue<Held> granted = new LinkedBlockingQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(WAITERS);
        try {
            for (int i = 0; i < WAITERS; i++) {
                LockClient client = clients.get(i % clients.size());
                pool.submit(() -> {
                    Lease lease = client.lock("herd").acquire();
                    CountDownLatch release = new CountDownLatch(1);
                    granted.add(new Held(lease, release));
                    release.await();
                    lease.release();
                    return null;
                });
            }
            eventually().until(() -> queueOf(first).size() == WAITERS + 1);
            long wakeUpsBefore = totalWakeUps(clients);
            long listsBefore = total(clients, LockStats::childrenReads);
            long checksBefore = total(clients, LockStats::queueChecks);

            Runnable releaseCurrent = holder::release;
            List<Long> tokens = new ArrayList<>(List.of(holder.token()));
            for (int i = 0; i < WAITERS; i++) {
                long before = totalWakeUps(clients);
                releaseCurrent.run();
                Held next = granted.poll(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(next).as("grant %d", i).isNotNull();
                // The next holder was woken by exactly one watch event; nobody else was.
                eventually().until(() -> totalWakeUps(clients) >= before + 1);
                assertThat(totalWakeUps(clients) - before)
                        .as("wake-ups for release %d", i)
                        .isEqualTo(1);
                assertThat(granted).isEmpty();
                tokens.add(next.lease().token());
                releaseCurrent = next.releaseSignal()::countDown;
            }
            releaseCurrent.run();
            eventually().until(() -> queueOf(first).isEmpty());
            assertThat(totalWakeUps(clients) - wakeUpsBefore).isEqualTo(WAITERS);
            assertThat(tokens).isSorted().doesNotHaveDuplicates();
            // A waiter that queued behind more than 16 children wakes on the release record (two
            // small reads); only those that queued while the queue was shorter read it again.
            assertThat(total(clients, LockStats::childrenReads) - listsBefore)
                    .as("child-list reads on wake-up")
                    .isLessThanOrEqualTo(Ahead.WINDOW);
            assertThat(total(clients, LockStats::queueChecks) - checksBefore)
                    .as("small reads on wake-up")
                    .isGreaterThanOrEqualTo(2L * (WAITERS - Ahead.WINDOW - 1));
        } finally {
            pool.shutdownNow();
        }
    }

    private static long totalWakeUps(List<LockClient> clients) {
        return total(clients, LockStats::wakeUps);
    }

    private static long total(List<LockClient> clients, ToLongFunction<LockStats> counter) {
        return clients.stream().mapToLong(c -> counter.applyAsLong(c.stats())).sum();
    }
}
