package io.zkfence.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * A diagnostic cycle that splits the lock service's uncontended cost from its HTTP layer: it
 * sends exactly the ZooKeeper requests one uncontended acquire + release of the service sends
 * (server/…/LockQueue.enqueue and remove), the way the service sends them (ZooKeeper's
 * asynchronous API, the caller waiting on futures), with data of the service's sizes, and
 * nothing else: no HTTP, no JSON, no lock logic.
 *
 * <ul>
 *   <li>Acquire: one multi — for a waiting acquire a {@code check} of the replica's marker; with
 *       a requestId a {@code create} and a {@code delete} of the request's finished record in
 *       each of three buckets; {@code create r-<request>}, {@code create} the persistent
 *       sequential entry, {@code setData r-<request>} — and the lock's child list pipelined
 *       behind it on the same session.
 *   <li>Release: one multi — delete the entry, delete {@code r-<request>}, and with a requestId
 *       create the finished record.
 * </ul>
 *
 * Three requests per cycle in every variant, two of them writes (the multis).
 */
final class ServiceWireCycle implements io.zkfence.bench.Op {

    /** About the size of the service's entry data (owner, request id, TTL, times, as JSON). */
    private static final byte[] DATA = new byte[110];
    /** About the size of a finished record ({"outcome":"RELEASED","at":…}). */
    private static final byte[] RECORD =
            "{\"outcome\":\"RELEASED\",\"at\":1795588485156}".getBytes(StandardCharsets.UTF_8);
    /** The service's default request retention: the finished records' bucket length. */
    private static final long BUCKET_MILLIS = 600_000;

    static {
        Arrays.fill(DATA, (byte) 'x');
    }

    private final String name;
    private final CuratorFramework curator;
    private final String lock;
    private final String done;
    private final String marker;
    private final boolean requestId;

    /**
     * @param name      the variant's name in the report
     * @param requestId whether the acquire carries a requestId (finished-record check and record)
     * @param waiting   whether the acquire may wait (the replica-marker check)
     */
    ServiceWireCycle(String name, CuratorFramework curator, String root, boolean requestId, boolean waiting) {
        this.name = name;
        this.curator = curator;
        this.lock = root + "/bench/uncontended";
        this.done = root + "/_done";
        this.marker = waiting ? root + "/_replicas/bench-" + name : null;
        this.requestId = requestId;
        try {
            mkdirs(lock);
            if (marker != null) {
                mkdirs(root + "/_replicas");
                curator.create().withMode(CreateMode.EPHEMERAL).forPath(marker);
            }
            if (requestId) {
                // The buckets an acquire checks now and for the next bucket length, each with its
                // shards, as the service prepares them ahead of use.
                mkdirs(done);
                long current = bucket(System.currentTimeMillis());
                for (long b = current - 1; b <= current + 2; b++) {
                    List<Op> shards = new ArrayList<>(257);
                    shards.add(Op.create(
                            done + "/b" + b, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                    for (int s = 0; s < 256; s++) {
                        shards.add(Op.create(
                                done + "/b" + b + "/" + String.format("%02x", s),
                                new byte[0],
                                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                                CreateMode.PERSISTENT));
                    }
                    try {
                        curator.getZookeeperClient().getZooKeeper().multi(shards);
                    } catch (KeeperException.NodeExistsException e) {
                        // Made by an earlier variant.
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot prepare " + root + " for the service-wire cycle", e);
        }
    }

    private void mkdirs(String path) throws Exception {
        try {
            curator.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // Already there from an earlier variant.
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void run() {
        ZooKeeper zk;
        try {
            zk = curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle for the service-wire cycle", e);
        }
        byte[] random = new byte[14];
        ThreadLocalRandom.current().nextBytes(random);
        String hex = HexFormat.of().formatHex(random);
        String request = (requestId ? "q" : "n") + hex.substring(0, 16);
        String id = hex.substring(16);
        String requestNode = lock + "/r-" + request;
        String record = requestId
                ? done + "/b" + bucket(System.currentTimeMillis()) + "/" + request.substring(1, 3)
                        + "/0123456789abcdef-" + request
                : null;

        List<Op> acquire = new ArrayList<>();
        if (marker != null) {
            acquire.add(Op.check(marker, -1));
        }
        if (requestId) {
            long current = bucket(System.currentTimeMillis());
            for (long b = current - 1; b <= current + 1; b++) {
                String p = done + "/b" + b + "/" + request.substring(1, 3) + "/0123456789abcdef-" + request;
                acquire.add(Op.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                acquire.add(Op.delete(p, -1));
            }
        }
        int createAt = acquire.size() + 1;
        acquire.add(Op.create(requestNode, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        acquire.add(Op.create(
                lock + "/e-" + id + "-" + request + "-",
                DATA,
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT_SEQUENTIAL));
        acquire.add(Op.setData(requestNode, new byte[0], -1));
        CompletableFuture<List<OpResult>> multi = multi(zk, acquire);
        CompletableFuture<List<String>> children = new CompletableFuture<>();
        zk.getChildren(
                lock,
                false,
                (AsyncCallback.ChildrenCallback) (rc, path, ctx, kids) -> {
                    if (rc == 0) {
                        children.complete(kids);
                    } else {
                        children.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
                    }
                },
                null);
        String entry = ((OpResult.CreateResult) join(multi).get(createAt)).getPath();
        join(children);

        List<Op> release = new ArrayList<>(3);
        release.add(Op.delete(entry, -1));
        release.add(Op.delete(requestNode, -1));
        if (requestId) {
            release.add(Op.create(record, RECORD, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        }
        join(multi(zk, release));
    }

    private static CompletableFuture<List<OpResult>> multi(ZooKeeper zk, List<Op> ops) {
        CompletableFuture<List<OpResult>> f = new CompletableFuture<>();
        zk.multi(
                ops,
                (rc, path, ctx, results) -> {
                    if (rc == 0) {
                        f.complete(results);
                    } else {
                        f.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
                    }
                },
                null);
        return f;
    }

    private <T> T join(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("service-wire cycle (" + name + ") failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in the service-wire cycle", e);
        }
    }

    private static long bucket(long millis) {
        return Math.floorDiv(millis, BUCKET_MILLIS);
    }
}
