package io.zkfence.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * The ensemble's own ceiling, without the service: as many ZooKeeper operations as a few sessions
 * get through when each keeps many requests outstanding (asynchronous API), for a fixed time. Two
 * shapes: a {@code setData} alone (one quorum write), and what a lease renewal sends, a
 * {@code getData} of the entry and a versioned {@code setData} of it. Each session writes its own
 * znodes of an entry's size, so no write waits for another's version.
 */
final class ZkCeiling {

    /** Operations per second of each shape. */
    record Result(double writesPerSecond, double renewalsPerSecond, int sessions, int outstanding) {}

    static final int SESSIONS = 4;
    static final int OUTSTANDING = 64;
    private static final int NODES_PER_SESSION = 256;
    private static final byte[] DATA = new byte[200]; // about a lease entry's JSON

    private ZkCeiling() {}

    static Result measure(List<CuratorFramework> sessions, Duration each) {
        List<ZooKeeper> zks = new ArrayList<>();
        for (int s = 0; s < sessions.size(); s++) {
            try {
                ZooKeeper zk = sessions.get(s).getZookeeperClient().getZooKeeper();
                String parent = "/bench/ceiling/s" + s;
                sessions.get(s).create().creatingParentsIfNeeded().forPath(parent);
                for (int n = 0; n < NODES_PER_SESSION; n++) {
                    zk.create(parent + "/n" + n, DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }
                zks.add(zk);
            } catch (Exception e) { // Curator's and ZooKeeper's checked exceptions, at set-up
                throw new IllegalStateException("cannot set up the ceiling's znodes: " + e, e);
            }
        }
        double writes = run(zks, each, false);
        double renewals = run(zks, each, true);
        return new Result(writes, renewals, zks.size(), OUTSTANDING);
    }

    /** Operations (renewals when {@code readFirst}) completed per second over {@code each}. */
    private static double run(List<ZooKeeper> zks, Duration each, boolean readFirst) {
        AtomicLong done = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long end = System.nanoTime() + each.toNanos();
        CountDownLatch finished = new CountDownLatch(zks.size());
        long t0 = System.nanoTime();
        for (int s = 0; s < zks.size(); s++) {
            ZooKeeper zk = zks.get(s);
            String parent = "/bench/ceiling/s" + s;
            Thread.ofPlatform().daemon().name("zk-ceiling-" + s).start(() -> {
                Semaphore slots = new Semaphore(OUTSTANDING);
                int n = 0;
                try {
                    while (System.nanoTime() < end) {
                        slots.acquire();
                        String path = parent + "/n" + (n++ % NODES_PER_SESSION);
                        if (readFirst) {
                            zk.getData(
                                    path,
                                    false,
                                    (rc, p, ctx, data, stat) -> {
                                        if (rc != KeeperException.Code.OK.intValue()) {
                                            failed.incrementAndGet();
                                            slots.release();
                                            return;
                                        }
                                        zk.setData(
                                                p,
                                                DATA,
                                                stat.getVersion(),
                                                (rc2, p2, ctx2, stat2) -> {
                                                    count(rc2, done, failed);
                                                    slots.release();
                                                },
                                                null);
                                    },
                                    null);
                        } else {
                            zk.setData(
                                    path,
                                    DATA,
                                    -1,
                                    (rc, p, ctx, stat) -> {
                                        count(rc, done, failed);
                                        slots.release();
                                    },
                                    null);
                        }
                    }
                    slots.acquire(OUTSTANDING); // the last ones answered
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    finished.countDown();
                }
            });
        }
        try {
            if (!finished.await(each.toSeconds() + 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the ceiling's sessions did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " operations of the ceiling failed");
        }
        return done.get() / ((System.nanoTime() - t0) / 1e9);
    }

    private static void count(int rc, AtomicLong done, AtomicLong failed) {
        if (rc == KeeperException.Code.OK.intValue()) {
            done.incrementAndGet();
        } else {
            failed.incrementAndGet();
        }
    }
}
