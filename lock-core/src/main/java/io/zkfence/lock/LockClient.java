package io.zkfence.lock;

import io.zkfence.lock.internal.CuratorZkGateway;
import io.zkfence.lock.internal.ZkGateway;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.PathUtils;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of lock-core: hands out {@link FencedLock}s over one ZooKeeper session.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect("zk1:2181,zk2:2181,zk3:2181")) {
 *     try (Lease lease = client.lock("inventory:sku:123").acquire(Duration.ofSeconds(5))) {
 *         write(lease.token());
 *     }
 * }
 * }</pre>
 *
 * <p>Every lease of a client lives on the client's ZooKeeper session: when it expires, they are
 * all lost. Thread-safe; one client per process and ensemble is the usual shape. Closing the
 * client releases its leases and wakes its waiters with a {@link LockClientClosedException}.
 */
public final class LockClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockClient.class);

    /** Null for a client made on a runtime alone ({@link #LockClient(LockRuntime)}). */
    private final CuratorFramework curator;

    private final boolean ownsCurator;
    private final LockRuntime rt;
    private final SessionMonitor monitor;
    private final QueueInspector inspector;
    private final AtomicBoolean closed = new AtomicBoolean();

    LockClient(
            CuratorFramework curator,
            LockClientConfig config,
            boolean ownsCurator,
            UnaryOperator<ZkGateway> decorate,
            Clock clock) {
        Objects.requireNonNull(curator, "curator");
        Objects.requireNonNull(config, "config");
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework must be started before creating a LockClient (state "
                    + curator.getState() + ")");
        }
        this.curator = curator;
        this.ownsCurator = ownsCurator;
        ZkGateway zk = decorate.apply(new CuratorZkGateway(curator, config.acl()));
        this.rt = new LockRuntime(zk, config, clock);
        this.monitor = new SessionMonitor(rt);
        this.inspector = new QueueInspector(zk);
        curator.getConnectionStateListenable().addListener(monitor);
    }

    /**
     * For tests in this package: a client on {@code rt} alone, with no Curator client. It hears no
     * connection events (a test hands them to a {@link SessionMonitor} itself) and has no
     * {@link #admin()}; everything else runs as in a client made on a Curator client.
     */
    LockClient(LockRuntime rt) {
        this.curator = null;
        this.ownsCurator = false;
        this.rt = rt;
        this.monitor = new SessionMonitor(rt);
        this.inspector = new QueueInspector(rt.zk);
    }

    /** A client on a started {@code CuratorFramework} you own (you close it after this client). Default settings. */
    public static LockClient create(CuratorFramework curator) {
        return create(curator, LockClientConfig.defaults());
    }

    /**
     * A client on a started {@code CuratorFramework} you own: its connect string, session timeout
     * (the lease TTL), namespace, authentication and TLS apply, and its retry policy when the
     * lock's znodes are created. (Queue operations do not use the retry policy: a waiter keeps
     * trying through connection loss with its own back-off, 20 ms doubling to 1 s, until its
     * acquire times out.) Close this client before the Curator client: a closed Curator client
     * makes every call here fail with a {@link LockClientClosedException}.
     */
    public static LockClient create(CuratorFramework curator, LockClientConfig config) {
        return new LockClient(curator, config, false, UnaryOperator.identity(), Clock.systemUTC());
    }

    /** Connects to {@code connectString} with default settings; the client owns the connection. */
    public static LockClient connect(String connectString) {
        return connect(connectString, LockClientConfig.defaults());
    }

    /**
     * Connects to {@code connectString} (e.g. {@code "zk1:2181,zk2:2181,zk3:2181"}) with the
     * config's session and connection timeouts, and waits for the first connection. The client
     * owns the connection and closes it on {@link #close()}.
     *
     * @throws CoordinationException if no connection is made within {@code connectionTimeout}
     */
    public static LockClient connect(String connectString, LockClientConfig config) {
        Objects.requireNonNull(connectString, "connectString");
        Objects.requireNonNull(config, "config");
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) config.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) config.connectionTimeout().toMillis())
                .retryPolicy(defaultRetryPolicy())
                .build();
        curator.start();
        try {
            if (!curator.blockUntilConnected((int) config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                curator.close();
                throw new CoordinationException(
                        null,
                        "could not connect to ZooKeeper at " + connectString + " within "
                                + config.connectionTimeout().toMillis() + " ms",
                        null);
            }
        } catch (InterruptedException e) {
            curator.close();
            Thread.currentThread().interrupt();
            throw new CoordinationException(null, "interrupted while connecting to ZooKeeper at " + connectString, e);
        }
        return new LockClient(curator, config, true, UnaryOperator.identity(), Clock.systemUTC());
    }

    /**
     * The retry policy of the Curator client {@link #connect} builds, for Curator's own operations
     * (creating a lock's znodes): exponential back-off from 100 ms, at most 10 retries, no wait
     * longer than 2 s ({@code ExponentialBackoffRetry(100, 10, 2_000)}). Give it to a
     * {@code CuratorFramework} you build for {@link #create} to retry as {@code connect} does; the
     * Spring Boot starter and the lock service use it too. Queue operations do not use it: a
     * waiter retries with its own back-off.
     *
     * @return a new policy
     */
    public static RetryPolicy defaultRetryPolicy() {
        return new ExponentialBackoffRetry(100, 10, 2_000);
    }

    /**
     * The lock called {@code name}. Any string works as a name ("inventory:sku:123",
     * "db-migration:user-service"); it maps reversibly to one znode under the root path.
     *
     * @throws IllegalArgumentException if the name is empty or blank, has control characters or
     *                                  unpaired surrogates, or is longer than 256 UTF-8 bytes
     */
    public FencedLock lock(String name) {
        return new FencedLock(this, name, LockPaths.lockPath(rt.config.rootPath(), name), null);
    }

    /**
     * A snapshot of the lock's queue: holder (owner id, token, when it asked) and waiters in grant
     * order, and this client's own cohort-mode threads waiting behind its node
     * ({@link LockInfo#localWaiters()}). For diagnostics: it is stale as soon as it returns.
     *
     * @throws CoordinationException if ZooKeeper cannot be read within {@code operationTimeout}
     */
    public LockInfo inspect(String name) {
        String path = LockPaths.lockPath(rt.config.rootPath(), name);
        ensureOpen(name);
        LockInfo info = await(name, inspector.inspect(name, path), "inspecting");
        Cohort cohort = rt.cohorts.get(path);
        return cohort == null ? info : info.withLocalWaiters(cohort.waiting());
    }

    /**
     * The operator's side of this client: list, linearizable inspect, force-release with an audit
     * record. Audit entries go to {@code audit} next to the root ({@code /zkfence/audit} for the
     * default root {@code /zkfence/locks}), at most {@link LockAdmin#DEFAULT_AUDIT_RETENTION} kept.
     */
    public LockAdmin admin() {
        String root = rt.config.rootPath();
        String parent = root.equals("/") ? "" : ZKPaths.getPathAndNode(root).getPath();
        return admin((parent.equals("/") ? "" : parent) + "/audit", LockAdmin.DEFAULT_AUDIT_RETENTION);
    }

    /**
     * {@link #admin()} with the audit log at {@code auditPath}, keeping the newest {@code retention} entries.
     *
     * @throws IllegalArgumentException if the path is not a valid ZooKeeper path, lies under the
     *                                  lock root, or {@code retention} is below 1
     */
    public LockAdmin admin(String auditPath, int retention) {
        Objects.requireNonNull(auditPath, "auditPath");
        PathUtils.validatePath(auditPath);
        String root = rt.config.rootPath();
        if (auditPath.equals(root) || auditPath.startsWith(root.equals("/") ? "/" : root + "/")) {
            throw new IllegalArgumentException("auditPath \"" + auditPath + "\" must not lie under the lock root "
                    + root + " (its entries would read as locks)");
        }
        if (retention < 1) {
            throw new IllegalArgumentException("audit retention must be at least 1, was " + retention);
        }
        if (curator == null) {
            throw new IllegalStateException("this lock client was made without a Curator client: it has no admin");
        }
        return new LockAdmin(this, curator, rt.config, inspector, rt.clock, auditPath, retention);
    }

    /** Throws if this client is closed; for {@link LockAdmin}. */
    void checkOpen(String name) {
        ensureOpen(name);
    }

    /** Counters since this client was created. */
    public LockStats stats() {
        return rt.stats.snapshot();
    }

    /** The settings this client runs with. */
    public LockClientConfig config() {
        return rt.config;
    }

    /**
     * Releases every lease this client holds, wakes its waiters with a
     * {@link LockClientClosedException}, removes their queue nodes, and closes the ZooKeeper
     * connection if the client opened it. Waits up to {@code operationTimeout} for ZooKeeper to
     * confirm the deletes; a node it cannot confirm (ZooKeeper unreachable) stays until its
     * session ends, which with your own {@code CuratorFramework} means until you close it: the
     * log names every such node. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        rt.markClosing();
        rt.cohorts.values().forEach(Cohort::close);
        Map<String, CompletableFuture<Boolean>> cleanUps = new LinkedHashMap<>();
        for (Acquisition a : rt.registry.acquisitions()) {
            cleanUps.put("a waiter's node under " + a.lockPath(), a.cancel());
        }
        for (Grant g : rt.registry.grants()) {
            cleanUps.put(g.nodePath(), g.releaseAll());
        }
        try {
            CompletableFuture.allOf(cleanUps.values().toArray(CompletableFuture[]::new))
                    .get(rt.config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Reported below, node by node.
        }
        List<String> left = cleanUps.entrySet().stream()
                .filter(r -> !Boolean.TRUE.equals(r.getValue().getNow(false)))
                .map(Map.Entry::getKey)
                .toList();
        if (!left.isEmpty()) {
            log.error(
                    "closing the lock client without confirming the deletion of {}: these queue nodes stay until the"
                            + " ZooKeeper session ends{}",
                    left,
                    ownsCurator
                            ? " (now: the client closes it)"
                            : " (the CuratorFramework's session: close it, or they block these locks)");
        }
        if (curator != null) {
            curator.getConnectionStateListenable().removeListener(monitor);
        }
        rt.shutdown();
        if (ownsCurator) {
            curator.close();
        }
    }

    /** The client's shared services; for tests in this package. */
    LockRuntime runtime() {
        return rt;
    }

    // ---- used by FencedLock ----

    Lease acquire(FencedLock lock, Duration timeout) {
        if (lock.isCohort()) {
            ensureOpen(lock.name());
            long timeoutNanos = timeout == null ? -1 : saturatedNanos(timeout);
            while (true) {
                Lease lease = cohortOf(lock).acquire(timeoutNanos, timeout);
                if (lease != null) {
                    return lease;
                }
            }
        }
        Lease again = reenter(lock);
        if (again != null) {
            return again;
        }
        return awaitGrant(lock, false, timeout, () -> new AcquireTimeoutException(lock.name(), timeout));
    }

    /**
     * The thread a grant is registered under: the caller's, so it can re-enter; for a
     * non-re-entrant handle a thread of its own that never runs, so nobody re-enters it.
     */
    private static Thread ownerFor(FencedLock lock) {
        return lock.isReentrant() ? Thread.currentThread() : Thread.ofVirtual().unstarted(() -> {});
    }

    Optional<Lease> tryAcquire(FencedLock lock) {
        if (lock.isCohort()) {
            ensureOpen(lock.name());
            return Optional.ofNullable(cohortOf(lock).tryAcquire());
        }
        Lease again = reenter(lock);
        if (again != null) {
            return Optional.of(again);
        }
        Duration bound = rt.config.operationTimeout();
        return Optional.ofNullable(awaitGrant(
                lock,
                true,
                bound,
                () -> new CoordinationException(
                        lock.name(),
                        "could not reach ZooKeeper within operationTimeout (" + bound.toMillis() + " ms) to try lock '"
                                + lock.name() + "'",
                        null)));
    }

    private Cohort cohortOf(FencedLock lock) {
        return rt.cohorts.computeIfAbsent(lock.path(), p -> new Cohort(this, rt, lock, lock.cohort()));
    }

    /** A try-acquire of a cohort's node, owned by {@code nodeOwner}: the grant, or null. */
    Grant tryNodeForCohort(String name, String path, Thread nodeOwner) {
        Duration bound = rt.config.operationTimeout();
        return awaitGrant(
                name,
                path,
                null,
                true,
                bound,
                nodeOwner,
                () -> new CoordinationException(
                        name,
                        "could not reach ZooKeeper within operationTimeout (" + bound.toMillis() + " ms) to try lock '"
                                + name + "'",
                        null));
    }

    /**
     * Starts an acquisition and waits for it: the lease, or null when a try found the lock taken.
     * On timeout, interrupt or failure the acquisition is abandoned (its node removed); a grant
     * that raced in before a timeout is kept, one that raced in before an interrupt is released.
     */
    private Lease awaitGrant(FencedLock lock, boolean tryOnly, Duration timeout, Supplier<LockException> onTimeout) {
        Grant g = awaitGrant(
                lock.name(), lock.path(), lock.maxHold().orElse(null), tryOnly, timeout, ownerFor(lock), onTimeout);
        return g == null ? null : lease(g);
    }

    private Grant awaitGrant(
            String name,
            String path,
            Duration maxHold,
            boolean tryOnly,
            Duration timeout,
            Thread owner,
            Supplier<LockException> onTimeout) {
        // Before anything is queued: a timeout too long for nanoseconds (ChronoUnit.FOREVER) means no timeout.
        long timeoutNanos = timeout == null ? -1 : saturatedNanos(timeout);
        Acquisition a = new Acquisition(rt, name, path, tryOnly, maxHold, owner);
        rt.registry.add(a);
        if (closed.get()) {
            // close() may have swept the registry before this acquisition was in it.
            rt.registry.remove(a);
            throw closedError(name);
        }
        a.start();
        try {
            return GrantWait.await(rt, name, new AcquisitionRequest(a, tryOnly), timeoutNanos, onTimeout, !tryOnly);
        } finally {
            rt.registry.remove(a);
        }
    }

    /**
     * What a plain acquire waits for: its acquisition's grant. A try that found the lock taken
     * answers once its queue node, if it made one, is gone.
     */
    private record AcquisitionRequest(Acquisition a, boolean tryOnly) implements GrantWait.Request<Grant> {

        @Override
        public CompletableFuture<Grant> granted() {
            return tryOnly
                    ? a.result()
                            .thenCompose(g -> g != null
                                    ? CompletableFuture.completedFuture(g)
                                    : a.cleanedUp().thenApply(confirmed -> null))
                    : a.result();
        }

        @Override
        public CompletableFuture<Void> firstAttempt() {
            return a.firstAttempt();
        }

        @Override
        public Grant giveUp() {
            return a.abandon();
        }

        @Override
        public void release(Grant won) {
            won.releaseAll();
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return -1;
        }
    }

    private Lease reenter(FencedLock lock) {
        ensureOpen(lock.name());
        if (!lock.isReentrant()) {
            return null;
        }
        Grant held = rt.registry.heldBy(lock.path(), Thread.currentThread());
        return held != null && held.holdAgain() ? lease(held) : null;
    }

    private Lease lease(Grant g) {
        return new Lease(g);
    }

    private <T> T await(String name, CompletableFuture<T> f, String what) {
        Duration bound = rt.config.operationTimeout();
        try {
            return f.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new CoordinationException(
                    name,
                    "ZooKeeper did not answer within operationTimeout (" + bound.toMillis() + " ms) " + what + " lock '"
                            + name + "'",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinationException(name, "interrupted " + what + " lock '" + name + "'", e);
        } catch (ExecutionException e) {
            throw GrantWait.failure(name, e);
        }
    }

    private void ensureOpen(String name) {
        if (closed.get()) {
            throw closedError(name);
        }
    }

    private static LockClientClosedException closedError(String name) {
        return new LockClientClosedException(name, "LockClient is closed (lock '" + name + "')");
    }
}
