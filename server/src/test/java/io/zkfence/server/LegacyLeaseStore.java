package io.zkfence.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 *
 * <b>The previous protocol's lease store, as released</b> (zkfence-server before the lease
 * protocol redesign), kept as a test fixture so that {@code RollingUpgradeTest} runs old and new
 * replicas on one ensemble; forced release and the audit trail are left out. Its code is not
 * maintained otherwise.
 *
 * <p>The service's leases, kept entirely in ZooKeeper so that any replica can serve any call and a
 * replica may die at any time.
 *
 * <p>Each lock is a znode with one persistent sequential child per acquire (a waiter or the
 * holder), in FIFO order by sequence. An entry's data carries owner, request id, TTL, and once
 * granted its {@code expiresAt}; every change is a conditional write on the version just read,
 * so two replicas racing on one entry cannot both win. Any replica deletes a dead entry (a lease
 * past {@code expiresAt}, a waiter past {@code waitUntil}) with a versioned delete. The fencing
 * token is the entry's creation zxid: entries are created in queue order, so tokens strictly
 * increase from holder to holder. Clocks decide when a lease ends (skew between replicas moves
 * expiry by the skew); the fencing token is why that can cost availability, never safety.
 */
final class LegacyLeaseStore {

    /** How long a waiting entry outlives its request's deadline before any replica reaps it. */
    static final long WAITER_GRACE_MILLIS = 2_000;

    private final CuratorFramework zk;
    private final String root;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final ServiceMetrics metrics;
    private final Set<CountDownLatch> waits = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    LegacyLeaseStore(CuratorFramework zk, String root, Clock clock) {
        this.zk = zk;
        this.root = root;
        this.clock = clock;
        this.metrics = new ServiceMetrics();
        json.configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    }

    /** This replica's meters. */
    ServiceMetrics metrics() {
        return metrics;
    }

    /**
     * Acquires {@code key} for {@code ownerId}: at once if free, else in FIFO order within
     * {@code waitMillis} when {@code wait}. A retry with the same owner and request id finds the
     * same entry (the same grant, or the same place in line), never a second one.
     *
     * @param caller whether the caller is still there: a wait whose caller left ends at once
     * @throws LegacyException 409 {@code LOCK_ALREADY_HELD} if not granted in time, 499
     *                              {@code CALLER_GONE} if the caller left while waiting (either
     *                              way the entry is removed)
     */
    LegacyGrant acquire(
            LockKey key,
            String ownerId,
            long ttlMillis,
            boolean wait,
            long waitMillis,
            String requestId,
            CallerPresence caller) {
        if (stopping) {
            throw shuttingDown();
        }
        String lockPath = lockPath(key);
        long deadline = clock.millis() + (wait ? waitMillis : 0);
        String requestKey = requestKey(ownerId, requestId);
        LegacyEntry own = enqueue(
                lockPath,
                requestKey,
                requestId != null,
                new LegacyEntryData(ownerId, requestId, ttlMillis, deadline + WAITER_GRACE_MILLIS, 0, 0));
        // The entry's data version as this call last wrote it. Another version means a retry of
        // the same request (on any replica) has taken the entry over: this call then leaves it be
        // when it gives up.
        int written = own.version();
        long waitingSince = 0;
        // True when the entry ahead was the holder and has gone since: a holder has no entry ahead
        // of it (it was first when granted, and entries are only added behind), so this entry is
        // first now and need not read the queue again before it writes its grant.
        boolean holderGone = false;
        try {
            while (true) {
                if (own.granted()) {
                    return grant(key, own, own.data().expiresAt()); // a retry of an acquire that was granted
                }
                long now = clock.millis();
                // The child list alone orders the queue (names carry the sequence). Only the entry
                // right ahead is read: its own waiter deals with the entries ahead of it, and if it
                // is abandoned, nothing behind it can be granted before it ends anyway.
                List<String> queue = holderGone ? List.of(own.node()) : queueNames(lockPath);
                holderGone = false;
                int place = queue.indexOf(own.node());
                if (place < 0) {
                    // Reaped (our waiting time ran out on every replica's clock) or released by a retry.
                    throw alreadyHeld(key, head(lockPath, queue), now);
                }
                if (caller.gone()) {
                    giveUp(lockPath, own, written);
                    throw callerGone(key);
                }
                if (place == 0) {
                    long expiresAt = now + ttlMillis;
                    Stat stat = write(lockPath, own, own.data().granted(now, expiresAt));
                    if (stat != null) {
                        if (waitingSince > 0) {
                            metrics.waited(java.time.Duration.ofMillis(now - waitingSince));
                        }
                        return new LegacyGrant(key.key(), own.lockToken(), stat.getCzxid(), ownerId, expiresAt);
                    }
                    // Changed meanwhile: a retry of this request took the entry over (and may have
                    // been granted), or it was reaped. Read it again.
                    own = readEntry(lockPath, own.node(), null).orElse(own);
                    continue;
                }
                PredecessorWatch watch = new PredecessorWatch();
                LegacyEntry predecessor =
                        readEntry(lockPath, queue.get(place - 1), watch).orElse(null);
                if (predecessor == null) {
                    continue; // gone since the list was read
                }
                if (predecessor.dead(now)) {
                    // Nobody deletes an entry whose lease ran out or whose replica died while it
                    // waited: the waiter behind it does.
                    reap(lockPath, predecessor);
                    continue;
                }
                if (now >= deadline) {
                    giveUp(lockPath, own, written);
                    throw alreadyHeld(key, place == 1 ? predecessor : head(lockPath, queue), now);
                }
                if (stopping) {
                    giveUp(lockPath, own, written);
                    throw shuttingDown();
                }
                if (waitingSince == 0) {
                    waitingSince = now;
                    metrics.waitStarted();
                }
                // The watch wakes this wait when the predecessor changes (granted, renewed) or goes.
                await(watch.latch(), Math.max(1, Math.min(deadline, predecessor.endsAt()) - now), caller);
                holderGone = predecessor.granted() && watch.deleted();
            }
        } finally {
            if (waitingSince > 0) {
                metrics.waitEnded();
            }
        }
    }

