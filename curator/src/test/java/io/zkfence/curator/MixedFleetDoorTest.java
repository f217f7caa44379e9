package io.zkfence.curator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;

/**
 * A fleet half on Curator's InterProcessMutex and half on the door, on one path, as during a
 * rolling migration: several clients per side, blocking and timed acquires, and holders whose
 * client dies mid-hold. The critical sections never overlap.
 */
class MixedFleetDoorTest extends DoorTestBase {

    private static final int CLIENTS_PER_SIDE = 3;
    private static final int ROUNDS = 20;

    @Test
    void curatorMutexesAndDoorsOnOnePathNeverOverlap() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger sections = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int i = 0; i < CLIENTS_PER_SIDE; i++) {
            CuratorFramework curatorSide = curator();
            CuratorFramework doorSide = curator();
            boolean timed = i % 2 == 0;
            workers.add(CompletableFuture.runAsync(
                    () -> work(new InterProcessMutex(curatorSide, path), timed, inside, overlaps, sections)));
            workers.add(CompletableFuture.runAsync(
                    () -> work(new ZkfenceInterProcessMutex(doorSide, path), timed, inside, overlaps, sections)));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        assertThat(sections.get()).isEqualTo(2 * CLIENTS_PER_SIDE * ROUNDS);
        assertThat(overlaps.get()).isZero();
    }

    @Test
    void aHolderWhoseClientDiesMidHoldHandsOnWithoutOverlap() throws Exception {
        CuratorFramework dying = curator();
        InterProcessMutex curatorHolder = new InterProcessMutex(dying, path);
        curatorHolder.acquire();
        ZkfenceInterProcessMutex door = new ZkfenceInterProcessMutex(curator(), path);
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return door.acquire(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiting).isNotDone();
        dying.close(); // the Curator holder's session ends: its node goes
        assertThat(waiting.get(60, TimeUnit.SECONDS)).isTrue();
        assertThat(door.isAcquiredInThisProcess()).isTrue(); // held by the pool thread until its client closes

        // And the other way round: a door holder dies, a Curator waiter gets the lock.
        CuratorFramework dyingDoorClient = curator();
        ZkfenceInterProcessMutex doorHolder = new ZkfenceInterProcessMutex(dyingDoorClient, path + "-2");
        doorHolder.acquire();
        InterProcessMutex curatorWaiter = new InterProcessMutex(curator(), path + "-2");
        CompletableFuture<Boolean> curatorWaiting = CompletableFuture.supplyAsync(() -> {
            try {
                return curatorWaiter.acquire(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(curatorWaiting).isNotDone();
        dyingDoorClient.close();
        assertThat(curatorWaiting.get(60, TimeUnit.SECONDS)).isTrue();
    }

    private static void work(
            InterProcessLock lock,
            boolean timed,
            AtomicInteger inside,
            AtomicInteger overlaps,
            AtomicInteger sections) {
        try {
            for (int r = 0; r < ROUNDS; r++) {
                if (timed) {
                    while (!lock.acquire(50, TimeUnit.MILLISECONDS)) {
                        Thread.onSpinWait();
                    }
                } else {
                    lock.acquire();
                }
                try {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    Thread.yield();
                    inside.decrementAndGet();
                    sections.incrementAndGet();
                } finally {
                    lock.release();
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
