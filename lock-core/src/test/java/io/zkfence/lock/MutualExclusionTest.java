package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MutualExclusionTest extends EnsembleTestBase {

    private static final int CLIENTS = 4;
    private static final int THREADS_PER_CLIENT = 4;
    private static final int ROUNDS = 15;

    /** Not atomic on purpose: lost updates show up if two holders ever overlap. */
    private long counter;

    @Test
    void onlyOneHolderAtATimeAcrossClientsAndThreads() throws Exception {
        List<LockClient> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(newClient("client-" + c));
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<Long> tokensInGrantOrder = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (LockClient client : clients) {
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    done.add(pool.submit(() -> {
                        FencedLock lock = lock(client, "inventory:sku:123");
                        for (int r = 0; r < ROUNDS; r++) {
                            try (Lease lease = lock.acquire()) {
                                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                tokensInGrantOrder.add(lease.token());
                                long read = counter;
                                Thread.yield();
                                counter = read + 1;
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(counter).isEqualTo((long) CLIENTS * THREADS_PER_CLIENT * ROUNDS);
        assertThat(tokensInGrantOrder)
                .hasSize(CLIENTS * THREADS_PER_CLIENT * ROUNDS)
                .isSorted();
        if (!cohortMode()) {
            assertThat(tokensInGrantOrder).doesNotHaveDuplicates();
        }
    }
}