    /**
     * Stops waiting: every acquire waiting here removes its queue entry and answers 503
     * {@code SHUTTING_DOWN} (retry on another replica), new acquires are refused the same way.
     * The HTTP layer waits for their answers before it stops.
     */
    void shutdown() {
        stopping = true;
        waits.forEach(CountDownLatch::countDown);
    }

    private static LegacyException shuttingDown() {
        return new LegacyException(
                503,
                "SHUTTING_DOWN",
                "this replica is shutting down; retry the acquire with the same requestId on another replica");
    }

    /**
     * Queues this request: finds its entry if a request id can name one (a retry), else creates
     * one. A waiting entry found keeps its place with the later of its deadline and this call's.
     * An entry that goes meanwhile (its earlier call gave up) is looked for again, then queued
     * anew: a retry racing that removal waits behind everyone, but never answers as if its own
     * wait had run out.
     *
     * @return the entry, with the data and version this call wrote, or read if granted
     */
    private LegacyEntry enqueue(String lockPath, String requestKey, boolean lookUp, LegacyEntryData fresh) {
        // Only a request id can name an earlier entry; without one, skip the sync and the lookup.
        // The reads after this follow this session's own create, so they see at least what it saw.
        if (lookUp) {
            sync(lockPath);
            while (true) {
                LegacyEntry mine = null;
                for (String node : queueNames(lockPath)) {
                    if (LegacyEntry.parseName(node).orElseThrow()[2].equals(requestKey)) {
                        mine = readEntry(lockPath, node, null)
                                .filter(e -> e.data().ownerId().equals(fresh.ownerId()))
                                .orElse(null);
                        if (mine != null) {
                            break;
                        }
                    }
                }
                if (mine == null) {
                    break;
                }
                if (mine.granted()) {
                    return mine; // a retry of an acquire that was granted: the loop answers it
                }
                LegacyEntryData extended =
                        mine.data().waitingUntil(Math.max(mine.data().waitUntil(), fresh.waitUntil()));
                Stat stat = write(lockPath, mine, extended);
                if (stat != null) {
                    return mine.with(extended, stat.getVersion());
                }
            }
        }
        return create(lockPath, requestKey, fresh);
    }

    /**
     * Removes this call's waiting entry, with a versioned delete of the version this call wrote:
     * if a retry of the same request has written the entry since, the retry waits on it now and
     * it stays.
     */
    private void giveUp(String lockPath, LegacyEntry own, int written) {
        if (own.version() == written) {
            remove(lockPath, own);
        }
    }

