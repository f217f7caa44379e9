package io.zkfence.lock;

import io.zkfence.lock.internal.CuratorClosedException;
import io.zkfence.lock.internal.Failures;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The operator's side of a {@link LockClient}: see every lock, inspect one with a linearizable
 * read, force a stuck holder out with a reason on the record, and read that record back.
 * Obtained from {@link LockClient#admin()}; it works on the client's connection, session and
 * credentials (in ACL'd deployments give the admin client its own identity: docs/operations.md).
 *
 * <p>Every read first {@code sync}s the path with the leader, so the answer is at least as new
 * as every write completed before the call, whichever server the client is connected to.
 */
public final class LockAdmin {

    /** How many audit entries are kept by default; older ones are deleted as new ones come. */
    public static final int DEFAULT_AUDIT_RETENTION = 1_000;

    private static final String AUDIT_ENTRY = "entry-";

    private final LockClient client;
    private final CuratorFramework curator;
    private final LockClientConfig config;
    private final QueueInspector inspector;
    private final Clock clock;
    private final String auditPath;
    private final int retention;

    LockAdmin(
            LockClient client,
            CuratorFramework curator,
            LockClientConfig config,
            QueueInspector inspector,
            Clock clock,
            String auditPath,
            int retention) {
        this.client = client;
        this.curator = curator;
        this.config = config;
        this.inspector = inspector;
        this.clock = clock;
        this.auditPath = auditPath;
        this.retention = retention;
    }

    /** Where audit entries are kept. */
    public String auditPath() {
        return auditPath;
    }

    /**
     * The lock's queue, read after a {@code sync}: no server that lags behind answers "who holds it".
     *
     * @throws CoordinationException     if ZooKeeper cannot be read within {@code operationTimeout}
     * @throws LockClientClosedException if the client is closed
     */
    public LockInfo inspect(String name) {
        client.checkOpen(name);
        String path = LockPaths.lockPath(config.rootPath(), name);
        sync(name, path);
        return read(name, path);
    }

    /** Every lock under the client's root, by name; see {@link #list(String)}. */
    public Stream<LockInfo> list() {
        return list("");
    }

    /**
     * The locks whose names start with {@code prefix}, in name order, each read when the stream
     * reaches it (so 100 000 locks never make one response): holder (owner id, token, since),
     * waiters in order (each with when it asked). Locks with an empty queue are included with no
     * holder; a lock znode ZooKeeper has removed meanwhile is left out.
     *
     * @throws CoordinationException     if ZooKeeper cannot be read within {@code operationTimeout}
     * @throws LockClientClosedException if the client is closed
     */
    public Stream<LockInfo> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        client.checkOpen(prefix);
        String root = config.rootPath();
        sync(prefix, root);
        List<String> children;
        try {
            children = curator.getChildren().forPath(root);
        } catch (KeeperException.NoNodeException e) {
            return Stream.empty();
        } catch (Exception e) {
            throw failure(prefix, "listing locks under " + root, e);
        }
        List<String> names = new ArrayList<>();
        for (String child : children) {
            String name;
            try {
                name = LockPaths.decode(child);
                LockPaths.validateName(name);
            } catch (IllegalArgumentException notALock) {
                continue; // a znode some other tool put under the root
            }
            if (name.startsWith(prefix)) {
                names.add(name);
            }
        }
        names.sort(Comparator.naturalOrder());
        return names.stream().map(n -> read(n, LockPaths.lockPath(root, n)));
    }

    /**
     * Deletes the current holder's queue node, so its lease turns LOST through the normal path and
     * the next waiter is granted with a higher token (a fenced resource then rejects the evicted
     * holder's late writes). Only the node found as the holder is deleted, with a versioned
     * delete of that exact node: if it is gone by then (released, expired), nothing is deleted
     * and the next holder is never touched. Every call is recorded in the audit log, whatever its
     * outcome, with {@code reason}; the oldest entries beyond the retention are dropped.
     *
     * @throws IllegalArgumentException  if {@code reason} is blank
     * @throws CoordinationException     if ZooKeeper refuses (for example no DELETE permission on
     *                                   the lock's znode: see the ACL layout in docs/operations.md)
     *                                   or cannot be reached within {@code operationTimeout}
     * @throws LockClientClosedException if the client is closed
     */
    public ForcedRelease forceRelease(String name, String reason) {
        Objects.requireNonNull(reason, "reason");
        if (reason.isBlank()) {
            throw new IllegalArgumentException(
                    "a forced release needs a reason (lock '" + name + "'); it is recorded" + " in the audit log");
        }
        LockInfo before = inspect(name);
        ForcedRelease result;
        if (before.holder().isEmpty()) {
            result = record(name, ForcedRelease.Outcome.NOT_HELD, "", "", 0, reason);
        } else {
            LockInfo.Entry holder = before.holder().get();
            String nodePath = before.path() + "/" + holder.node();
            ForcedRelease.Outcome outcome = deleteExactly(name, nodePath);
            result = record(name, outcome, holder.node(), holder.ownerId(), holder.token(), reason);
        }
        audit(result);
        client.runtime().observers.forceReleased(name, result.outcome());
        return result;
    }

    /**
     * The audit log, oldest first (at most the retention's worth).
     *
     * @throws CoordinationException if ZooKeeper cannot be read within {@code operationTimeout}
     */
    public List<ForcedRelease> auditLog() {
        client.checkOpen(auditPath);
        sync(auditPath, auditPath);
        List<String> entries;
        try {
            entries = curator.getChildren().forPath(auditPath);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw failure(auditPath, "reading the audit log at " + auditPath, e);
        }
        List<ForcedRelease> log = new ArrayList<>();
        for (String entry : entries.stream().sorted().toList()) {
            try {
                AuditCodec.decode(curator.getData().forPath(auditPath + "/" + entry))
                        .ifPresent(log::add);
            } catch (KeeperException.NoNodeException trimmed) {
                // dropped by retention meanwhile
            } catch (Exception e) {
                throw failure(auditPath, "reading audit entry " + entry, e);
            }
        }
        return log;
    }

    private ForcedRelease record(
            String name, ForcedRelease.Outcome outcome, String node, String holder, long token, String reason) {
        return new ForcedRelease(name, outcome, node, holder, token, reason, config.ownerId(), clock.instant());
    }

    private ForcedRelease.Outcome deleteExactly(String name, String nodePath) {
        try {
            Stat stat = curator.checkExists().forPath(nodePath);
            if (stat == null) {
                return ForcedRelease.Outcome.HOLDER_CHANGED;
            }
            curator.delete().withVersion(stat.getVersion()).forPath(nodePath);
            return ForcedRelease.Outcome.RELEASED;
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
            return ForcedRelease.Outcome.HOLDER_CHANGED;
        } catch (Exception e) {
            throw failure(name, "force-releasing " + nodePath, e);
        }
    }

    private void audit(ForcedRelease entry) {
        try {
            curator.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .withACL(config.acl(), true)
                    .forPath(auditPath + "/" + AUDIT_ENTRY, AuditCodec.encode(entry));
            List<String> entries =
                    curator.getChildren().forPath(auditPath).stream().sorted().toList();
            for (int i = 0; i < entries.size() - retention; i++) {
                try {
                    curator.delete().forPath(auditPath + "/" + entries.get(i));
                } catch (KeeperException.NoNodeException alreadyTrimmed) {
                    // another admin trimmed it
                }
            }
        } catch (Exception e) {
            throw failure(
                    entry.lockName(),
                    "recording the forced release of lock '" + entry.lockName() + "' (" + entry.outcome()
                            + ") in the audit log at " + auditPath,
                    e);
        }
    }

    private LockInfo read(String name, String path) {
        Duration bound = config.operationTimeout();
        try {
            return inspector.inspect(name, path).get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinationException(name, "interrupted reading lock '" + name + "'", e);
        } catch (ExecutionException e) {
            throw failure(name, "reading lock '" + name + "'", Failures.unwrap(e));
        } catch (TimeoutException e) {
            throw new CoordinationException(
                    name,
                    "ZooKeeper did not answer within operationTimeout (" + bound.toMillis() + " ms) reading lock '"
                            + name + "'",
                    e);
        }
    }

    /** Brings the connected server up to date with the leader for {@code path}. */
    private void sync(String name, String path) {
        CountDownLatch synced = new CountDownLatch(1);
        int[] rc = new int[1];
        try {
            String abs = ZKPaths.fixForNamespace(curator.getNamespace(), path);
            curator.getZookeeperClient()
                    .getZooKeeper()
                    .sync(
                            abs,
                            (code, p, ctx) -> {
                                rc[0] = code;
                                synced.countDown();
                            },
                            null);
            if (!synced.await(config.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new CoordinationException(
                        name,
                        "ZooKeeper did not answer a sync of " + path + " within" + " operationTimeout ("
                                + config.operationTimeout().toMillis() + " ms)",
                        null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinationException(name, "interrupted syncing " + path, e);
        } catch (CoordinationException e) {
            throw e;
        } catch (Exception e) {
            throw failure(name, "syncing " + path, e);
        }
        KeeperException.Code code = KeeperException.Code.get(rc[0]);
        if (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE) {
            throw failure(name, "syncing " + path, KeeperException.create(code, path));
        }
    }

    private static LockException failure(String name, String what, Throwable e) {
        if (e instanceof CuratorClosedException || e instanceof IllegalStateException) {
            return new LockClientClosedException(
                    name, what + " failed: the client or its CuratorFramework is closed", e);
        }
        KeeperException.Code code = Failures.code(e);
        return new CoordinationException(
                name, what + " failed" + (code == null ? "" : " (" + code + ")") + ": " + e.getMessage(), e);
    }
}
