package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;

/**
 * A fleet half on Curator's {@code InterProcessMutex}, half on zkfence, on one lock znode (a
 * rolling migration): both must exclude each other.
 */
class CuratorMixedFleetTest extends EnsembleTestBase {

    private static final int CLIENTS_PER_SIDE = 3;
    private static final int ROUNDS = 12;

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger sections = new AtomicInteger();

    @Test
    void curatorAndZkfenceHoldersNeverOverlapWithBlockingAndTimedAcquires() throws Exception {
        String path = newClient("probe").lock("job").path();
        ExecutorService pool = Executors.newFixedThreadPool(2 * CLIENTS_PER_SIDE);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS_PER_SIDE; c++) {
                boolean timed = c % 2 == 1;
                InterProcessMutex curatorLock = new InterProcessMutex(curatorClient(), path);
                done.add(pool.submit(() -> {
                    for (int r = 0; r < ROUNDS; r++) {
                        if (timed) {
                            while (!curatorLock.acquire(50, TimeUnit.MILLISECONDS)) {
                                // timed out while the other side held it: try again
                            }
                        } else {
                            curatorLock.acquire();
                        }
                        try {
                            criticalSection();
                        } finally {
                            curatorLock.release();
                        }
                    }
                    return null;
                }));
                FencedLock zkfenceLock = newClient("zkfence-" + c).lock("job");
                done.add(pool.submit(() -> {
                    for (int r = 0; r < ROUNDS; r++) {
                        Lease lease = timed ? acquireRetrying(zkfenceLock) : zkfenceLock.acquire();
                        try (lease) {
                            criticalSection();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(Ensemble.PATIENCE.toSeconds() * 4, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(sections.get()).isEqualTo(2 * CLIENTS_PER_SIDE * ROUNDS);
        assertThat(overlaps.get()).as("critical sections that overlapped").isZero();
    }

    @Test
    void zkfenceWaitsBehindACuratorHolderAndTakesTheLockWhenItsClientDies() throws Exception {
        LockClient zkfence = newClient("zkfence");
        FencedLock lock = zkfence.lock("job");
        CuratorFramework curator = ensemble.curator(Duration.ofSeconds(10));
        InterProcessMutex curatorLock = new InterProcessMutex(curator, lock.path());
        curatorLock.acquire();
        CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(lock::acquire);
        eventually().until(() -> queueOf(lock).size() == 2);
        LockInfo info = zkfence.inspect("job");
        assertThat(info.holder())
                .hasValueSatisfying(h -> assertThat(h.isCurator()).isTrue());
        assertThat(info.waiters())
                .singleElement()
                .satisfies(w -> assertThat(w.ownerId()).isEqualTo("zkfence"));
        assertThat(waiting).isNotDone();
        curator.close(); // the holder's process dies: its session and ephemeral node go
        try (Lease lease = waiting.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(lease.state()).isEqualTo(LeaseState.HELD);
        }
    }

    @Test
    void curatorWaitsBehindAZkfenceHolderAndTakesTheLockWhenItsClientDies() throws Exception {
        LockClient zkfence = newClient("zkfence");
        FencedLock lock = zkfence.lock("job");
        Lease held = lock.acquire();
        InterProcessMutex curatorLock = new InterProcessMutex(curatorClient(), lock.path());
        assertThat(curatorLock.acquire(300, TimeUnit.MILLISECONDS))
                .as("Curator must not get a held lock")
                .isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                curatorLock.acquire();
                curatorLock.release(); // Curator's mutex is released by the thread that took it
                return true;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        eventually().until(() -> queueOf(lock).size() == 2);
        assertThat(waiting).isNotDone();
        assertThat(held.isValid()).isTrue();
        zkfence.close(); // the holder's client goes: its node is deleted
        assertThat(waiting.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tryAcquireSeesACuratorHolder() throws Exception {
        LockClient zkfence = newClient("zkfence");
        FencedLock lock = zkfence.lock("job");
        InterProcessMutex curatorLock = new InterProcessMutex(curatorClient(), lock.path());
        curatorLock.acquire();
        try {
            assertThat(lock.tryAcquire()).isEmpty();
            assertThat(lock.tryAcquire()).isEmpty();
        } finally {
            curatorLock.release();
        }
        eventually().until(() -> queueOf(lock).isEmpty());
        try (Lease lease = lock.tryAcquire().orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    private CuratorFramework curatorClient() {
        return closeLater(ensemble.curator(Duration.ofSeconds(10)));
    }

    private static Lease acquireRetrying(FencedLock lock) {
        while (true) {
            try {
                return lock.acquire(Duration.ofMillis(50));
            } catch (AcquireTimeoutException e) {
                // timed out while the other side held it: try again
            }
        }
    }

    private void criticalSection() {
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        sections.incrementAndGet();
        Thread.onSpinWait();
        for (int i = 0; i < 1000; i++) {
            Thread.yield(); // stay inside a little, so an overlap would show
        }
        inside.decrementAndGet();
    }
}
