package io.zkfence.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

class ZkfenceInterProcessMutexTest extends DoorTestBase {

    @Test
    void twoObjectsOnOnePathExcludeEachOtherEvenInOneThread() throws Exception {
        CuratorFramework client = curator();
        ZkfenceInterProcessMutex first = new ZkfenceInterProcessMutex(client, path);
        ZkfenceInterProcessMutex second = new ZkfenceInterProcessMutex(client, path);
        first.acquire();
        assertThat(second.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        first.release();
        assertThat(second.acquire(5, TimeUnit.SECONDS)).isTrue();
        second.release();
    }

    @Test
    void oneObjectIsReentrantForItsThreadWithOneLeaseUntilTheLastRelease() throws Exception {
        ZkfenceInterProcessMutex mutex = new ZkfenceInterProcessMutex(curator(), path);
        mutex.acquire();
        Lease lease = mutex.lease().orElseThrow();
        assertThat(mutex.acquire(0, TimeUnit.SECONDS)).isTrue();
        assertThat(mutex.lease()).containsSame(lease);
        mutex.release();
        assertThat(mutex.isOwnedByCurrentThread()).isTrue();
        assertThat(lease.state()).isEqualTo(LeaseState.HELD);
        mutex.release();
        assertThat(mutex.isAcquiredInThisProcess()).isFalse();
        assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(mutex.lease()).isEmpty();
    }

    @Test
    void releaseByAThreadThatDoesNotHoldItIsAnIllegalMonitorState() throws Exception {
        ZkfenceInterProcessMutex mutex = new ZkfenceInterProcessMutex(curator(), path);
        assertThat(assertThrows(IllegalMonitorStateException.class, mutex::release))
                .hasMessageContaining(path);
        mutex.acquire();
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> CompletableFuture.runAsync(mutex::release).get());
        assertThat(e.getCause()).isInstanceOf(IllegalMonitorStateException.class);
        mutex.release();
    }

    @Test
    void aZeroOrNegativeTimeTakesAFreeLockAndRefusesAHeldOne() throws Exception {
        CuratorFramework client = curator();
        ZkfenceInterProcessMutex mutex = new ZkfenceInterProcessMutex(client, path);
        assertThat(mutex.acquire(-5, TimeUnit.SECONDS)).isTrue();
        ZkfenceInterProcessMutex other = new ZkfenceInterProcessMutex(client, path);
        assertThat(CompletableFuture.supplyAsync(() -> acquireNow(other)).get()).isFalse();
        mutex.release();
    }

    private static boolean acquireNow(ZkfenceInterProcessMutex m) {
        try {
            return m.acquire(0, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anInterruptWhileWaitingThrowsInterruptedExceptionAndLeavesNoNode() throws Exception {
        CuratorFramework client = curator();
        ZkfenceInterProcessMutex holder = new ZkfenceInterProcessMutex(client, path);
        holder.acquire();
        ZkfenceInterProcessMutex waiter = new ZkfenceInterProcessMutex(curator(), path);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().start(() -> {
            started.countDown();
            try {
                waiter.acquire();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        started.await();
        eventually().until(() -> client.getChildren().forPath(path).size() == 2);
        t.interrupt();
        assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        eventually().until(() -> client.getChildren().forPath(path).size() == 1);
        assertThat(waiter.isAcquiredInThisProcess()).isFalse();
        holder.release();
    }

    @Test
    void theLeaseCarriesATokenThatGrowsFromHolderToHolder() throws Exception {
        ZkfenceInterProcessMutex a = new ZkfenceInterProcessMutex(curator(), path);
        ZkfenceInterProcessMutex b = new ZkfenceInterProcessMutex(curator(), path);
        a.acquire();
        long first = a.lease().orElseThrow().token();
        a.release();
        b.acquire();
        assertThat(b.lease().orElseThrow().token()).isGreaterThan(first);
        b.release();
    }

    @Test
    void aPathZkfenceWouldEncodeOrTheRootIsRefusedNamingIt() {
        CuratorFramework client = curator();
        assertThat(assertThrows(
                        IllegalArgumentException.class, () -> new ZkfenceInterProcessMutex(client, "/locks/a b")))
                .hasMessageContaining("/locks/a b");
        assertThat(assertThrows(IllegalArgumentException.class, () -> new ZkfenceInterProcessMutex(client, "/")))
                .hasMessageContaining("root");
        assertThrows(IllegalArgumentException.class, () -> new ZkfenceInterProcessMutex(client, "no-slash"));
    }

    @Test
    void closingTheCuratorClientEndsItsLeases() throws Exception {
        CuratorFramework client = curator();
        ZkfenceInterProcessMutex mutex = new ZkfenceInterProcessMutex(client, path);
        mutex.acquire();
        Lease lease = mutex.lease().orElseThrow();
        client.close();
        eventually().until(() -> lease.state().isFinal());
        ZkfenceInterProcessMutex next = new ZkfenceInterProcessMutex(curator(), path);
        assertThat(next.acquire(30, TimeUnit.SECONDS)).isTrue();
        next.release();
    }
}
