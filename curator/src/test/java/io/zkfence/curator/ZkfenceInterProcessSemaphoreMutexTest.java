package io.zkfence.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ZkfenceInterProcessSemaphoreMutexTest extends DoorTestBase {

    @Test
    void aSecondAcquireWaitsEvenInTheHoldingThread() throws Exception {
        ZkfenceInterProcessSemaphoreMutex mutex = new ZkfenceInterProcessSemaphoreMutex(curator(), path);
        mutex.acquire();
        long token = mutex.lease().orElseThrow().token();
        assertThat(mutex.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(mutex.lease().orElseThrow().token()).isEqualTo(token);
        mutex.release();
        assertThat(mutex.isAcquiredInThisProcess()).isFalse();
    }

    @Test
    void anyThreadMayReleaseAndReleasingWhatIsNotAcquiredIsRefused() throws Exception {
        ZkfenceInterProcessSemaphoreMutex mutex = new ZkfenceInterProcessSemaphoreMutex(curator(), path);
        assertThat(assertThrows(IllegalStateException.class, mutex::release)).hasMessage("Not acquired");
        mutex.acquire();
        CompletableFuture.runAsync(mutex::release).get();
        assertThat(mutex.acquire(5, TimeUnit.SECONDS)).isTrue();
        mutex.release();
    }

    @Test
    void itExcludesTheMutexDoorOnTheSamePath() throws Exception {
        ZkfenceInterProcessSemaphoreMutex semaphore = new ZkfenceInterProcessSemaphoreMutex(curator(), path);
        ZkfenceInterProcessMutex mutex = new ZkfenceInterProcessMutex(curator(), path);
        semaphore.acquire();
        assertThat(mutex.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        semaphore.release();
        assertThat(mutex.acquire(5, TimeUnit.SECONDS)).isTrue();
        mutex.release();
    }
}
