package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.internal.ZkGateway;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reaper's futures always complete: a caller waiting to hear that a queue node is gone (a
 * closing client, a try that found the lock taken) is told even when the reaper stops trying.
 */
class NodeReaperTest {

    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final AtomicInteger deletes = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();

    /** A gateway that never reaches a server: every delete and read loses its connection. */
    private final ZkGateway disconnected = new ForwardingGateway(null) {
        @Override
        public CompletableFuture<Void> delete(String path, int version) {
            deletes.incrementAndGet();
            return CompletableFuture.failedFuture(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, path));
        }

        @Override
        public CompletableFuture<List<String>> children(String path) {
            reads.incrementAndGet();
            return CompletableFuture.failedFuture(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, path));
        }

        @Override
        public int sessionTimeoutMs() {
            return 10_000;
        }
    };

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void aDeleteThatCannotBeRetriedAfterShutdownCompletesWithFalse() throws Exception {
        NodeReaper reaper = new NodeReaper(disconnected, timer);
        timer.shutdownNow();

        CompletableFuture<Boolean> done = reaper.delete("/locks/a/q-guid-0000000001");

        assertThat(done.get(5, TimeUnit.SECONDS)).as("gave up, not dropped").isFalse();
        assertThat(deletes).hasValue(1);
    }

    @Test
    void aSearchForAnUnconfirmedCreateThatCannotBeRetriedAfterShutdownCompletesWithFalse() throws Exception {
        NodeReaper reaper = new NodeReaper(disconnected, timer);
        timer.shutdownNow();

        CompletableFuture<Boolean> done = reaper.deleteCreatedBy("/locks/a", "guid");

        assertThat(done.get(5, TimeUnit.SECONDS)).as("gave up, not dropped").isFalse();
        assertThat(reads).hasValue(1);
    }

    @Test
    void aDeleteRetriesThroughConnectionLossWhileTheTimerRuns() throws Exception {
        AtomicInteger failuresLeft = new AtomicInteger(3);
        ZkGateway flaky = new ForwardingGateway(disconnected) {
            @Override
            public CompletableFuture<Void> delete(String path, int version) {
                return failuresLeft.getAndDecrement() > 0
                        ? real.delete(path, version)
                        : CompletableFuture.completedFuture(null);
            }
        };
        NodeReaper reaper = new NodeReaper(flaky, timer);

        assertThat(reaper.delete("/locks/a/q-guid-0000000001").get(30, TimeUnit.SECONDS))
                .isTrue();
        assertThat(deletes).hasValue(3);
    }
}
