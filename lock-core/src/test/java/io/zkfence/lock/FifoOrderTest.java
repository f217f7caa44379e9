package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FifoOrderTest extends EnsembleTestBase {

    @Test
    void waitersAreGrantedInArrivalOrderAcrossClients() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock held = a.lock("fifo");
        Lease holder = held.acquire();
        List<Integer> grantOrder = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int id = i;
            LockClient client = i % 2 == 0 ? a : b;
            waiters.add(CompletableFuture.supplyAsync(() -> {
                try (Lease lease = client.lock("fifo").acquire()) {
                    grantOrder.add(id);
                    return lease.token();
                }
            }));
            // Arrival order is queue order: start the next waiter only once this one is queued.
            eventually().until(() -> queueOf(held).size() == id + 2);
        }
        holder.release();
        List<Long> tokens = new ArrayList<>();
        for (CompletableFuture<Long> w : waiters) {
            tokens.add(w.get());
        }
        assertThat(grantOrder)
                .containsExactlyElementsOf(IntStream.range(0, 10).boxed().toList());
        assertThat(tokens).isSorted().doesNotHaveDuplicates().allMatch(t -> t > holder.token());
    }
}
