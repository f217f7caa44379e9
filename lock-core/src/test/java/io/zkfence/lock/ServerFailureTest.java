package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Kills and restarts servers, so it runs on an ensemble of its own. */
class ServerFailureTest extends EnsembleTestBase {

    private static Ensemble own;

    @BeforeAll
    static void startOwnEnsemble() {
        own = Ensemble.start();
    }

    @AfterAll
    static void stopOwnEnsemble() {
        own.close();
    }

    @Override
    protected Ensemble ensemble() {
        return own;
    }

    @Test
    void tokenKeepsIncreasingAcrossALeaderKillAndRestart() throws Exception {
        LockClient a = newClient("a");
        FencedLock lock = a.lock("leader-change");
        long beforeKill;
        try (Lease lease = lock.acquire()) {
            beforeKill = lease.token();
        }
        InstanceSpec leader = ensemble.leader();
        ensemble.kill(leader);
        long afterKill;
        try (Lease lease = lock.acquire()) {
            afterKill = lease.token();
        }
        ensemble.restart(leader);
        long afterRestart;
        try (Lease lease = lock.acquire()) {
            afterRestart = lease.token();
        }
        assertThat(afterKill).isGreaterThan(beforeKill);
        assertThat(afterRestart).isGreaterThan(afterKill);
        // A new leader starts a new epoch, the high 32 bits of the zxid.
        assertThat(afterKill >>> 32).isGreaterThan(beforeKill >>> 32);
    }

    @Test
    void killingTheConnectedServerDuringContendedAcquiresKeepsExclusionAndLeavesNoOrphans() throws Exception {
        // Lock clients on Curator clients of their own, so the server one of them uses can be killed.
        CuratorFramework curatorA = closeLater(ensemble.curator(Duration.ofSeconds(10)));
        LockClient a = newClient(curatorA, "a", UnaryOperator.identity());
        LockClient b = newClient(closeLater(ensemble.curator(Duration.ofSeconds(10))), "b", UnaryOperator.identity());
        FencedLock lock = a.lock("under-fire");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (LockClient client : List.of(a, b)) {
            for (int t = 0; t < 2; t++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    FencedLock l = client.lock("under-fire");
                    while (!stop.get()) {
                        try (Lease lease = l.acquire()) {
                            if (lease.isValid()) {
                                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                tokens.add(lease.token());
                                grants.incrementAndGet();
                                inside.decrementAndGet();
                            }
                        }
                    }
                }));
            }
        }
        eventually().until(() -> grants.get() >= 50);
        InstanceSpec victim = ensemble.cluster()
                .findConnectionInstance(curatorA.getZookeeperClient().getZooKeeper());
        ensemble.kill(victim);
        int atKill = grants.get();
        eventually().until(() -> grants.get() >= atKill + 50);
        ensemble.restart(victim);
        int atRestart = grants.get();
        eventually().until(() -> grants.get() >= atRestart + 50);
        stop.set(true);
        for (CompletableFuture<Void> w : workers) {
            w.get(Ensemble.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(maxInside.get()).isEqualTo(1);
        synchronized (tokens) {
            assertThat(tokens).isSorted().doesNotHaveDuplicates();
        }
        eventually().until(() -> queueOf(lock).isEmpty());
    }
}
