package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.internal.CuratorZkGateway;
import io.zkfence.lock.internal.ZkGateway;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;

/**
 * Every way an acquisition can fail completes the caller's future: an untimed acquire never waits
 * for a grant that will not come, and nothing is left in the queue.
 */
class AcquisitionFailureTest extends EnsembleTestBase {

    @Test
    void anAcquisitionCancelledBeforeItStartedSendsNothing() throws Exception {
        AtomicInteger creates = new AtomicInteger();
        LockRuntime rt = runtime(real -> new ForwardingGateway(real) {
            @Override
            public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
                creates.incrementAndGet();
                return super.create(path, data, mode);
            }
        });
        Acquisition a = acquisition(rt, "cancelled-early", null);
        rt.markClosing();
        a.cancel();
        a.start();
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> a.result().get(5, TimeUnit.SECONDS));
        assertThat(e.getCause()).isInstanceOf(LockClientClosedException.class);
        assertThat(creates).hasValue(0);
        assertThat(a.phase()).isEqualTo(Acquisition.Phase.DONE);
    }

    @Test
    void aMaxHoldTimerThatCannotBeScheduledFailsTheAcquireAndRemovesTheNode() throws Exception {
        LockRuntime rt = runtime(UnaryOperator.identity());
        rt.scheduler.shutdownNow();
        FencedLock probe = newClient("probe").lock("no-timer");
        Acquisition a = acquisition(rt, "no-timer", Duration.ofMinutes(1));
        a.start();
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> a.result().get(30, TimeUnit.SECONDS));
        assertThat(e.getCause())
                .isInstanceOf(CoordinationException.class)
                .hasRootCauseInstanceOf(RejectedExecutionException.class);
        assertThat(rt.registry.grants()).isEmpty();
        eventually().until(() -> queueOf(probe).isEmpty());
    }

    @Test
    void aGatewayThatThrowsWhileTheGrantIsMadeFailsTheAcquireWithTheCause() {
        AtomicBoolean broken = new AtomicBoolean();
        LockClient client = newClient(
                closeLater(ensemble.curator(Duration.ofSeconds(10))), "broken", real -> new ForwardingGateway(real) {
                    @Override
                    public boolean isConnected() {
                        if (broken.get()) {
                            throw new IllegalArgumentException("connection probe broke");
                        }
                        return super.isConnected();
                    }
                });
        FencedLock lock = client.lock("grant-throws");
        broken.set(true);
        CoordinationException e = assertThrows(CoordinationException.class, lock::acquire);
        assertThat(e).hasMessageContaining("connection probe broke").hasMessageContaining("grant-throws");
        broken.set(false);
        eventually().untilAsserted(() -> assertThat(queueOf(lock)).isEmpty());
        try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void anAnswerFailingWithAProgrammingErrorFailsTheAcquireInsteadOfRetryingForever() {
        AtomicInteger reads = new AtomicInteger();
        LockClient client = newClient(
                closeLater(ensemble.curator(Duration.ofSeconds(10))), "npe", real -> new ForwardingGateway(real) {
                    @Override
                    public CompletableFuture<List<String>> children(String path) {
                        reads.incrementAndGet();
                        return CompletableFuture.failedFuture(new NullPointerException("children list was null"));
                    }
                });
        FencedLock lock = client.lock("npe");
        CoordinationException e = assertThrows(CoordinationException.class, lock::acquire);
        assertThat(e).hasRootCauseInstanceOf(NullPointerException.class).hasMessageContaining("children list was null");
        // One read pipelined with each create (the first create finds no lock znode yet) and the
        // re-read after the failed one: three at most, not a retry loop.
        assertThat(reads.get()).as("not retried in a loop").isLessThanOrEqualTo(3);
    }

    @Test
    void aConnectionLossAnswerIsRetriedAndTheAcquireSucceeds() {
        AtomicInteger failuresLeft = new AtomicInteger(3);
        LockClient client = newClient(
                closeLater(ensemble.curator(Duration.ofSeconds(10))), "flaky", real -> new ForwardingGateway(real) {
                    @Override
                    public CompletableFuture<NodeContent> getData(String path, Watcher w) {
                        if (w != null && failuresLeft.getAndDecrement() > 0) {
                            return CompletableFuture.failedFuture(new KeeperException.ConnectionLossException());
                        }
                        return super.getData(path, w);
                    }
                });
        LockClient holder = newClient("holder");
        Lease held = holder.lock("flaky").acquire();
        CompletableFuture<Lease> waiting =
                CompletableFuture.supplyAsync(() -> client.lock("flaky").acquire());
        eventually().until(() -> failuresLeft.get() < 0);
        held.release();
        try (Lease lease = waiting.join()) {
            assertThat(lease.token()).isGreaterThan(held.token());
        }
    }

    @Test
    void aParentContainerReapedWhileTheLocksZnodeIsCreatedIsCreatedAgainAndTheAcquireSucceeds() {
        AtomicInteger reapedLeft = new AtomicInteger(2);
        LockClient client = newClient(
                closeLater(ensemble.curator(Duration.ofSeconds(10))), "reaped", real -> new ForwardingGateway(real) {
                    @Override
                    public void createContainers(String path) throws KeeperException, InterruptedException {
                        if (reapedLeft.getAndDecrement() > 0) {
                            // As Curator throws when ZooKeeper's container reaper removed an empty
                            // parent between its creating the parents and this znode.
                            throw new KeeperException.NoNodeException(path.substring(0, path.lastIndexOf('/')));
                        }
                        super.createContainers(path);
                    }
                });

        try (Lease lease = client.lock("reaped-" + System.nanoTime()).acquire()) {
            assertThat(lease.token()).isPositive();
        }
        assertThat(reapedLeft.get()).as("created again after each").isNegative();
    }

    /**
     * A try that found the lock taken has answered "taken" once its node is being deleted; a
     * Curator LOST that arrives while the reaper is still deleting (a delete can take up to twice
     * the session timeout through a connection loss) must not send it back into the queue.
     */
    @Test
    void aTryThatFoundTheLockTakenDoesNotQueueAgainWhenTheSessionIsLostWhileItsNodeIsDeleted() throws Exception {
        Lease held = newClient("holder").lock("taken").acquire();
        AtomicInteger creates = new AtomicInteger();
        AtomicBoolean hideQueueOnce = new AtomicBoolean(true);
        CompletableFuture<Void> deleteLetThrough = new CompletableFuture<>();
        CompletableFuture<String> deleteAsked = new CompletableFuture<>();
        LockRuntime rt = runtime(real -> new ForwardingGateway(real) {
            @Override
            public CompletableFuture<List<String>> children(String path) {
                // The pre-check reads a server that has not seen the holder yet, so the try queues.
                return hideQueueOnce.compareAndSet(true, false)
                        ? real.children(path).thenApply(kids -> List.of())
                        : real.children(path);
            }

            @Override
            public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
                if (mode == CreateMode.EPHEMERAL_SEQUENTIAL) {
                    creates.incrementAndGet();
                }
                return super.create(path, data, mode);
            }

            @Override
            public CompletableFuture<Void> delete(String path, int version) {
                // The try's clean-up: held until the test lets it through.
                deleteAsked.complete(path);
                return deleteLetThrough.thenCompose(go -> real.delete(path, version));
            }
        });
        Acquisition attempt =
                new Acquisition(rt, "taken", LockPaths.lockPath(root, "taken"), true, null, Thread.currentThread());
        rt.registry.add(attempt);
        attempt.start();
        deleteAsked.get(30, TimeUnit.SECONDS);

        new SessionMonitor(rt).stateChanged(raw, ConnectionState.LOST);

        assertThat(attempt.phase())
                .as("the try has answered; a lost session changes nothing")
                .isEqualTo(Acquisition.Phase.DONE);
        // The timer runs its tasks in the order they are due: once a task due after the longest
        // back-off has run, any re-queue the LOST scheduled would have sent its create.
        rt.scheduler
                .schedule(() -> {}, Acquisition.MAX_BACKOFF.toMillis() + 50, TimeUnit.MILLISECONDS)
                .get(30, TimeUnit.SECONDS);
        deleteLetThrough.complete(null);
        assertThat(attempt.result().get(30, TimeUnit.SECONDS))
                .as("not acquired")
                .isNull();
        assertThat(creates).as("queue nodes created by the try").hasValue(1);
        FencedLock probe = newClient("probe").lock("taken");
        eventually()
                .untilAsserted(() ->
                        assertThat(queueOf(probe)).as("the holder's node only").hasSize(1));
        held.release();
    }

    private LockRuntime runtime(UnaryOperator<ZkGateway> decorate) {
        CuratorFramework curator = closeLater(ensemble.curator(Duration.ofSeconds(10)));
        LockClientConfig config =
                LockClientConfig.builder().rootPath(root).ownerId("rt").build();
        LockRuntime rt =
                new LockRuntime(decorate.apply(new CuratorZkGateway(curator, config.acl())), config, Clock.systemUTC());
        closeLater(rt::shutdown);
        return rt;
    }

    private Acquisition acquisition(LockRuntime rt, String name, Duration maxHold) {
        return new Acquisition(rt, name, LockPaths.lockPath(root, name), false, maxHold, Thread.currentThread());
    }
}