    private LegacyException callerGone(LockKey key) {
        return new LegacyException(
                499,
                "CALLER_GONE",
                "the caller of this acquire of lock '" + key.key()
                        + "' closed its connection while waiting; its place in the queue is given up");
    }

    /**
     * Pushes the lease's expiry to now + {@code ttlMillis}.
     *
     * @return the new expiry
     * @throws LegacyException 409 {@code LOCK_EXPIRED} if the lease is gone or past its
     *                              expiry; 403 {@code NOT_LOCK_OWNER} if {@code ownerId} is not its owner
     */
    long renew(LockKey key, String lockToken, String ownerId, long ttlMillis) {
        String lockPath = lockPath(key);
        boolean synced = false; // see release(): sync only before an answer a stale read could get wrong
        while (true) {
            long now = clock.millis();
            LegacyEntry e = holding(lockPath, lockToken);
            if ((e == null || !e.granted() || e.dead(now)) && !synced) {
                sync(lockPath);
                synced = true;
                continue;
            }
            if (e == null || !e.granted()) {
                throw new LegacyException(
                        409,
                        "LOCK_EXPIRED",
                        "no live lease with this lockToken on lock '" + key.key() + "': it expired or was released");
            }
            checkOwner(key, e, ownerId);
            if (e.dead(now)) {
                delete(lockPath, e);
                throw new LegacyException(
                        409,
                        "LOCK_EXPIRED",
                        "the lease on lock '" + key.key() + "' expired "
                                + (now - e.data().expiresAt()) + " ms ago; acquire again");
            }
            long expiresAt = now + ttlMillis;
            if (write(lockPath, e, e.data().renewed(expiresAt)) != null) {
                return expiresAt;
            }
            if (!synced) {
                sync(lockPath);
                synced = true;
            }
        }
    }

    /**
     * Releases the lease; a lease that is already gone or expired is released already (true
     * means this call removed a live lease).
     *
     * @throws LegacyException 403 {@code NOT_LOCK_OWNER} if {@code ownerId} is not its owner
     */
    boolean release(LockKey key, String lockToken, String ownerId) {
        String lockPath = lockPath(key);
        // No sync up front: an entry found is acted on by a versioned delete, which the leader
        // refuses if the read was stale. Only a miss, or a refused delete, could come from a
        // lagging server, and those read again after a sync before answering.
        boolean synced = false;
        while (true) {
            LegacyEntry e = holding(lockPath, lockToken);
            if (e == null) {
                if (!synced) {
                    sync(lockPath);
                    synced = true;
                    continue;
                }
                return false;
            }
            checkOwner(key, e, ownerId);
            long now = clock.millis();
            boolean wasLive = !e.dead(now);
            Removal removal = remove(lockPath, e);
            if (removal == Removal.DELETED) {
                if (wasLive && e.granted() && e.data().grantedAt() > 0) {
                    metrics.held(java.time.Duration.ofMillis(now - e.data().grantedAt()));
                }
                return wasLive;
            }
            if (!synced) {
                sync(lockPath);
                synced = true;
            } else if (removal == Removal.GONE) {
                return false;
            }
        }
    }

    /** What a versioned delete did. */
    private enum Removal {
        DELETED,
        GONE,
        CHANGED
    }

    private Removal remove(String lockPath, LegacyEntry e) {
        try {
            zk.delete().withVersion(e.version()).forPath(lockPath + "/" + e.node());
            return Removal.DELETED;
        } catch (KeeperException.NoNodeException gone) {
            return Removal.GONE;
        } catch (KeeperException.BadVersionException changed) {
            return Removal.CHANGED;
        } catch (Exception ex) {
            throw unavailable("deleting entry " + e.node() + " of " + lockPath, ex);
        }
    }

    /** The lock's live queue after a sync: the holder (granted) first, then the waiters in order. */
    List<LegacyEntry> status(LockKey key) {
        String lockPath = lockPath(key);
        sync(lockPath);
        return live(lockPath, clock.millis());
    }

    /** A held lock, as the list call answers it. */
    record Held(LockKey key, LegacyEntry holder, int waiters) {}

