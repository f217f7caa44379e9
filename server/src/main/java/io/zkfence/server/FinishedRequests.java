package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.lock.internal.ZkGateway;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record that a request with a requestId has finished, so that a late copy of it (a
 * duplicate held back by the network, or a replica that was paused with the request in its
 * buffer) is answered 409 {@code REQUEST_FINISHED} instead of being granted a lease nobody holds.
 *
 * <p>A record is a znode {@code <root>/_done/b<bucket>/<shard>/<lock digest>-<request>} created in
 * the same multi that ends the request (the release, the expiry, the forced release, or the
 * wait that ran out), so a request never ends without its record. Every acquire with a requestId
 * checks, in the multi that queues it, that no record exists: a create and a delete of the record's
 * path in each bucket that may hold it, which fails the whole multi with {@code NODEEXISTS} if one
 * does. No extra request is sent for either.
 *
 * <p>Records are kept for at least the retention ({@code --request-retention-ms}, less the clock
 * skew between replicas): buckets are {@code retention} long by the writing replica's clock, an
 * acquire checks the current bucket and its two neighbours, and a bucket is swept (its records
 * deleted, in multis of {@value #SWEEP_BATCH}) three buckets later. Shards (256 per bucket, by the
 * request's digest) keep every child list far below ZooKeeper's packet limit.
 */
final class FinishedRequests {

    /** How a request ended. */
    enum Outcome {
        RELEASED,
        EXPIRED,
        FORCE_RELEASED,
        GAVE_UP
    }

    /** A record read back. */
    record Finished(Outcome outcome, long at) {}

    static final int SHARDS = 256;
    private static final int SWEEP_BATCH = 200;
    private static final Logger log = LoggerFactory.getLogger(FinishedRequests.class);

    private final ZkWire wire;
    private final String done;
    private final long retentionMillis;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    /** The newest bucket known to exist with all its shards (buckets are made ahead of use). */
    private volatile long readyUpTo = Long.MIN_VALUE;

    FinishedRequests(ZkWire wire, ServicePaths paths, long retentionMillis, Clock clock) {
        if (retentionMillis < 1_000) {
            throw new IllegalArgumentException(
                    "the request retention must be at least 1000 ms, was " + retentionMillis);
        }
        this.wire = wire;
        this.done = paths.done();
        this.retentionMillis = retentionMillis;
        this.clock = clock;
    }

    long retentionMillis() {
        return retentionMillis;
    }

    /** The ops that fail a multi with {@code NODEEXISTS} if {@code request} on {@code lockPath} has finished. */
    List<Op> notFinished(String lockPath, String request) {
        String name = name(lockPath, request);
        long current = bucket(clock.millis());
        List<Op> ops = new ArrayList<>(6);
        for (long b = current - 1; b <= current + 1; b++) {
            String path = path(b, request, name);
            ops.add(wire.createOp(path, new byte[0], CreateMode.PERSISTENT));
            ops.add(wire.deleteOp(path, -1));
        }
        return ops;
    }

    /** The op that records that {@code request} on {@code lockPath} finished with {@code outcome}. */
    Op record(String lockPath, String request, Outcome outcome) {
        long now = clock.millis();
        byte[] data;
        try {
            data = json.writeValueAsBytes(Map.of("outcome", outcome.name(), "at", now));
        } catch (IOException e) {
            throw new IllegalStateException("a finished-request record cannot be written as JSON", e);
        }
        return wire.createOp(path(bucket(now), request, name(lockPath, request)), data, CreateMode.PERSISTENT);
    }

    /** How {@code request} on {@code lockPath} finished, if a record of it is kept. */
    Optional<Finished> lookUp(String lockPath, String request) {
        String name = name(lockPath, request);
        long current = bucket(clock.millis());
        for (long b = current - 1; b <= current + 1; b++) {
            String path = path(b, request, name);
            ZkGateway.NodeContent node;
            try {
                node = wire.call("reading a finished request", () -> wire.data(path, null));
            } catch (KeeperException.NoNodeException notThere) {
                continue;
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("reading a finished request", e);
            }
            try {
                JsonNode o = json.readTree(node.data());
                return Optional.of(new Finished(
                        Outcome.valueOf(o.get("outcome").asText()), o.get("at").asLong()));
            } catch (IOException | RuntimeException malformed) {
                throw new LockServiceException(
                        ErrorCode.INTERNAL, "the finished-request record " + path + " is malformed", malformed);
            }
        }
        return Optional.empty();
    }

    /**
     * Makes sure the buckets an acquire now may check exist with their shards (each in one
     * multi: all of it or nothing). Called at start, on a timer, and when a multi found a shard missing.
     */
    void prepare() {
        long current = bucket(clock.millis());
        for (long b = current - 1; b <= current + 2; b++) {
            if (b <= readyUpTo) {
                continue;
            }
            ensureBucket(b);
        }
        readyUpTo = Math.max(readyUpTo, current + 2);
    }

    /** After a multi failed for a missing shard: make the buckets again, whatever this replica believed. */
    void repair() {
        readyUpTo = Long.MIN_VALUE;
        ensureRoot();
        prepare();
    }

    /** Deletes buckets older than three bucket lengths (their records are past the retention). */
    void sweep() {
        long oldest = bucket(clock.millis()) - 3;
        List<String> buckets;
        try {
            buckets = wire.call("listing " + done, () -> wire.children(done)).names();
        } catch (KeeperException.NoNodeException none) {
            return;
        } catch (KeeperException e) {
            log.warn("sweeping finished requests: listing {} failed: {}", done, e.code());
            return;
        }
        for (String bucket : buckets) {
            long b;
            try {
                b = Long.parseLong(bucket.substring(1));
            } catch (RuntimeException notABucket) {
                continue;
            }
            if (b <= oldest) {
                sweepBucket(done + "/" + bucket);
            }
        }
    }

    private void sweepBucket(String bucket) {
        List<String> shards;
        try {
            shards = wire.call("listing " + bucket, () -> wire.children(bucket)).names();
        } catch (KeeperException.NoNodeException sweptByAnother) {
            return;
        } catch (KeeperException e) {
            log.warn("sweeping {} failed: {}", bucket, e.code());
            return;
        }
        for (String shard : shards) {
            String shardPath = bucket + "/" + shard;
            try {
                List<String> records = wire.call("listing " + shardPath, () -> wire.children(shardPath))
                        .names();
                for (int i = 0; i < records.size(); i += SWEEP_BATCH) {
                    List<Op> deletes = new ArrayList<>();
                    for (String r : records.subList(i, Math.min(records.size(), i + SWEEP_BATCH))) {
                        deletes.add(wire.deleteOp(shardPath + "/" + r, -1));
                    }
                    wire.call("sweeping " + shardPath, () -> wire.multi(deletes));
                }
                wire.call("sweeping " + shardPath, () -> wire.delete(shardPath, -1));
            } catch (KeeperException.NoNodeException sweptByAnother) {
                // Another replica swept the same records first.
            } catch (KeeperException.NotEmptyException late) {
                // A record written late into an old bucket (clock skew): the next sweep takes it.
            } catch (KeeperException e) {
                log.warn("sweeping {} failed: {}", shardPath, e.code());
            }
        }
        try {
            wire.call("sweeping " + bucket, () -> wire.delete(bucket, -1));
        } catch (KeeperException.NoNodeException | KeeperException.NotEmptyException leftForLater) {
            // Swept by another replica, or a shard is left for the next sweep.
        } catch (KeeperException e) {
            log.warn("sweeping {} failed: {}", bucket, e.code());
        }
    }

    private void ensureRoot() {
        try {
            wire.call("creating " + done, () -> wire.create(done, new byte[0], CreateMode.PERSISTENT));
        } catch (KeeperException.NodeExistsException exists) {
            // made before
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("creating " + done, e);
        }
    }

    private void ensureBucket(long b) {
        String bucket = done + "/b" + b;
        List<Op> ops = new ArrayList<>(SHARDS + 1);
        ops.add(wire.createOp(bucket, new byte[0], CreateMode.PERSISTENT));
        for (int s = 0; s < SHARDS; s++) {
            ops.add(wire.createOp(bucket + "/" + shard(s), new byte[0], CreateMode.PERSISTENT));
        }
        try {
            wire.call("creating " + bucket, () -> wire.multi(ops));
        } catch (KeeperException.NodeExistsException madeByAnother) {
            // Another replica made this bucket (with its shards, in one multi).
        } catch (KeeperException.NoNodeException noRoot) {
            ensureRoot();
            try {
                wire.call("creating " + bucket, () -> wire.multi(ops));
            } catch (KeeperException.NodeExistsException madeByAnother) {
                // as above
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("creating " + bucket, e);
            }
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("creating " + bucket, e);
        }
    }

    private long bucket(long millis) {
        return Math.floorDiv(millis, retentionMillis);
    }

    private String path(long bucket, String request, String name) {
        // The request part is a digest or random: its first two hex digits spread the records.
        return done + "/b" + bucket + "/" + request.substring(1, 3) + "/" + name;
    }

    private static String shard(int s) {
        return String.format("%02x", s);
    }

    private static String name(String lockPath, String request) {
        return ServicePaths.digest(lockPath) + "-" + request;
    }
}
