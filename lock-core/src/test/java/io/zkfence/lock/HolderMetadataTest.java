package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class HolderMetadataTest extends EnsembleTestBase {

    @Test
    void inspectShowsTheHolderItsTokenAndSinceAndTheWaitingQueueInOrder() throws Exception {
        LockClient a = newClient("pod-a");
        LockClient b = newClient("pod-b");
        LockClient c = newClient("pod-c");
        FencedLock lock = a.lock("db-migration:user-service");
        Instant before = Instant.now();
        Lease held = lock.acquire();
        Instant after = Instant.now();
        CompletableFuture<Lease> second = CompletableFuture.supplyAsync(
                () -> b.lock("db-migration:user-service").acquire());
        eventually().until(() -> queueOf(lock).size() == 2);
        CompletableFuture<Lease> third = CompletableFuture.supplyAsync(
                () -> c.lock("db-migration:user-service").acquire());
        eventually().until(() -> queueOf(lock).size() == 3);

        LockInfo info = c.inspect("db-migration:user-service");
        assertThat(info.name()).isEqualTo("db-migration:user-service");
        assertThat(info.path()).isEqualTo(lock.path());
        LockInfo.Entry holder = info.holder().orElseThrow();
        assertThat(holder.ownerId()).isEqualTo("pod-a");
        assertThat(holder.token()).isEqualTo(held.token());
        assertThat(holder.sequence()).isEqualTo(held.sequence());
        assertThat(holder.requestedAt()).isBetween(before.minusMillis(1), after.plusMillis(1));
        assertThat(info.waiters()).extracting(LockInfo.Entry::ownerId).containsExactly("pod-b", "pod-c");
        assertThat(info.entries()).extracting(LockInfo.Entry::token).isSorted();

        held.release();
        second.get().release();
        third.get().release();
        assertThat(a.inspect("db-migration:user-service").entries()).isEmpty();
    }

    @Test
    void inspectOfALockNobodyEverUsedIsEmpty() {
        LockClient a = newClient("a");
        LockInfo info = a.lock("never-used").inspect();
        assertThat(info.holder()).isEmpty();
        assertThat(info.waiters()).isEmpty();
    }

    @Test
    void ownerIdDefaultsToPidAtHost() {
        LockClient a = closeLater(LockClient.connect(
                ensemble.connectString(),
                LockClientConfig.builder().rootPath(root).build()));
        try (Lease lease = a.lock("default-owner").acquire()) {
            String owner = a.inspect("default-owner").holder().orElseThrow().ownerId();
            assertThat(owner).isEqualTo(ProcessHandle.current().pid() + "@" + hostName());
        }
    }

    private static String hostName() throws RuntimeException {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
