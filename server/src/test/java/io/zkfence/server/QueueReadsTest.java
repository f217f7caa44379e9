package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a call reads of a long queue: a release or renew reads its own entry, a waiter the entry
 * right ahead of it. Neither reads the whole queue, so a hot key's hand-off costs the same number
 * of ZooKeeper requests however many callers wait on it.
 */
class QueueReadsTest {

    private static final LockKey KEY = LockKey.parse("inventory:sku-hot");
    private static final int WAITERS = 8;

    private EmbeddedEnsemble ensemble;
    private CuratorFramework seedZk;
    private CuratorFramework countedZk;
    private LeaseStore seed;
    private LeaseStore counted;
    private final AtomicInteger dataReads = new AtomicInteger();
    private final AtomicInteger listReads = new AtomicInteger();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private Grant holder;
    private final List<Future<Grant>> waiting = new ArrayList<>();

    @BeforeEach
    void aHolderAndEightWaiters() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        seedZk = client();
        countedZk = client();
        seed = new LeaseStore(seedZk, "/reads", Clock.systemUTC(), 3);
        counted = new LeaseStore(
                CuratorSpy.onCall(
                        CuratorSpy.onCall(countedZk, "getData", dataReads::incrementAndGet),
                        "getChildren",
                        listReads::incrementAndGet),
                "/reads",
                Clock.systemUTC(),
                3);
        holder = seed.acquire(KEY, "holder", 60_000, false, 0, null, CallerPresence.UNWATCHED);
        for (int i = 0; i < WAITERS; i++) {
            String owner = "waiter-" + i;
            waiting.add(threads.submit(
                    () -> seed.acquire(KEY, owner, 60_000, true, 60_000, null, CallerPresence.UNWATCHED)));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> seed.status(KEY).size() == waiting.size() + 1);
        }
    }

    @AfterEach
    void stop() {
        seed.shutdown(); // the waits still open give up their entries
        threads.close();
        countedZk.close();
        seedZk.close();
        ensemble.close();
    }

    @Test
    void aReleaseReadsOnlyItsOwnEntryAndTheFirstWaiterIsGranted() throws Exception {
        assertThat(counted.release(KEY, holder.lockToken(), "holder")).isTrue();

        assertThat(dataReads).as("entries read by the release").hasValue(1);
        Grant next = waiting.get(0).get();
        assertThat(next.ownerId()).isEqualTo("waiter-0");
        assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
    }

    @Test
    void aRenewReadsOnlyItsOwnEntry() {
        counted.renew(KEY, holder.lockToken(), "holder", 60_000);

        assertThat(dataReads).as("entries read by the renew").hasValue(1);
    }

    @Test
    void aWaiterReadsTheEntryAheadOfItNotTheWholeQueue() {
        LockServiceException refused = assertThrows(
                LockServiceException.class,
                () -> counted.acquire(KEY, "late", 60_000, true, 300, null, CallerPresence.UNWATCHED));

        assertThat(refused.code()).isEqualTo("LOCK_ALREADY_HELD");
        assertThat(refused.getMessage()).contains("'holder'");
        // The entry ahead when queued, again when the wait ran out, and the holder for the answer:
        // three reads with nine entries ahead.
        assertThat(dataReads).as("entries read by the waiter").hasValue(3);
    }

    @Test
    void aWaiterRightBehindTheHolderIsGrantedOnTheReleaseWithoutReadingTheQueueAgain() throws Exception {
        LockKey other = LockKey.parse("inventory:sku-other");
        Grant first = seed.acquire(other, "first", 60_000, false, 0, null, CallerPresence.UNWATCHED);
        Future<Grant> next = threads.submit(
                () -> counted.acquire(other, "next", 60_000, true, 60_000, null, CallerPresence.UNWATCHED));
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> seed.status(other).size() == 2);

        assertThat(seed.release(other, first.lockToken(), "first")).isTrue();

        Grant granted = next.get();
        assertThat(granted.ownerId()).isEqualTo("next");
        assertThat(granted.fencingToken()).isGreaterThan(first.fencingToken());
        // The child list once, when queueing; the holder's data once, with the watch that woke it.
        assertThat(listReads).as("child lists read by the waiter").hasValue(1);
        assertThat(dataReads).as("entries read by the waiter").hasValue(1);
    }

    private CuratorFramework client() {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }
}
