package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** Cohort mode's own promises: local hand-off, batches, tokens, and how turns end. */
class CohortModeTest extends EnsembleTestBase {

    @Test
    void threadsOfOneClientTakeTurnsUnderOneNodeWithItsToken() throws Exception {
        LockClient client = newClient("hot");
        FencedLock lock = client.lock("sku:flash").withCohort(1_000, Duration.ofSeconds(30));
        Lease first = lock.acquire();
        List<CompletableFuture<Long>> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waiting.add(CompletableFuture.supplyAsync(() -> {
                try (Lease turn = lock.acquire()) {
                    return turn.token();
                }
            }));
        }
        eventually().until(() -> client.runtime().cohorts.get(lock.path()).waiting() == 6);
        LockInfo seen = client.inspect("sku:flash");
        assertThat(seen.entries())
                .as("one node in ZooKeeper for the whole cohort")
                .hasSize(1);
        assertThat(seen.localWaiters())
                .as("inspect shows the threads waiting behind it")
                .isEqualTo(6);
        assertThat(newClient("other").inspect("sku:flash").localWaiters())
                .as("another process cannot see them")
                .isZero();
        long createsBefore = client.stats().creates();
        first.release();
        for (CompletableFuture<Long> w : waiting) {
            assertThat(w.get(30, TimeUnit.SECONDS)).isEqualTo(first.token());
        }
        assertThat(client.stats().creates())
                .as("hand-offs inside the process touch no node")
                .isEqualTo(createsBefore);
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
    }

    @Test
    void aUsedUpBatchHandsTheLockToTheNextProcessAndTheNextCohortHasAHigherToken() throws Exception {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        FencedLock lockA = a.lock("batch").withCohort(2, Duration.ofSeconds(30));
        FencedLock lockB = b.lock("batch").withCohort(2, Duration.ofSeconds(30));
        List<String> order = new ArrayList<>();
        List<Long> tokens = new ArrayList<>();
        Lease held = lockA.acquire();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            all.add(CompletableFuture.runAsync(() -> record(lockA, "a", order, tokens)));
        }
        eventually().until(() -> a.runtime().cohorts.get(lockA.path()).waiting() == 3);
        all.add(CompletableFuture.runAsync(() -> record(lockB, "b", order, tokens)));
        eventually().until(() -> queueOf(lockA).size() == 2);
        held.release();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        // Batch of 2 on a's node: the holder and one waiter; then b's node; then a's two left.
        assertThat(order).containsExactly("a", "b", "a", "a");
        assertThat(tokens.get(0)).isEqualTo(held.token());
        assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
        assertThat(tokens.get(2)).isGreaterThan(tokens.get(1)).isEqualTo(tokens.get(3));
    }

    private static void record(FencedLock lock, String who, List<String> order, List<Long> tokens) {
        try (Lease turn = lock.acquire()) {
            synchronized (order) {
                order.add(who);
                tokens.add(turn.token());
            }
        }
    }

    @Test
    void manyThreadsInTwoProcessesExcludeEachOtherAndNeitherStarves() throws Exception {
        int threads = 4;
        int rounds = 25;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        Map<String, AtomicInteger> grantsBy = new ConcurrentHashMap<>();
        List<Long> tokens = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2 * threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String owner : List.of("p1", "p2")) {
                LockClient client = newClient(owner);
                FencedLock lock = client.lock("hot").withCohort(4, Duration.ofMillis(50));
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        for (int r = 0; r < rounds; r++) {
                            try (Lease turn = lock.acquire()) {
                                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                tokens.add(turn.token());
                                grantsBy.computeIfAbsent(owner, k -> new AtomicInteger())
                                        .incrementAndGet();
                                Thread.yield();
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
        assertThat(tokens).hasSize(2 * threads * rounds).isSorted();
        assertThat(grantsBy.get("p1").get()).isEqualTo(threads * rounds);
        assertThat(grantsBy.get("p2").get()).isEqualTo(threads * rounds);
    }

    @Test
    void aLostNodeMakesTheTurnLostAndTheNextThreadGetsAHigherToken() throws Exception {
        LockClient client = newClient("lossy");
        FencedLock lock = client.lock("lost-node").withCohort();
        Lease turn = lock.acquire();
        CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
            try (Lease t = lock.acquire()) {
                return t.token();
            }
        });
        eventually().until(() -> client.runtime().cohorts.get(lock.path()).waiting() == 1);
        raw.delete().forPath(turn.nodePath()); // an operator removes the cohort's node
        eventually().until(() -> turn.state() == LeaseState.LOST);
        assertThat(next.get(30, TimeUnit.SECONDS)).isGreaterThan(turn.token());
        assertThat(turn.endReason()).get().asString().contains("deleted");
        turn.release();
    }

    @Test
    void aTurnPastItsMaxHoldEndsTheNodeSoItsTokenIsNotHandedOn() throws Exception {
        LockClient client = newClient("slow");
        FencedLock lock =
                client.lock("max-hold").withMaxHold(Duration.ofMillis(300)).withCohort();
        Lease hung = lock.acquire();
        CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
            try (Lease t = lock.acquire()) {
                return t.token();
            }
        });
        assertThat(next.get(30, TimeUnit.SECONDS)).isGreaterThan(hung.token());
        assertThat(hung.state()).isEqualTo(LeaseState.LOST);
        assertThrows(LeaseLostException.class, hung::checkValid);
        hung.release();
    }

    @Test
    void aLocalWaiterThatTimesOutLeavesTheOthersInLine() throws Exception {
        LockClient client = newClient("impatient");
        FencedLock lock = client.lock("timeouts").withCohort(100, Duration.ofSeconds(30));
        Lease held = lock.acquire();
        AcquireTimeoutException e = CompletableFuture.supplyAsync(
                        () -> assertThrows(AcquireTimeoutException.class, () -> lock.acquire(Duration.ofMillis(100))))
                .get();
        assertThat(e.lockName()).isEqualTo("timeouts");
        CompletableFuture<Long> patient = CompletableFuture.supplyAsync(() -> {
            try (Lease t = lock.acquire(Duration.ofSeconds(30))) {
                return t.token();
            }
        });
        eventually().until(() -> client.runtime().cohorts.get(lock.path()).waiting() == 1);
        held.release();
        assertThat(patient.get(30, TimeUnit.SECONDS)).isEqualTo(held.token());
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
        eventually().until(() -> !client.runtime().cohorts.containsKey(lock.path()));
    }

    @Test
    void tryAcquireTakesAFreeLockAndRefusesAHeldOne() throws Exception {
        LockClient client = newClient("trier");
        FencedLock lock = client.lock("try").withCohort();
        try (Lease held = lock.tryAcquire().orElseThrow()) {
            assertThat(CompletableFuture.supplyAsync(() -> lock.tryAcquire().isPresent())
                            .get())
                    .isFalse();
            assertThat(lock.tryAcquire()).get().extracting(Lease::token).isEqualTo(held.token());
        }
    }

    @Test
    void closingTheClientWakesLocalWaitersAndReleasesTheTurn() throws Exception {
        LockClient client = newClient("closing");
        FencedLock lock = client.lock("close").withCohort();
        Lease held = lock.acquire();
        CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(lock::acquire);
        eventually().until(() -> client.runtime().cohorts.get(lock.path()).waiting() == 1);
        client.close();
        Throwable failure = Assertions.catchThrowable(waiting::join);
        assertThat(failure).hasCauseInstanceOf(LockClientClosedException.class);
        eventually().until(() -> held.state().isFinal());
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
    }

    @Test
    void badBatchSettingsAreRefusedNamingThem() {
        LockClient client = newClient("bad");
        assertThat(assertThrows(
                        IllegalArgumentException.class, () -> client.lock("x").withCohort(0, Duration.ofMillis(5))))
                .hasMessageContaining("maxBatch");
        assertThat(assertThrows(
                        IllegalArgumentException.class, () -> client.lock("x").withCohort(5, Duration.ZERO)))
                .hasMessageContaining("maxBatchTime");
    }
}
