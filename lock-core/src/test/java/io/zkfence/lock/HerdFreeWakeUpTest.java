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
        } finally {
            pool.shutdownNow();
        }
    }

    private static long totalWakeUps(List<LockClient> clients) {
        return clients.stream().mapToLong(c -> c.stats().wakeUps()).sum();
    }
}
