package io.zkfence.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The whole java.util.concurrent.locks.Lock contract, and the registry's, on a real ZooKeeper server. */
class ZkfenceLockRegistryTest {

    private static final long WAIT_S = 60;
    private static EmbeddedEnsemble zk;

    private LockClient clientA;
    private LockClient clientB;
    private ZkfenceLockRegistry a;
    private ZkfenceLockRegistry b;
    private String key;

    @BeforeAll
    static void startZooKeeper() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopZooKeeper() {
        zk.close();
    }

    @BeforeEach
    void twoProcesses() {
        clientA = LockClient.connect(
                zk.connectString(),
                LockClientConfig.builder().ownerId("process-a").build());
        clientB = LockClient.connect(
                zk.connectString(),
                LockClientConfig.builder().ownerId("process-b").build());
        a = ZkfenceLockRegistry.create(clientA);
        b = ZkfenceLockRegistry.create(clientB);
        key = "orders:" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        clientA.close();
        clientB.close();
    }

    private static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(WAIT_S)).pollInterval(Duration.ofMillis(20));
    }

    private int queueLength() {
        return clientA.inspect(key).entries().size();
    }

    @Test
    void aHeldLockCarriesTheFencingTokenOfItsHoldAndTheNextHoldsIsHigher() {
        ZkfenceLock lock = a.obtain(key);
        assertThat(lock.token()).isEmpty();
        lock.lock();
        long first = lock.token().orElseThrow();
        assertThat(clientA.inspect(key).holder())
                .get()
                .satisfies(h -> assertThat(h.token()).isEqualTo(first));
        assertThat(lock.lease()).get().satisfies(l -> assertThat(l.state()).isEqualTo(LeaseState.HELD));
        lock.unlock();
        assertThat(lock.token()).isEmpty();

        ZkfenceLock other = b.obtain(key);
        other.lock();
        assertThat(other.token().orElseThrow()).isGreaterThan(first);
        other.unlock();
    }

    /** Stands in for a DAO whose writes carry the token (fencing-jdbc / fencing-s3 in a real flow). */
    interface OrderDao {
        void markShipped(String orderId, long token);
    }

    // snippet:usage
    /** A flow step: the registry's lock, and its token handed to the DAO. */
    static void ship(ZkfenceLockRegistry registry, OrderDao dao, String orderId) throws InterruptedException {
        ZkfenceLock lock = registry.obtain("orders:" + orderId);
        if (!lock.tryLock(5, TimeUnit.SECONDS)) {
            throw new IllegalStateException("order " + orderId + " is being shipped elsewhere");
        }
        try {
            lock.lease().orElseThrow().checkValid();
            dao.markShipped(orderId, lock.token().orElseThrow());
        } finally {
            lock.unlock();
        }
    }
    // end:usage

    @Test
    void theTokenReachesTheDaoThroughTheLock() throws Exception {
        List<Long> tokens = new CopyOnWriteArrayList<>();
        ship(a, (order, token) -> tokens.add(token), "o-1");
        ship(b, (order, token) -> tokens.add(token), "o-1");
        assertThat(tokens).hasSize(2);
        assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
    }

    @Test
    void obtainGivesTheSameLockObjectForTheSameKey() {
        assertThat(a.obtain(key)).isSameAs(a.obtain(key));
        assertThat(a.obtain(key)).isNotSameAs(a.obtain(key + "-other"));
        assertThat(a.obtain(key).name()).isEqualTo(key);
    }

    @Test
    void keysThatAreNotStringsOrNotValidNamesAreRejected() {
        assertThat(assertThrows(IllegalArgumentException.class, () -> a.obtain(42)))
                .hasMessageContaining("Strings");
        assertThrows(IllegalArgumentException.class, () -> a.obtain(" "));
    }

    @Test
    void aLockHeldByAnotherProcessIsNotGrantedAndTheTriesLeaveNoQueueNode() throws Exception {
        ZkfenceLock held = a.obtain(key);
        held.lock();
        ZkfenceLock lock = b.obtain(key);
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.tryLock(Duration.ofMillis(200), Duration.ofSeconds(5))).isFalse();
        assertThat(lock.token()).isEmpty();
        eventually().until(() -> queueLength() == 1);
        held.unlock();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void threadsOfOneProcessExcludeEachOtherAndAWaiterGetsTheLockWhenItIsUnlocked() throws Exception {
        ZkfenceLock lock = a.obtain(key);
        lock.lock();
        CompletableFuture<Boolean> tried = CompletableFuture.supplyAsync(lock::tryLock);
        assertThat(tried.get(WAIT_S, TimeUnit.SECONDS)).isFalse();
        CountDownLatch waiterHolds = new CountDownLatch(1);
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            lock.lock();
            try {
                waiterHolds.countDown();
                return lock.token().orElseThrow();
            } finally {
                lock.unlock();
            }
        });
        long mine = lock.token().orElseThrow();
        assertThat(waiterHolds.await(300, TimeUnit.MILLISECONDS)).isFalse();
        lock.unlock();
        assertThat(waiter.get(WAIT_S, TimeUnit.SECONDS)).isGreaterThan(mine);
    }

    @Test
    void reentrantHoldsShareOneTokenAndOnlyTheLastUnlockReleases() throws Exception {
        ZkfenceLock lock = a.obtain(key);
        lock.lock();
        long token = lock.token().orElseThrow();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.token()).hasValue(token);
        lock.unlock();
        lock.unlock();
        assertThat(b.obtain(key).tryLock()).isFalse();
        lock.unlock();
        ZkfenceLock other = b.obtain(key);
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    @Test
    void unlockFromAnotherThreadOrWithoutAHoldThrowsIllegalMonitorState() throws Exception {
        ZkfenceLock lock = a.obtain(key);
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        lock.lock();
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> CompletableFuture.runAsync(lock::unlock).get(WAIT_S, TimeUnit.SECONDS));
        assertThat(e.getCause())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(key);
        assertThat(lock.token()).isPresent();
        lock.unlock();
    }

    @Test
    void lockInterruptiblyGivesUpOnInterruptAndLeavesNoQueueNode() throws Exception {
        ZkfenceLock held = a.obtain(key);
        held.lock();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            waiterThread.set(Thread.currentThread());
            try {
                b.obtain(key).lockInterruptibly();
                return null;
            } catch (InterruptedException e) {
                return e;
            }
        });
        eventually().until(() -> queueLength() == 2);
        waiterThread.get().interrupt();
        assertThat(waiter.get(WAIT_S, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        eventually().until(() -> queueLength() == 1);
        assertThat(b.obtain(key).token()).isEmpty();
        held.unlock();
    }

    @Test
    void tryLockWithATimeoutIsInterruptible() throws Exception {
        ZkfenceLock held = a.obtain(key);
        held.lock();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            waiterThread.set(Thread.currentThread());
            try {
                return b.obtain(key).tryLock(10, TimeUnit.MINUTES) ? null : new AssertionError("timed out");
            } catch (InterruptedException e) {
                return e;
            }
        });
        eventually().until(() -> queueLength() == 2);
        waiterThread.get().interrupt();
        assertThat(waiter.get(WAIT_S, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        eventually().until(() -> queueLength() == 1);
        held.unlock();
    }

    @Test
    void lockIsNotInterruptibleButKeepsTheInterruptFlag() throws Exception {
        ZkfenceLock held = a.obtain(key);
        held.lock();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        ZkfenceLock lock = b.obtain(key);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            waiterThread.set(Thread.currentThread());
            lock.lock();
            try {
                return Thread.interrupted();
            } finally {
                lock.unlock();
            }
        });
        eventually().until(() -> queueLength() == 2);
        waiterThread.get().interrupt();
        eventually().until(() -> queueLength() == 2 && !waiter.isDone());
        held.unlock();
        assertThat(waiter.get(WAIT_S, TimeUnit.SECONDS))
                .describedAs("interrupt flag kept")
                .isTrue();
    }

    @Test
    void newConditionIsUnsupportedWithAClearMessage() {
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class, () -> a.obtain(key).newCondition());
        assertThat(e).hasMessageContaining("no conditions").hasMessageContaining(key);
    }

    @Test
    void aTtlReleasesAHungHoldersLockAndItsLateUnlockReportsTheLoss() throws Exception {
        ZkfenceLock hung = a.obtain(key);
        hung.lock(Duration.ofMillis(300));
        Lease lease = hung.lease().orElseThrow();
        eventually().until(() -> lease.state() == LeaseState.LOST);

        ZkfenceLock next = b.obtain(key);
        assertThat(next.tryLock(WAIT_S, TimeUnit.SECONDS)).isTrue();
        assertThat(next.token().orElseThrow()).isGreaterThan(lease.token());

        ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class, hung::unlock);
        assertThat(e).hasMessageContaining(key).hasMessageContaining("lost");
        assertThat(clientA.inspect(key).holder())
                .get()
                .satisfies(h -> assertThat(h.token()).isEqualTo(next.token().orElseThrow()));
        next.unlock();
    }

    @Test
    void renewLockPushesTheTtlDeadlineOfTheHoldersLock() {
        ZkfenceLockRegistry withTtl = ZkfenceLockRegistry.create(clientA, Duration.ofSeconds(30));
        ZkfenceLock lock = withTtl.obtain(key);
        lock.lock();
        Instant before = lock.lease().orElseThrow().deadline().orElseThrow();
        eventually().until(() -> Instant.now().isAfter(before.minusSeconds(30).plusMillis(50)));
        withTtl.renewLock(key);
        assertThat(lock.lease().orElseThrow().deadline().orElseThrow()).isAfter(before);
        withTtl.renewLock(key, Duration.ofSeconds(30));
        assertThrows(UnsupportedOperationException.class, () -> withTtl.renewLock(key, Duration.ofSeconds(5)));
        lock.unlock();
        assertThrows(IllegalMonitorStateException.class, () -> withTtl.renewLock(key));
    }

    @Test
    void renewLockWithoutATtlChecksTheLeaseIsStillValid() {
        ZkfenceLock lock = a.obtain(key);
        lock.lock();
        a.renewLock(key);
        assertThrows(UnsupportedOperationException.class, () -> a.renewLock(key, Duration.ofSeconds(5)));
        lock.unlock();
    }

    @Test
    void expireUnusedOlderThanForgetsIdleLocksButNeverHeldOnes() {
        ZkfenceLock lock = a.obtain(key);
        lock.lock();
        a.expireUnusedOlderThan(0);
        assertThat(a.obtain(key)).isSameAs(lock);
        lock.unlock();
        eventually().until(() -> {
            a.expireUnusedOlderThan(0);
            return a.obtain(key) != lock;
        });
    }

    @Test
    void aDefaultTtlThatIsNotPositiveIsRejected() {
        assertThat(assertThrows(
                        IllegalArgumentException.class, () -> ZkfenceLockRegistry.create(clientA, Duration.ZERO)))
                .hasMessageContaining("defaultTtl");
    }

    @Test
    void executeLockedRunsTheTaskUnderTheLock() throws Exception {
        long token = a.executeLocked(key, () -> a.obtain(key).token().orElseThrow());
        assertThat(token).isPositive();
        assertThat(a.obtain(key).token()).isEmpty();
    }
}
