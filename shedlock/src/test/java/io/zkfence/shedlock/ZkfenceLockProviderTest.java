package io.zkfence.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseLostException;
import io.zkfence.lock.LeaseState;
import io.zkfence.testing.Teardown;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider against every behaviour ShedLock documents for providers, on a real ZooKeeper
 * server, with two replicas (separate sessions) competing for each job.
 */
class ZkfenceLockProviderTest {

    private static final Duration LONG = Duration.ofMinutes(5);

    @RegisterExtension
    static final Teardown servers = Teardown.afterAll();

    @RegisterExtension
    final Teardown replicas = Teardown.afterEach();

    private static EmbeddedEnsemble zk;
    private Replica a;
    private Replica b;
    private String job;

    @BeforeAll
    static void startZooKeeper() {
        zk = servers.closeLater(EmbeddedEnsemble.builder().servers(1).start());
    }

    @BeforeEach
    void replicas() {
        a = replica("replica-a");
        b = replica("replica-b");
        job = "job-" + UUID.randomUUID();
    }

    private Replica replica(String owner) {
        return replicas.closeLater(new Replica(zk.connectString(), owner, Duration.ofSeconds(15)));
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    private static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50));
    }

    /** The other replica finds the job locked (and takes nothing). */
    private void assertLockedFor(Replica other, String name) {
        assertThat(other.provider.lock(config(name, LONG, Duration.ZERO)))
                .describedAs("job %s is locked", name)
                .isEmpty();
    }

    /** The other replica can run the job now (and lets it go again). */
    private void assertUnlockedFor(Replica other, String name) {
        Optional<SimpleLock> lock = other.provider.lock(config(name, LONG, Duration.ZERO));
        assertThat(lock).describedAs("job %s is free", name).isPresent();
        lock.get().unlock();
    }

    @Test
    void aRunLocksTheJobUntilItUnlocks() {
        SimpleLock lock = a.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
        assertLockedFor(b, job);
        assertThat(a.client.inspect(job).holder())
                .get()
                .satisfies(h -> assertThat(h.ownerId()).isEqualTo("replica-a"));
        lock.unlock();
        assertUnlockedFor(b, job);
    }

    @Test
    void aSecondLockOfAHeldJobIsRefusedOnTheSameReplicaAndOnAnother() {
        SimpleLock lock = a.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
        assertThat(a.provider.lock(config(job, LONG, Duration.ZERO))).isEmpty();
        assertThat(b.provider.lock(config(job, LONG, Duration.ZERO))).isEmpty();
        lock.unlock();
    }

    @Test
    void twoJobsLockIndependently() {
        SimpleLock first = a.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
        SimpleLock second =
                a.provider.lock(config(job + "-other", LONG, Duration.ZERO)).orElseThrow();
        first.unlock();
        second.unlock();
    }

    @Test
    void theJobCanBeLockedAgainRightAfterUnlockWithAHigherTokenEachTime() {
        long previous = 0;
        for (int i = 0; i < 10; i++) {
            SimpleLock lock = a.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
            long token = ZkfenceShedLock.currentToken();
            assertThat(token).isGreaterThan(previous);
            previous = token;
            assertLockedFor(b, job);
            lock.unlock();
        }
    }

    @Test
    void lockAtMostForReleasesAHungRunsLockAndTheNextRunGetsAHigherToken() {
        SimpleLock hungLock = a.provider
                .lock(config(job, Duration.ofMillis(300), Duration.ZERO))
                .orElseThrow();
        Lease hung = ZkfenceShedLock.currentLease().orElseThrow();

        eventually().until(() -> hung.state() == LeaseState.RELEASED);
        assertThrows(LeaseLostException.class, hung::checkValid);
        assertThat(ZkfenceShedLock.currentToken())
                .describedAs("the hung task still sees its own (now stale) token")
                .isEqualTo(hung.token());
        SimpleLock next = b.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
        assertThat(b.client.inspect(job).holder())
                .get()
                .satisfies(h -> assertThat(h.token()).isGreaterThan(hung.token()));
        hungLock.unlock(); // the hung task finally ends: ShedLock unlocks it
        assertLockedFor(a, job);
        next.unlock();
    }

    @Test
    void aFormerHoldersUnlockOrExtendNeverTouchesTheNewHoldersLock() {
        SimpleLock former = a.provider
                .lock(config(job, Duration.ofMillis(300), Duration.ZERO))
                .orElseThrow();
        Lease formerLease = ZkfenceShedLock.currentLease().orElseThrow();
        eventually().until(() -> formerLease.state() == LeaseState.RELEASED);
        SimpleLock current =
                b.provider.lock(config(job, LONG, Duration.ofSeconds(30))).orElseThrow();

        assertThat(former.extend(LONG, Duration.ZERO)).isEmpty();
        Replica c = replica("replica-c");
        assertLockedFor(c, job);
        current.unlock();
        // b's lockAtLeastFor (30 s) still stands: a's failed extension did not move b's record.
        assertLockedFor(c, job);
    }

    @Test
    void lockAtLeastForKeepsTheJobLockedAfterAnEarlyUnlock() {
        LockConfiguration cfg = config(job, Duration.ofSeconds(30), Duration.ofSeconds(5));
        a.provider.lock(cfg).orElseThrow().unlock();

        assertLockedFor(b, job);
        Instant[] grantedAt = new Instant[1];
        eventually().until(() -> {
            Optional<SimpleLock> lock = b.provider.lock(config(job, LONG, Duration.ZERO));
            lock.ifPresent(l -> {
                grantedAt[0] = ClockProvider.now();
                l.unlock();
            });
            return lock.isPresent();
        });
        assertThat(grantedAt[0]).isAfterOrEqualTo(cfg.getLockAtLeastUntil());
    }

    @Test
    void lockAtLeastForOutlivesTheProcessThatRanTheJob() throws Exception {
        Replica doomed = replica("replica-doomed");
        LockConfiguration cfg = config(job, Duration.ofSeconds(30), Duration.ofSeconds(5));
        // On a thread of its own, like the doomed process's scheduler thread: the run is never unlocked.
        CompletableFuture.runAsync(() -> doomed.provider.lock(cfg).orElseThrow())
                .get(60, TimeUnit.SECONDS);
        doomed.close(); // the process exits: its session ends, its queue node goes

        assertLockedFor(b, job);
        Instant[] grantedAt = new Instant[1];
        eventually().until(() -> {
            Optional<SimpleLock> lock = b.provider.lock(config(job, LONG, Duration.ZERO));
            lock.ifPresent(l -> {
                grantedAt[0] = ClockProvider.now();
                l.unlock();
            });
            return lock.isPresent();
        });
        assertThat(grantedAt[0]).isAfterOrEqualTo(cfg.getLockAtLeastUntil());
    }

    @Test
    void extendingMovesLockAtMostForFromNow() {
        LockConfiguration cfg = config(job, Duration.ofMillis(800), Duration.ZERO);
        SimpleLock lock = a.provider.lock(cfg).orElseThrow();
        Lease lease = ZkfenceShedLock.currentLease().orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();

        // Past the original lockAtMostUntil (with room for a late timer), the run still holds.
        Instant pastOriginal = cfg.getLockAtMostUntil().plusSeconds(2);
        eventually().until(() -> ClockProvider.now().isAfter(pastOriginal));
        assertThat(lease.state()).isEqualTo(LeaseState.HELD);
        assertLockedFor(b, job);
        extended.unlock();
        assertUnlockedFor(b, job);
    }

    @Test
    void aRunCanBeExtendedManyTimes() {
        SimpleLock lock = a.provider
                .lock(config(job, Duration.ofSeconds(30), Duration.ZERO))
                .orElseThrow();
        for (int i = 0; i < 3; i++) {
            lock = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        }
        assertLockedFor(b, job);
        lock.unlock();
        assertUnlockedFor(b, job);
    }

    @Test
    void extendingLockAtLeastForKeepsTheJobLockedAfterUnlock() {
        SimpleLock lock = a.provider
                .lock(config(job, Duration.ofSeconds(30), Duration.ZERO))
                .orElseThrow();
        lock.extend(Duration.ofSeconds(30), Duration.ofSeconds(20))
                .orElseThrow()
                .unlock();
        assertLockedFor(b, job);
    }

    @Test
    void anExpiredRunCannotBeExtended() {
        SimpleLock lock = a.provider
                .lock(config(job, Duration.ofMillis(200), Duration.ZERO))
                .orElseThrow();
        Lease lease = ZkfenceShedLock.currentLease().orElseThrow();
        eventually().until(() -> lease.state() == LeaseState.RELEASED);
        assertThat(lock.extend(Duration.ofSeconds(30), Duration.ZERO)).isEmpty();
        assertUnlockedFor(b, job);
    }

    @Test
    void anUnlockedRunCannotBeExtendedOrUnlockedAgain() {
        SimpleLock lock = a.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
        lock.unlock();
        assertThrows(IllegalStateException.class, () -> lock.extend(LONG, Duration.ZERO));
        assertThrows(IllegalStateException.class, lock::unlock);
    }

    @Test
    void afterExtendingOnlyTheNewHandleIsValid() {
        SimpleLock lock = a.provider.lock(config(job, LONG, Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(LONG, Duration.ZERO).orElseThrow();
        assertThrows(IllegalStateException.class, lock::unlock);
        assertThrows(IllegalStateException.class, () -> lock.extend(LONG, Duration.ZERO));
        assertLockedFor(b, job);
        extended.unlock();
        assertUnlockedFor(b, job);
    }

    @Test
    void theTaskReadsItsRunsTokenThroughTheThreadBoundAccessor() {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(a.provider);
        long[] seen = new long[2];
        long[] holder = new long[2];
        for (int i = 0; i < 2; i++) {
            int run = i;
            executor.executeWithLock(
                    (Runnable) () -> {
                        seen[run] = ZkfenceShedLock.currentToken();
                        holder[run] =
                                a.client.inspect(job).holder().orElseThrow().token();
                    },
                    config(job, LONG, Duration.ZERO));
        }
        assertThat(seen[0]).isEqualTo(holder[0]);
        assertThat(seen[1]).isEqualTo(holder[1]).isGreaterThan(seen[0]);
        assertThat(ZkfenceShedLock.currentLease()).isEmpty();
        IllegalStateException outside = assertThrows(IllegalStateException.class, ZkfenceShedLock::currentToken);
        assertThat(outside).hasMessageContaining("no zkfence ShedLock run on this thread");
    }

    @Test
    void nestedRunsSeeTheInnermostToken() {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(a.provider);
        long[] tokens = new long[3];
        executor.executeWithLock(
                (Runnable) () -> {
                    tokens[0] = ZkfenceShedLock.currentToken();
                    executor.executeWithLock(
                            (Runnable) () -> tokens[1] = ZkfenceShedLock.currentToken(),
                            config(job + "-inner", LONG, Duration.ZERO));
                    tokens[2] = ZkfenceShedLock.currentToken();
                },
                config(job, LONG, Duration.ZERO));
        assertThat(tokens[1]).isNotEqualTo(tokens[0]);
        assertThat(tokens[2]).isEqualTo(tokens[0]);
    }

    @Test
    void onlyOneRunAtATimeAcrossReplicasAndThreadsWithIncreasingTokens() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> all = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(t % 2 == 0 ? a.provider : b.provider);
            all.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 25; i++) {
                    executor.executeWithLock(
                            (Runnable) () -> {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                tokens.add(ZkfenceShedLock.currentToken());
                                inside.decrementAndGet();
                            },
                            config(job, LONG, Duration.ZERO));
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : all) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).isNotEmpty().isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }

    @Test
    void anInvalidRecordsPathIsRejectedNamingIt() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> ZkfenceLockProvider.create(a.client, a.curator, "shedlock"));
        assertThat(e).hasMessageContaining("recordsPath").hasMessageContaining("shedlock");
    }
}
