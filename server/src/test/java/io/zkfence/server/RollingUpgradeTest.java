package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling upgrade: replicas of the previous protocol ({@link LegacyLeaseStore}, its code as
 * released) and of this one share an ensemble and a root. Both order one queue per lock by
 * sequence and grant only its first live entry, and each reads the other's entries as leases
 * until their expiry: they never both grant one key, and tokens keep increasing across them.
 */
class RollingUpgradeTest {

    private static final String ROOT = "/upgrade";

    private EmbeddedEnsemble ensemble;
    private CuratorFramework oldZk;
    private CuratorFramework newZk;
    private LegacyLeaseStore old;
    private StoreUnderTest fresh;

    @BeforeEach
    void anOldAndANewReplica() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        oldZk = client();
        newZk = client();
        old = new LegacyLeaseStore(oldZk, ROOT, Clock.systemUTC());
        fresh = new StoreUnderTest(newZk, ROOT);
    }

    @AfterEach
    void stop() {
        old.shutdown();
        fresh.close();
        oldZk.close();
        newZk.close();
        ensemble.close();
    }

    @Test
    void aLockHeldThroughAnOldReplicaIsRefusedByANewOneAndTheReverse() {
        LockKey one = LockKey.parse("upgrade:one");
        LegacyGrant oldGrant = old.acquire(one, "old-holder", 60_000, false, 0, null, CallerPresence.UNWATCHED);
        LockServiceException refused =
                assertThrows(LockServiceException.class, () -> fresh.acquire(one, "new", 60_000));
        assertThat(refused.code()).isEqualTo(ErrorCode.LOCK_ALREADY_HELD);
        assertThat(refused.extra("currentOwner")).isEqualTo("old-holder");

        LockKey two = LockKey.parse("upgrade:two");
        LeaseGrant newGrant = fresh.acquire(two, "new-holder", 60_000, true, 1_000, null);
        LegacyException oldRefused = assertThrows(
                LegacyException.class, () -> old.acquire(two, "old", 60_000, false, 0, null, CallerPresence.UNWATCHED));
        assertThat(oldRefused.code()).isEqualTo("LOCK_ALREADY_HELD");
        assertThat(newGrant.fencingToken()).isGreaterThan(oldGrant.fencingToken());
    }

    @Test
    void aLeaseGrantedByAnOldReplicaIsRenewedAndReleasedThroughANewOne() {
        LockKey key = LockKey.parse("upgrade:carried");
        LegacyGrant oldGrant = old.acquire(key, "pod", 5_000, false, 0, null, CallerPresence.UNWATCHED);

        long expiresAt = fresh.service.ops().renew(key, oldGrant.lockToken(), "pod", 60_000);
        assertThat(expiresAt).isGreaterThan(oldGrant.expiresAt());
        assertThat(fresh.service.ops().release(key, oldGrant.lockToken(), "pod"))
                .isTrue();

        LeaseGrant next = fresh.acquire(key, "next", 60_000);
        assertThat(next.fencingToken()).isGreaterThan(oldGrant.fencingToken());
    }

    @Test
    void oldAndNewReplicasTakingTurnsOnOneKeyNeverHoldItTogether() throws Exception {
        LockKey key = LockKey.parse("upgrade:contended");
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicInteger outOfOrder = new AtomicInteger();
        int rounds = 40;
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                boolean throughOld = c % 2 == 0;
                String owner = (throughOld ? "old-" : "new-") + c;
                clients.add(threads.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        long token;
                        Runnable release;
                        if (throughOld) {
                            LegacyGrant g =
                                    old.acquire(key, owner, 30_000, true, 60_000, null, CallerPresence.UNWATCHED);
                            token = g.fencingToken();
                            release = () -> old.release(key, g.lockToken(), owner);
                        } else {
                            LeaseGrant g = fresh.acquire(key, owner, 30_000, true, 60_000, null);
                            token = g.fencingToken();
                            release = () -> fresh.release(key, g);
                        }
                        if (holders.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        if (lastToken.getAndSet(token) >= token) {
                            outOfOrder.incrementAndGet();
                        }
                        holders.decrementAndGet();
                        release.run();
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get();
            }
        }
        assertThat(overlaps).as("grants held at once").hasValue(0);
        assertThat(outOfOrder).as("tokens not increasing").hasValue(0);
        assertThat(lastToken.get()).isPositive();
    }

    private CuratorFramework client() {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }
}