    /**
     * The held locks of a namespace, in key order (their znode names), at most {@code limit}
     * after the lock whose znode name is {@code after} (null: from the start). One sync first:
     * every read after it sees at least what the leader had committed when it was answered.
     * Dead entries are skipped here, not deleted: listing writes nothing.
     */
    List<Held> list(String namespace, String after, int limit) {
        String nsPath = namespacePath(namespace);
        sync(nsPath);
        List<String> locks;
        try {
            locks = new ArrayList<>(zk.getChildren().forPath(nsPath));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw unavailable("listing " + nsPath, e);
        }
        locks.sort(null);
        long now = clock.millis();
        List<Held> out = new ArrayList<>();
        for (String lock : locks) {
            if (out.size() >= limit) {
                break;
            }
            if (after != null && lock.compareTo(after) <= 0) {
                continue;
            }
            List<LegacyEntry> queue =
                    read(nsPath + "/" + lock).stream().filter(e -> !e.dead(now)).toList();
            if (!queue.isEmpty() && queue.get(0).granted()) {
                out.add(new Held(LockKey.fromZnode(namespace, lock), queue.get(0), queue.size() - 1));
            }
        }
        return out;
    }

    /**
     * The entries, with every dead one removed (any replica may: versioned deletes). A delete
     * refused because the entry changed since the read (renewed, granted, its wait extended by a
     * retry) means this read of it is out of date: the queue is read again after a sync. Passing
     * over such an entry would let the entry behind it be granted beside a live lease.
     */
    private List<LegacyEntry> live(String lockPath, long now) {
        while (true) {
            List<LegacyEntry> live = new ArrayList<>();
            boolean outOfDate = false;
            for (LegacyEntry e : read(lockPath)) {
                if (!e.dead(now)) {
                    live.add(e);
                } else if (!reap(lockPath, e)) {
                    outOfDate = true;
                    break;
                }
            }
            if (!outOfDate) {
                return live;
            }
        }
    }

    /**
     * Deletes an entry read as dead. A delete refused because the entry changed since the read
     * (renewed, granted, its wait extended by a retry) means that read is out of date: this syncs,
     * so that the caller's next read sees the change, and returns false.
     */
    private boolean reap(String lockPath, LegacyEntry dead) {
        Removal removal = remove(lockPath, dead);
        if (removal == Removal.CHANGED) {
            sync(lockPath);
            return false;
        }
        if (removal == Removal.DELETED && dead.granted()) {
            metrics.expired();
        }
        return true;
    }

    /** Every entry with its data, in queue order. */
    private List<LegacyEntry> read(String lockPath) {
        List<LegacyEntry> entries = new ArrayList<>();
        for (String node : queueNames(lockPath)) {
            readEntry(lockPath, node, null).ifPresent(entries::add);
        }
        return entries;
    }

    /** The queue's entry names in queue order (serial order, as lock-core), without their data. */
    private List<String> queueNames(String lockPath) {
        List<String> children;
        try {
            children = zk.getChildren().forPath(lockPath);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw unavailable("reading " + lockPath, e);
        }
        return LegacyEntry.inQueueOrder(children);
    }

    /**
     * One entry with its data; empty if it is gone.
     *
     * @param watch if not null, set on the entry: it fires when the entry changes or goes after this read
     */
    private Optional<LegacyEntry> readEntry(String lockPath, String node, PredecessorWatch watch) {
        try {
            Stat stat = new Stat();
            String path = lockPath + "/" + node;
            byte[] data = watch == null
                    ? zk.getData().storingStatIn(stat).forPath(path)
                    : zk.getData().storingStatIn(stat).usingWatcher(watch).forPath(path);
            return Optional.of(LegacyEntry.of(node, json.readValue(data, LegacyEntryData.class), stat));
        } catch (KeeperException.NoNodeException gone) {
            return Optional.empty(); // released or reaped since the children read
        } catch (Exception e) {
            throw unavailable("reading entry " + node + " of " + lockPath, e);
        }
    }

    /** The queue's first entry, if it is still there; null otherwise. */
    private LegacyEntry head(String lockPath, List<String> queue) {
        return queue.isEmpty() ? null : readEntry(lockPath, queue.get(0), null).orElse(null);
    }

    /** The entry of {@code lockToken} (its name carries the token), or null: only that entry is read. */
    private LegacyEntry holding(String lockPath, String lockToken) {
        for (String node : queueNames(lockPath)) {
            if (LegacyEntry.parseName(node).orElseThrow()[1].equals(lockToken)) {
                return readEntry(lockPath, node, null).orElse(null);
            }
        }
        return null;
    }

