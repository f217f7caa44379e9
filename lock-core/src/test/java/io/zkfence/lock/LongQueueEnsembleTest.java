package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * A long queue on the real ensemble: an entry in the middle whose session ends (the servers
 * delete its node, with no release record) while the holder still holds. The waiter behind it
 * must watch the entry ahead of it and wait its turn; the queue then hands off in order, each
 * woken waiter on the release record of the one before.
 */
class LongQueueEnsembleTest extends EnsembleTestBase {

    private static final int WAITERS = Ahead.WINDOW + 2;

    private record Held(int id, Lease lease, CountDownLatch release) {}

    @Test
    void aPredecessorWhoseSessionEndsLetsNoWaiterPassTheHolderAndTheQueueGoesOnInOrder() throws Exception {
        List<LockClient> clients = List.of(newClient("a"), newClient("b"), newClient("c"));
        FencedLock first = clients.get(0).lock("long");
        Lease holder = first.acquire();
        LinkedBlockingQueue<Held> granted = new LinkedBlockingQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(WAITERS);
        try {
            for (int i = 0; i < WAITERS; i++) {
                int id = i;
                LockClient client = clients.get(i % clients.size());
                pool.submit(() -> {
                    Lease lease = client.lock("long").acquire();
                    CountDownLatch release = new CountDownLatch(1);
                    granted.add(new Held(id, lease, release));
                    release.await();
                    lease.release();
                    return null;
                });
                eventually().until(() -> queueOf(first).size() == id + 2); // queued in this order
            }
            // An entry whose session is about to end, then the waiter behind it.
            CuratorFramework doomed = ensemble.curator(Duration.ofSeconds(10));
            String doomedNode = doomed.create()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(first.path() + "/q-doomedsession00000lock-");
            CuratorFramework lastSession = closeLater(ensemble.curator(Duration.ofSeconds(10)));
            LockClient last = newClient(lastSession, "last", UnaryOperator.identity());
            CompletableFuture<Lease> lastWaiter =
                    CompletableFuture.supplyAsync(() -> last.lock("long").acquire());
            eventually().until(() -> watching(lastSession, doomedNode));

            doomed.close(); // the servers delete its node: no release record

            String aheadOfDoomed = first.path() + "/"
                    + QueuePosition.queue(queueOf(first)).get(WAITERS).name();
            eventually().until(() -> watching(lastSession, aheadOfDoomed));
            assertThat(lastWaiter).as("granted while the holder holds").isNotDone();
            assertThat(last.stats().childrenReads())
                    .as("the read at enqueue only")
                    .isEqualTo(1);

            List<Long> tokens = new ArrayList<>(List.of(holder.token()));
            holder.release();
            for (int i = 0; i < WAITERS; i++) {
                Held next = granted.poll(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(next).as("grant %d", i).isNotNull();
                assertThat(next.id()).as("grant order").isEqualTo(i);
                assertThat(lastWaiter).isNotDone();
                tokens.add(next.lease().token());
                next.release().countDown();
            }
            try (Lease lease = lastWaiter.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                tokens.add(lease.token());
                assertThat(queueOf(first))
                        .as("nothing ahead of the last waiter")
                        .hasSize(1);
            }
            assertThat(tokens).isSorted().doesNotHaveDuplicates();
            assertThat(last.stats().childrenReads())
                    .as("woken on the release record, not on a read of the queue")
                    .isEqualTo(1);
            assertThat(last.stats().wakeUps())
                    .as("its first predecessor gone, then the one it took over")
                    .isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean watching(CuratorFramework session, String path) throws Exception {
        return WatchersDebug.getDataWatches(session.getZookeeperClient().getZooKeeper())
                .contains(path);
    }
}
