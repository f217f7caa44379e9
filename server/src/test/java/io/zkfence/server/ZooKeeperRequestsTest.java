package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What each call costs in ZooKeeper requests, counted at the replica: an uncontended acquire and
 * release is three requests and two writes (with or without a requestId, with or without a
 * wait, and with a wait whose TTL a grant from the queue would confirm with a write: queued as a
 * lease on the guess that the lock is free, made a waiting entry in place when it is not), a release one, a renew two; a waiter right behind the holder is granted with one more
 * read after the holder goes, none of the queue's other entries read; a waiter behind a lease
 * confirmed on its grant (a TTL longer than twice an unconfirmed grant's validity) is woken by
 * that write and reads only that entry again; a batch of renewals one read per lease, pipelined, and
 * one multi for all of them.
 */
class ZooKeeperRequestsTest {

    private EmbeddedEnsemble ensemble;
    private CuratorFramework seedZk;
    private CuratorFramework countedZk;
    private StoreUnderTest seed;
    private StoreUnderTest counted;
    private final RequestCounter requests = new RequestCounter();
    private LockKey key;

    @BeforeEach
    void twoReplicasOneCounted() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        seedZk = client();
        countedZk = client();
        seed = new StoreUnderTest(seedZk, "/requests");
        counted = new StoreUnderTest(countedZk, "/requests");
        key = LockKey.parse("inventory:sku-" + UUID.randomUUID().toString().substring(0, 6));
        // Once, so that the lock's znode exists as it does for any lock in use.
        seed.release(key, seed.acquire(key, "warm-up", 60_000));
        counted.wire().injectFaults(requests);
    }

    @AfterEach
    void stop() {
        counted.close();
        seed.close();
        countedZk.close();
        seedZk.close();
        ensemble.close();
    }

    @ParameterizedTest(name = "requestId: {0}")
    @ValueSource(booleans = {false, true})
    void anUncontendedAcquireAndReleaseIsThreeRequestsAndTwoWrites(boolean withRequestId) {
        LeaseGrant grant = counted.acquire(key, "pod", 60_000, false, 0, withRequestId ? "R-1" : null);
        counted.release(key, grant);

        assertThat(requests.total()).as(requests.toString()).isEqualTo(3);
        assertThat(requests.count("multi")).as("writes").isEqualTo(2);
    }

    @Test
    void anUncontendedWaitingAcquireAndReleaseIsThreeRequestsToo() {
        LeaseGrant grant = counted.acquire(key, "pod", 5_000, true, 5_000, "R-2");
        counted.release(key, grant);

        assertThat(requests.total()).as(requests.toString()).isEqualTo(3);
    }

    @Test
    void anUncontendedWaitingAcquireWhoseTtlWouldNeedAConfirmationIsThreeRequestsAndTwoWritesToo() {
        // A TTL longer than twice what an unconfirmed grant may be answered (30 s on the default
        // 15 s session): queued as a lease that stands alone, on the guess that the lock is free.
        LeaseGrant grant = counted.acquire(key, "pod", 3_600_000, true, 5_000, "R-3");
        QueueEntry entry = seed.queue(key).get(0);
        counted.release(key, grant);

        assertThat(entry.data().standsAlone())
                .as("a lease from its creation: " + entry)
                .isTrue();
        assertThat(grant.expiresAt() - System.currentTimeMillis()).isGreaterThan(3_500_000);
        assertThat(requests.total()).as(requests.toString()).isEqualTo(3);
        assertThat(requests.count("multi")).as("writes: " + requests).isEqualTo(2);
    }

    @Test
    void aWaitingAcquireThatGuessedTheLockFreeAndFoundItHeldWaitsInThePlaceItQueuedIn() throws Exception {
        LeaseGrant holder = seed.acquire(key, "holder", 60_000);
        CountDownLatch laterQueued = new CountDownLatch(1);
        // Held until another waiter has queued behind the guessed lease.
        holdTheWriteThatMakesAGuessedLeaseWait(laterQueued);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<LeaseGrant> first =
                    threads.submit(() -> counted.acquire(key, "first", 3_600_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 2);
            assertThat(seed.queue(key).get(1).data().standsAlone())
                    .as("queued as a lease, on the guess that the lock was free")
                    .isTrue();
            Future<LeaseGrant> later = threads.submit(() -> seed.acquire(key, "later", 5_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 3);
            laterQueued.countDown();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).get(1).tiedToReplica());
            assertThat(seed.queue(key).stream().map(e -> e.data().ownerId()))
                    .as("made a waiting entry in place, ahead of the waiter that came after it")
                    .containsExactly("holder", "first", "later");

            assertThat(seed.release(key, holder)).isTrue();
            LeaseGrant firstGrant = first.get(10, TimeUnit.SECONDS);
            assertThat(firstGrant.ownerId()).isEqualTo("first");
            assertThat(later).isNotDone();
            assertThat(counted.release(key, firstGrant)).isTrue();
            LeaseGrant laterGrant = later.get(10, TimeUnit.SECONDS);
            assertThat(laterGrant.fencingToken()).isGreaterThan(firstGrant.fencingToken());
            assertThat(firstGrant.fencingToken()).isGreaterThan(holder.fencingToken());
        }
    }

    @Test
    void aGuessedLeaseWhoseHolderLeftBeforeItWasMadeAWaitingEntryIsGrantedAsTheLeaseItIs() throws Exception {
        LeaseGrant holder = seed.acquire(key, "holder", 60_000);
        CountDownLatch holderReleased = new CountDownLatch(1);
        // Sent only after the holder went.
        holdTheWriteThatMakesAGuessedLeaseWait(holderReleased);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<LeaseGrant> next = threads.submit(() -> counted.acquire(key, "next", 3_600_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 2);
            assertThat(seed.release(key, holder)).isTrue();
            holderReleased.countDown();

            LeaseGrant granted = next.get(10, TimeUnit.SECONDS);
            QueueEntry entry = seed.queue(key).get(0);
            assertThat(granted.fencingToken()).isGreaterThan(holder.fencingToken());
            // The write required the entry ahead, which had gone: the lease may have been first
            // since, so it was left as it was, and granted as the lease it is (valid from its creation).
            assertThat(entry.data().standsAlone()).as(entry.toString()).isTrue();
            assertThat(entry.version()).as("never written after its creation").isZero();
            assertThat(granted.expiresAt()).isLessThanOrEqualTo(entry.data().expiresAt());
        }
    }

    @Test
    void aWaitingAcquireOnALockItsReplicaLastFoundContendedQueuesAWaitingEntryAtOnce() throws Exception {
        LeaseGrant holder = seed.acquire(key, "holder", 60_000);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // The first finds the lock held (its replica guessed it free) and marks it contended.
            Future<LeaseGrant> first =
                    threads.submit(() -> counted.acquire(key, "first", 3_600_000, true, 60_000, null));
            awaitTheHolderAndAWaitingEntryBehindIt();
            requests.reset();
            Future<LeaseGrant> second =
                    threads.submit(() -> counted.acquire(key, "second", 3_600_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 3);

            assertThat(seed.queue(key).get(2).tiedToReplica())
                    .as("queued waiting, not as a lease")
                    .isTrue();
            // first's conversion was written before the count was reset (its entry was tied then).
            assertThat(requests.count("multi"))
                    .as("only its queueing multi: " + requests)
                    .isEqualTo(1);
            seed.release(key, holder);
            counted.release(key, first.get(10, TimeUnit.SECONDS));
            assertThat(second.get(10, TimeUnit.SECONDS).ownerId()).isEqualTo("second");
        }
    }

    @Test
    void aReleaseIsOneMultiAndReadsNothing() {
        LeaseGrant grant = seed.acquire(key, "pod", 60_000);

        counted.release(key, grant);

        assertThat(requests.total()).as(requests.toString()).isEqualTo(1);
        assertThat(requests.count("multi")).isEqualTo(1);
    }

    @Test
    void aRenewReadsItsOwnEntryAndWritesIt() {
        LeaseGrant grant = seed.acquire(key, "pod", 60_000);

        counted.renew(key, grant, 60_000);

        assertThat(requests.count("data")).isEqualTo(1);
        assertThat(requests.count("setData")).isEqualTo(1);
        assertThat(requests.total()).isEqualTo(2);
    }

    @Test
    void aBatchRenewalReadsItsEntriesPipelinedAndWritesThemAllInOneMulti() {
        List<BatchRenewal.Lease> leases = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            LockKey k = LockKey.parse(key.key() + "-" + i);
            LeaseGrant grant = seed.acquire(k, "pod", 60_000);
            leases.add(new BatchRenewal.Lease(k, grant.lockToken(), grant.ownerId(), 60_000));
        }

        List<BatchRenewal.Outcome> outcomes = counted.service.batchRenewal().renew(leases);

        assertThat(outcomes).allSatisfy(o -> assertThat(o.renewed()).isTrue());
        assertThat(requests.count("data")).isEqualTo(25);
        assertThat(requests.count("multi")).as(requests.toString()).isEqualTo(1);
        assertThat(requests.total()).isEqualTo(26);
    }

    @Test
    void aBatchWhoseOneEntryChangedBeforeItsMultiRenewsTheOthersNextAndThatOneAfterReadingItAgain() {
        List<BatchRenewal.Lease> leases = new ArrayList<>();
        List<LeaseGrant> grants = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            LockKey k = LockKey.parse(key.key() + "-" + i);
            LeaseGrant grant = seed.acquire(k, "pod", 60_000);
            grants.add(grant);
            leases.add(new BatchRenewal.Lease(k, grant.lockToken(), grant.ownerId(), 60_000));
        }
        AtomicLong renewedMeanwhile = new AtomicLong();
        // Between the batch's reads and its first multi, lease 2 is renewed through the other
        // replica for longer: the multi's version check on it fails, so the multi writes nothing.
        counted.wire().injectFaults((kind, path) -> {
            requests.inject(kind, path);
            if (kind.equals("multi") && requests.count("multi") == 1) {
                renewedMeanwhile.set(seed.renew(leases.get(2).key(), grants.get(2), 120_000));
            }
            return null;
        });

        List<BatchRenewal.Outcome> outcomes = counted.service.batchRenewal().renew(leases);

        assertThat(outcomes).allSatisfy(o -> assertThat(o.renewed()).isTrue());
        assertThat(requests.count("multi"))
                .as("refused; the four others; lease 2 decided on the read after the refusal: " + requests)
                .isEqualTo(3);
        assertThat(requests.count("data"))
                .as("the five; the five again after the refusal, to find every changed one and decide it")
                .isEqualTo(5 + 5);
        assertThat(seed.queue(leases.get(2).key()).get(0).data().expiresAt())
                .as("the longer renewal's end is kept")
                .isEqualTo(renewedMeanwhile.get());
        assertThat(outcomes.get(2).expiresAt()).isLessThan(renewedMeanwhile.get());
        for (int i : new int[] {0, 1, 3, 4}) {
            assertThat(seed.queue(leases.get(i).key()).get(0).data().expiresAt())
                    .isEqualTo(outcomes.get(i).expiresAt());
        }
    }

    @Test
    void aWaiterRightBehindTheHolderIsGrantedWithOneReadAfterTheHolderGoes() throws Exception {
        LeaseGrant first = seed.acquire(key, "first", 60_000);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // A TTL an unconfirmed grant may be answered valid for: no confirmation on the hand-off's path.
            Future<LeaseGrant> next = threads.submit(() -> counted.acquire(key, "next", 5_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 2);
            int beforeRelease = requests.total();

            assertThat(seed.release(key, first)).isTrue();

            LeaseGrant granted = next.get();
            assertThat(granted.ownerId()).isEqualTo("next");
            assertThat(granted.fencingToken()).isGreaterThan(first.fencingToken());
            // Queued with a multi and the child list; read the holder (with the watch that woke it).
            assertThat(beforeRelease).as(requests.toString()).isEqualTo(3);
            // Woken: the child list and, pipelined behind it, its own entry (one view), which show it
            // first and still its own. No write.
            assertThat(requests.total() - beforeRelease).as(requests.toString()).isEqualTo(2);
            assertThat(requests.count("multi") + requests.count("setData")).isEqualTo(1);
        }
    }

    @Test
    void aWaiterWhoseServerMayLagIsGrantedBehindASyncWithoutAWrite() throws Exception {
        LeaseService.Settings d = StoreUnderTest.settings("/requests");
        // A lag bound as long as the session: a grant read without touching the leader could not
        // be answered valid at all, so the waiter's read after its wait goes behind a sync.
        LeaseService.Settings mayLag = new LeaseService.Settings(
                d.root(), d.auditRetention(), d.requestRetentionMillis(), d.maxWaiters(), 600_000);
        RequestCounter lagging = new RequestCounter();
        CuratorFramework laggingZk = client();
        StoreUnderTest replica = new StoreUnderTest(laggingZk, "/requests", Clock.systemUTC(), mayLag);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            replica.wire().injectFaults(lagging);
            LeaseGrant first = seed.acquire(key, "first", 60_000);
            Future<LeaseGrant> next = threads.submit(() -> replica.acquire(key, "next", 5_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 2);
            int beforeRelease = lagging.total();
            long released = System.currentTimeMillis();

            assertThat(seed.release(key, first)).isTrue();

            LeaseGrant granted = next.get();
            assertThat(granted.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(lagging.total() - beforeRelease)
                    .as("a sync, then the child list and its own entry: " + lagging)
                    .isEqualTo(3);
            assertThat(lagging.count("sync")).isEqualTo(1);
            assertThat(lagging.count("multi") + lagging.count("setData"))
                    .as("only the queueing multi")
                    .isEqualTo(1);
            assertThat(granted.expiresAt() - released).isLessThanOrEqualTo(5_000 + 1_000);
            assertThat(seed.queue(key).get(0).tiedToReplica())
                    .as("answered unconfirmed, tied to the replica's session")
                    .isTrue();
        } finally {
            replica.close();
            laggingZk.close();
        }
    }

    @Test
    void aWaiterBehindALeaseConfirmedOnItsGrantIsWokenByThatWriteAndReadsOnlyThatEntryAgain() throws Exception {
        LeaseGrant holder = seed.acquire(key, "holder", 60_000);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // A TTL longer than twice what an unconfirmed grant may be answered: confirmed (a write
            // to its entry) before it is answered, as a 30 s TTL is on the default 15 s session.
            Future<LeaseGrant> confirmed =
                    threads.submit(() -> seed.acquire(key, "confirmed", 3_600_000, true, 60_000, null));
            // Queued as a lease on the guess that the lock was free, then made a waiting entry.
            awaitTheHolderAndAWaitingEntryBehindIt();
            Future<LeaseGrant> behind = threads.submit(() -> counted.acquire(key, "behind", 5_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 3);
            int queued = requests.total();

            seed.release(key, holder);
            LeaseGrant first = confirmed.get();
            // The data watch on the entry ahead fires on the confirmation's write: the queue ahead
            // is as it was (entries only leave), so the waiter reads that entry alone (a new watch).
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> requests.count("data") == 2);
            int wokenByTheWrite = requests.total() - queued;
            seed.release(key, first);
            LeaseGrant second = behind.get();

            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(queued)
                    .as("queued: the multi, the child list, the entry ahead: " + requests)
                    .isEqualTo(3);
            assertThat(wokenByTheWrite).as("woken by the write: " + requests).isEqualTo(1);
            assertThat(requests.count("children"))
                    .as("the child list read once to queue, once to be granted: " + requests)
                    .isEqualTo(2);
            assertThat(requests.total())
                    .as("granted: the child list and its own entry: " + requests)
                    .isEqualTo(6);
            assertThat(requests.count("multi") + requests.count("setData"))
                    .as("only its queueing multi")
                    .isEqualTo(1);
        }
    }

    @Test
    void aLeaseFromTheQueueThatItsReplicaSawGoIsNotConfirmedAfterwards() throws Exception {
        LeaseGrant holder = seed.acquire(key, "holder", 60_000);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<LeaseGrant> first = threads.submit(() -> counted.acquire(key, "first", 5_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 2);
            Future<LeaseGrant> second = threads.submit(() -> counted.acquire(key, "second", 5_000, true, 60_000, null));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.queue(key).size() == 3);
            seed.release(key, holder);
            LeaseGrant firstGrant = first.get();
            assertThat(counted.service.unconfirmedLeases())
                    .as("first's lease, granted from the queue")
                    .isEqualTo(1);

            // Released through the other replica: only the waiter's watch tells the granting one.
            assertThat(seed.release(key, firstGrant)).isTrue();
            LeaseGrant secondGrant = second.get();

            assertThat(secondGrant.fencingToken()).isGreaterThan(firstGrant.fencingToken());
            assertThat(counted.service.unconfirmedLeases())
                    .as("only second's lease waits for its confirmation; first's went")
                    .isEqualTo(1);
        }
    }

    /**
     * The counted replica sends the write that makes a guessed lease a waiting entry (the only
     * multi whose first op requires this replica's marker, as no other waiting entry is queued
     * through it in these tests) once {@code until} is counted down, or after 10 s.
     */
    private void holdTheWriteThatMakesAGuessedLeaseWait(CountDownLatch until) {
        counted.wire().injectFaults((kind, path) -> {
            if (kind.equals("multi") && path.contains("/_replicas/")) {
                try {
                    until.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        });
    }

    /** Until the key's queue is its holder and one waiting entry (tied to its replica) behind it. */
    private void awaitTheHolderAndAWaitingEntryBehindIt() {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() ->
                        seed.queue(key).size() == 2 && seed.queue(key).get(1).tiedToReplica());
    }

    private CuratorFramework client() {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }
}
