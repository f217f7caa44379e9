package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

class FencingTokenTest extends EnsembleTestBase {

    @Test
    void tokenStrictlyIncreasesOverAThousandGrantsAcrossClients() {
        LockClient a = newClient("a");
        LockClient b = newClient("b");
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            LockClient client = i % 3 == 0 ? b : a;
            try (Lease lease = client.lock("counter").acquire()) {
                tokens.add(lease.token());
            }
        }
        assertThat(tokens).hasSize(1000).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void tokenIsTheCreationZxidOfTheQueueNode() throws Exception {
        LockClient a = newClient("a");
        try (Lease lease = a.lock("zxid").acquire()) {
            Stat stat = statOf(lease.nodePath());
            assertThat(lease.token()).isEqualTo(stat.getCzxid());
        }
    }

    @Test
    void tokenIsASixtyFourBitValueAboveAnyThirtyTwoBitCounter() {
        // zxid = epoch << 32 | counter and the first epoch is 1: tokens start above 2^32, so
        // nothing truncates or wraps them at 2^31 the way the sequence suffix does.
        LockClient a = newClient("a");
        try (Lease lease = a.lock("wide").acquire()) {
            assertThat(lease.token()).isGreaterThan(1L << 32);
        }
    }

    @Test
    void tokenKeepsIncreasingAfterAnOperatorDeletesTheLockZnodeWhileIdle() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("deleted-by-operator");
        Lease before = lock.acquire();
        before.release();
        raw.delete().forPath(lock.path());
        try (Lease after = lock.acquire()) {
            assertThat(after.token()).isGreaterThan(before.token());
            // The sequence restarted with the re-created znode: that is why it is not the token.
            assertThat(after.sequence()).isLessThanOrEqualTo(before.sequence());
        }
    }

    @Test
    void tokenKeepsIncreasingAfterTheServerRemovesTheEmptyContainerZnode() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("reaped-container");
        long[] tokens = new long[2];
        int[] sequences = new int[2];
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 3; i++) {
                try (Lease lease = lock.acquire()) {
                    tokens[round] = lease.token();
                    sequences[round] = lease.sequence();
                }
            }
            // The ensemble checks containers every second (see Ensemble): wait until it removed it.
            eventually().until(() -> statOf(lock.path()) == null);
        }
        assertThat(tokens[1]).isGreaterThan(tokens[0]);
        assertThat(sequences[1]).isEqualTo(sequences[0]);
    }
}
