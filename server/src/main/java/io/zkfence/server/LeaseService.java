package io.zkfence.server;

import io.zkfence.lock.ForcedRelease;
import io.zkfence.lock.internal.CuratorZkGateway;
import io.zkfence.lock.internal.ZkGateway;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
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
    record Settings(String root, int auditRetention, long requestRetentionMillis, int maxWaiters, long lagBoundMillis) {

        static final long DEFAULT_REQUEST_RETENTION_MILLIS = 600_000;
        static final int DEFAULT_MAX_WAITERS = 1_000;
        /** ZooKeeper's sample configuration: {@code syncLimit} 5 × {@code tickTime} 2000 ms. */
        static final long DEFAULT_LAG_BOUND_MILLIS = 10_000;

        Settings(String root, int auditRetention, long requestRetentionMillis, int maxWaiters) {
            this(root, auditRetention, requestRetentionMillis, maxWaiters, DEFAULT_LAG_BOUND_MILLIS);
        }

        static Settings defaults(String root) {
            return new Settings(
                    root, AuditTrail.DEFAULT_RETENTION, DEFAULT_REQUEST_RETENTION_MILLIS, DEFAULT_MAX_WAITERS);
        }
    }

    private static final Logger log = LoggerFactory.getLogger(LeaseService.class);

    private final ZkWire wire;
    private final Scheduler scheduler;
    /** True if this service made its scheduler (and so closes it). */
    private final boolean ownsScheduler;

    private final RandomGenerator random;
    private final ServicePaths paths;
    private final ReplicaRegistry replicas;
    private final FinishedRequests finished;
    private final AuditTrail audit;
    private final LockQueue queue;
    private final LeaseConfirmer confirmer;
    private final EntryRemovals removals;
    private final Leftovers leftovers;
    private final ServiceMetrics metrics = new ServiceMetrics();
    private final Clock clock;
    private final Settings settings;
    /** What cancels the next run of each housekeeping task, by task. */
    private final Map<String, Runnable> housekeeping = new HashMap<>();

    private volatile boolean closed;
    private Acquirer acquirer;
    private LeaseOps ops;
    private BatchRenewal batch;
    private LockReads reads;

    /**
     * A replica on a Curator client, its znodes created with {@code acl}: real threads and time,
     * entry names from a {@link SecureRandom}.
     */
    LeaseService(CuratorFramework curator, List<ACL> acl, Clock clock, Settings settings) {
        this(new CuratorZkGateway(curator, acl), clock, settings, Scheduler.real(), true, new SecureRandom());
    }

    /**
     * A replica on any {@link ZkGateway}, waiting and running its background work on
     * {@code scheduler} (which the caller closes): how the service simulation runs it.
     */
    LeaseService(ZkGateway link, Clock clock, Settings settings, Scheduler scheduler, RandomGenerator random) {
        this(link, clock, settings, scheduler, false, random);
    }

    private LeaseService(
            ZkGateway link,
            Clock clock,
            Settings settings,
            Scheduler scheduler,
            boolean ownsScheduler,
            RandomGenerator random) {
        if (settings.maxWaiters() < 1) {
            throw new IllegalArgumentException("--max-waiters must be at least 1, was " + settings.maxWaiters());
        }
        this.wire = new ZkWire(link, scheduler);
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        this.random = random;
        this.paths = new ServicePaths(settings.root());
        this.clock = clock;
        this.settings = settings;
        this.replicas = new ReplicaRegistry(wire, paths.base());
        this.finished = new FinishedRequests(wire, paths, settings.requestRetentionMillis(), clock);
        this.audit = new AuditTrail(wire, paths, settings.auditRetention());
        this.queue = new LockQueue(wire, paths);
        this.confirmer = new LeaseConfirmer(queue, clock, scheduler);
        this.removals = new EntryRemovals(queue, wire, finished, metrics);
        this.leftovers = new Leftovers(removals, scheduler);
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
                removals,
                metrics,
                paths,
                clock,
                settings.maxWaiters(),
                settings.lagBoundMillis(),
                new OpenWaits(),
                scheduler,
                new ContendedLocks(),
                random));
        ops = new LeaseOps(queue, replicas, finished, tokens, confirmer, removals, audit, metrics, paths, clock);
        batch = new BatchRenewal(ops, queue, paths, clock);
        reads = new LockReads(queue, wire, replicas, removals, audit, paths, clock);
        long retention = settings.requestRetentionMillis();
        every("preparing finished-request buckets", finished::prepare, retention / 4, retention / 4);
        // Jittered, so that replicas started together do not all sweep at once.
        every(
                "sweeping finished requests",
                finished::sweep,
                retention / 2 + random.nextLong(Math.max(1, retention / 2)),
                retention / 2);
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

    BatchRenewal batchRenewal() {
        return batch;
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
        closed = true;
        synchronized (housekeeping) {
            housekeeping.values().forEach(Runnable::run);
            housekeeping.clear();
        }
        confirmer.close();
        leftovers.close();
        replicas.close();
        if (ownsScheduler) {
            scheduler.close();
        }
    }

    /** Runs {@code work} after {@code firstDelay} and then {@code delay} after each run ends, until closed. */
    private void every(String what, Runnable work, long firstDelay, long delay) {
        Runnable run = new Runnable() {
            @Override
            public void run() {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    log.warn("{} failed: {}", what, e.toString());
                }
                synchronized (housekeeping) {
                    if (!closed) {
                        housekeeping.put(what, scheduler.schedule("zkfence-housekeeping", this, delay));
                    }
                }
            }
        };
        synchronized (housekeeping) {
            housekeeping.put(what, scheduler.schedule("zkfence-housekeeping", run, firstDelay));
        }
    }

    private void ensureRoot() {
        if (paths.base().isEmpty()) {
            return; // the root of the ensemble itself
        }
        wire.createPath(paths.root(), CreateMode.PERSISTENT);
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
                random.nextBytes(key);
                try {
                    wire.call("creating the service key", () -> wire.create(path, key, CreateMode.PERSISTENT));
                    return key;
                } catch (KeeperException.NodeExistsException another) {
                    // another replica made it first: read theirs
                } catch (KeeperException e) {
                    throw Unavailable.zooKeeperAnswered("creating the service key", e);
                }
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("reading the service key", e);
            }
        }
        throw Unavailable.because("the service key could not be read", null);
    }
}