    /** Queues a new entry: the entry as created, data version 0. */
    private LegacyEntry create(String lockPath, String requestKey, LegacyEntryData data) {
        String lockToken = UUID.randomUUID().toString().replace("-", "");
        try {
            Stat stat = new Stat();
            // Protected: if the answer is lost, Curator finds the entry by its mark before it
            // creates again, so one acquire never queues twice.
            String path = zk.create()
                    .storingStatIn(stat)
                    .creatingParentContainersIfNeeded()
                    .withProtection()
                    .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(lockPath + "/e-" + lockToken + "-" + requestKey + "-", json.writeValueAsBytes(data));
            return LegacyEntry.of(ZKPaths.getNodeFromPath(path), data, stat);
        } catch (Exception e) {
            throw unavailable("queueing on " + lockPath, e);
        }
    }

    /** A conditional write on the version read: the entry's new stat, or null if it changed or went meanwhile. */
    private Stat write(String lockPath, LegacyEntry e, LegacyEntryData data) {
        try {
            return zk.setData()
                    .withVersion(e.version())
                    .forPath(lockPath + "/" + e.node(), json.writeValueAsBytes(data));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException changed) {
            return null;
        } catch (Exception ex) {
            throw unavailable("writing entry " + e.node() + " of " + lockPath, ex);
        }
    }

    /** A versioned delete; false if the entry changed meanwhile (true also when it was gone already). */
    private boolean delete(String lockPath, LegacyEntry e) {
        return remove(lockPath, e) != Removal.CHANGED;
    }

    /** Waits until {@code changed} is counted down, {@code millis} pass, the caller leaves or the replica stops. */
    private void await(CountDownLatch changed, long millis, CallerPresence caller) {
        waits.add(changed);
        if (stopping) {
            changed.countDown(); // shutdown() ran before this wait was registered
        }
        Runnable stopWatching = caller.onGone(changed::countDown);
        try {
            changed.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LegacyException(503, "UNAVAILABLE", "interrupted while waiting in the queue");
        } finally {
            waits.remove(changed);
            stopWatching.run();
        }
    }

    private void sync(String path) {
        CountDownLatch synced = new CountDownLatch(1);
        try {
            zk.getZookeeperClient()
                    .getZooKeeper()
                    .sync(ZKPaths.fixForNamespace(zk.getNamespace(), path), (rc, p, ctx) -> synced.countDown(), null);
            if (!synced.await(10, TimeUnit.SECONDS)) {
                throw new LegacyException(503, "UNAVAILABLE", "ZooKeeper did not answer a sync of " + path);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LegacyException(503, "UNAVAILABLE", "interrupted syncing " + path);
        } catch (LegacyException e) {
            throw e;
        } catch (Exception e) {
            throw unavailable("syncing " + path, e);
        }
    }

    private static void checkOwner(LockKey key, LegacyEntry e, String ownerId) {
        if (!e.data().ownerId().equals(ownerId)) {
            throw new LegacyException(
                    403,
                    "NOT_LOCK_OWNER",
                    "lockToken of lock '" + key.key() + "' belongs to another" + " owner than '" + ownerId + "'");
        }
    }

    private static LegacyGrant grant(LockKey key, LegacyEntry e, long expiresAt) {
        return new LegacyGrant(
                key.key(), e.lockToken(), e.fencingToken(), e.data().ownerId(), expiresAt);
    }

    private static LegacyException alreadyHeld(LockKey key, LegacyEntry head, long now) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("currentOwner", head == null ? null : head.data().ownerId());
        extra.put(
                "retryAfterMillis",
                head != null && head.granted() ? Math.max(0, head.data().expiresAt() - now) : 0);
        return new LegacyException(
                409,
                "LOCK_ALREADY_HELD",
                "lock '" + key.key() + "' is held"
                        + (head == null ? "" : " by '" + head.data().ownerId() + "'"),
                extra);
    }

    private String lockPath(LockKey key) {
        return namespacePath(key.namespace()) + "/" + key.znode();
    }

    private String namespacePath(String namespace) {
        return base() + "/" + namespace;
    }

    private String base() {
        return "/".equals(root) ? "" : root;
    }

    /** A digest of owner and request: the same pair always finds the same entry. No request id: a fresh one. */
    private static String requestKey(String ownerId, String requestId) {
        String id = requestId == null ? UUID.randomUUID().toString() : requestId;
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((ownerId + "\u0000" + id).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static LegacyException unavailable(String what, Exception e) {
        return new LegacyException(503, "UNAVAILABLE", what + " failed: " + e);
    }
}
