package io.zkfence.server;

import io.zkfence.lock.ForcedRelease;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's lock service, everything but HTTP: the leases, kept entirely in ZooKeeper so
 * that any replica can serve any call and a replica may die at any time. It wires the parts
 * together and runs their background work; each call goes to the part that owns it
 * ({@link Acquirer}, {@link LeaseOps}, {@link LockReads}).
 */
final class LeaseService implements AutoCloseable {

    /** The settings of the protocol. */
    record Settings(String root, int auditRetention, long requestRetentionMillis, int maxWaiters) {

        static final long DEFAULT_REQUEST_RETENTION_MILLIS = 600_000;
        static final int DEFAULT_MAX_WAITERS = 1_000;

        static Settings defaults(String root) {
            return new Settings(
                    root, AuditTrail.DEFAULT_RETENTION, DEFAULT_REQUEST_RETENTION_MILLIS, DEFAULT_MAX_WAITERS);
        }
    }

    private static final Logger log = LoggerFactory.getLogger(LeaseService.class);

    private final ZkWire wire;
    private final CuratorFramework curator;
    private final ServicePaths paths;
    private final ReplicaRegistry replicas;
    private final FinishedRequests finished;
    private final AuditTrail audit;
    private final LockQueue queue;
    private final LeaseConfirmer confirmer;
    private final Leftovers leftovers;
    private final ServiceMetrics metrics = new ServiceMetrics();
    private final Clock clock;
    private final Settings settings;
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("zkfence-housekeeping").daemon().factory());
    private Acquirer acquirer;
    private LeaseOps ops;
    private LockReads reads;

    LeaseService(CuratorFramework curator, List<ACL> acl, Clock clock, Settings settings) {
        if (settings.maxWaiters() < 1) {
            throw new IllegalArgumentException("--max-waiters must be at least 1, was " + settings.maxWaiters());
        }
        this.curator = curator;
        this.wire = new ZkWire(curator, acl);
        this.paths = new ServicePaths(settings.root());
        this.clock = clock;
        this.settings = settings;
        this.replicas = new ReplicaRegistry(wire, curator, paths.base());
        this.finished = new FinishedRequests(wire, paths, settings.requestRetentionMillis(), clock);
        this.audit = new AuditTrail(wire, paths, settings.auditRetention());
        this.queue = new LockQueue(wire, curator, paths);
        this.confirmer = new LeaseConfirmer(queue);
        this.leftovers = new Leftovers(queue);
    }

    /**
     * Prepares the service's znodes, registers this replica and starts the background work
     * (making finished-request buckets ahead of use, sweeping old ones).
     *
     * @throws LockServiceException 503 if ZooKeeper cannot be reached
     */
    LeaseService start() {
        ensureRoot();
        LockTokens tokens = new LockTokens(serviceKey());
        replicas.start();
        finished.prepare();
        audit.prepare();
        acquirer = new Acquirer(new AcquireContext(
                queue,
                wire,
                replicas,
                finished,
                tokens,
                confirmer,
                leftovers,
                metrics,
                paths,
                clock,
                settings.maxWaiters(),
                new OpenWaits()));
        ops = new LeaseOps(queue, replicas, finished, tokens, confirmer, audit, metrics, paths, clock);
        reads = new LockReads(queue, wire, replicas, ops, audit, paths, clock);
        long retention = settings.requestRetentionMillis();
        housekeeping.scheduleWithFixedDelay(
                () -> background("preparing finished-request buckets", finished::prepare),
                retention / 4,
                retention / 4,
                TimeUnit.MILLISECONDS);
        // Jittered, so that replicas started together do not all sweep at once.
        housekeeping.scheduleWithFixedDelay(
                () -> background("sweeping finished requests", finished::sweep),
                retention / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, retention / 2)),
                retention / 2,
                TimeUnit.MILLISECONDS);
        return this;
    }

    ServiceMetrics metrics() {
        return metrics;
    }

    Acquirer acquirer() {
        return acquirer;
    }

    LeaseOps ops() {
        return ops;
    }

    LockReads reads() {
        return reads;
    }

    /** Leases granted here from the queue whose confirmation is still pending. */
    int unconfirmedLeases() {
        return confirmer.pending();
    }

    /** This replica's ZooKeeper requests (tests inject faults through it). */
    ZkWire wire() {
        return wire;
    }

    /** The newest entries of the audit trail, newest first. */
    List<ForcedRelease> auditTrail(int limit) {
        return reads.auditTrail(limit);
    }

    /** Waiting acquires answer 503 SHUTTING_DOWN and remove their entries; new ones are refused. */
    void shutdown() {
        if (acquirer != null) {
            acquirer.shutdown();
        }
    }

    /**
     * Stops the background work and confirms every lease granted here and not yet confirmed, so
     * that closing this replica's session afterwards ends none of them.
     */
    @Override
    public void close() {
        shutdown();
        housekeeping.shutdownNow();
        confirmer.close();
        leftovers.close();
        replicas.close();
    }

    private void background(String what, Runnable work) {
        Thread.ofVirtual().name("zkfence-housekeeping-run").start(() -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                log.warn("{} failed: {}", what, e.toString());
            }
        });
    }

    private void ensureRoot() {
        if (paths.base().isEmpty()) {
            return; // the root of the ensemble itself
        }
        try {
            curator.create().creatingParentsIfNeeded().withACL(wire.acl()).forPath(paths.root());
        } catch (KeeperException.NodeExistsException exists) {
            // made before
        } catch (Exception e) {
            throw new LockServiceException(ErrorCode.UNAVAILABLE, "creating " + paths.root() + " failed: " + e, e);
        }
    }

    /** The key lockTokens are signed with: read, or made by the first replica. */
    private byte[] serviceKey() {
        String path = paths.key();
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return wire.call("reading the service key", () -> wire.data(path, null))
                        .data();
            } catch (KeeperException.NoNodeException none) {
                byte[] key = new byte[32];
                new SecureRandom().nextBytes(key);
                try {
                    wire.call("creating the service key", () -> wire.create(path, key, CreateMode.PERSISTENT));
                    return key;
                } catch (KeeperException.NodeExistsException another) {
                    // another replica made it first: read theirs
                } catch (KeeperException e) {
                    throw new LockServiceException(
                            ErrorCode.UNAVAILABLE, "creating the service key failed: " + e.code(), e);
                }
            } catch (KeeperException e) {
                throw new LockServiceException(ErrorCode.UNAVAILABLE, "reading the service key failed: " + e.code(), e);
            }
        }
        throw new LockServiceException(ErrorCode.UNAVAILABLE, "the service key could not be read");
    }
}
