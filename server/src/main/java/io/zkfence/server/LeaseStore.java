package io.zkfence.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.lock.ForcedRelease;
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
 * The service's leases, kept entirely in ZooKeeper so that any replica can serve any call and a
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
final class LeaseStore {

    /** How long a waiting entry outlives its request's deadline before any replica reaps it. */
    static final long WAITER_GRACE_MILLIS = 2_000;

    private final CuratorFramework zk;
    private final String root;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final AuditTrail audit;
    private final ServiceMetrics metrics;
    private final Set<CountDownLatch> waits = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    LeaseStore(CuratorFramework zk, String root, Clock clock, int auditRetention) {
        this.zk = zk;
        this.root = root;
        this.clock = clock;
        this.audit = new AuditTrail(zk, root, auditRetention);
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
     * @throws LockServiceException 409 {@code LOCK_ALREADY_HELD} if not granted in time, 499
     *                              {@code CALLER_GONE} if the caller left while waiting (either
     *                              way the entry is removed)
     */
    Grant acquire(
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
        return acquireOnce(key, ownerId, ttlMillis, wait, waitMillis, requestId, caller);
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

    private static LockServiceException shuttingDown() {
        return new LockServiceException(
                503,
                "SHUTTING_DOWN",
                "this replica is shutting down; retry the acquire with the" + " same requestId on another replica");
    }

    private Grant acquireOnce(
            LockKey key,
            String ownerId,
            long ttlMillis,
            boolean wait,
            long waitMillis,
            String requestId,
            CallerPresence caller) {
        String lockPath = lockPath(key);
        long deadline = clock.millis() + (wait ? waitMillis : 0);
        String requestKey = requestKey(ownerId, requestId);
        // The entry's data version as this call last wrote it. Another version means a retry of
        // the same request (on any replica) has taken the entry over: this call then leaves it be
        // when it gives up.
        int written = enqueue(
                lockPath,
                requestKey,
                requestId != null,
                new EntryData(ownerId, requestId, ttlMillis, deadline + WAITER_GRACE_MILLIS, 0, 0));
        long waitingSince = 0;
        try {
            while (true) {
                long now = clock.millis();
                List<Entry> queue = live(lockPath, now);
                Entry own = find(
                        queue,
                        e -> e.requestKey().equals(requestKey)
                                && e.data().ownerId().equals(ownerId));
                if (own == null) {
                    // Reaped (our waiting time ran out on every replica's clock) or released by a retry.
                    throw alreadyHeld(key, queue, now);
                }
                if (!own.granted() && caller.gone()) {
                    giveUp(lockPath, own, written);
                    throw callerGone(key);
                }
                Entry head = queue.get(0);
                if (head == own) {
                    if (own.granted()) {
                        return grant(key, own, own.data().expiresAt()); // a retry of an acquire that was granted
                    }
                    long expiresAt = now + ttlMillis;
                    if (setData(lockPath, own, own.data().granted(now, expiresAt))) {
                        if (waitingSince > 0) {
                            metrics.waited(java.time.Duration.ofMillis(now - waitingSince));
                        }
                        return grant(key, own, expiresAt);
                    }
                    continue; // changed meanwhile: read again
                }
                if (now >= deadline) {
                    giveUp(lockPath, own, written);
                    throw alreadyHeld(key, queue, now);
                }
                if (stopping) {
                    giveUp(lockPath, own, written);
                    throw shuttingDown();
                }
                int place = queue.indexOf(own);
                Entry predecessor = queue.get(place - 1);
                // The predecessor's delete wakes this wait, but nobody deletes an entry whose lease
                // ran out or whose replica died while it waited: wake when the first entry ahead
                // ends, and the read after it removes the dead.
                long until = deadline;
                for (Entry ahead : queue.subList(0, place)) {
                    until = Math.min(until, ahead.endsAt());
                }
                if (waitingSince == 0) {
                    waitingSince = now;
                    metrics.waitStarted();
                }
                awaitGone(lockPath + "/" + predecessor.node(), Math.max(1, until - now), caller);
            }
        } finally {
            if (waitingSince > 0) {
                metrics.waitEnded();
            }
        }
    }

    /**
     * Queues this request: finds its entry if a request id can name one (a retry), else creates
     * one. A waiting entry found keeps its place with the later of its deadline and this call's.
     * An entry that goes meanwhile (its earlier call gave up) is looked for again, then queued
     * anew: a retry racing that removal waits behind everyone, but never answers as if its own
     * wait had run out.
     *
     * @return the entry's data version as this call wrote it, or read it if granted
     */
    private int enqueue(String lockPath, String requestKey, boolean lookUp, EntryData fresh) {
        // Only a request id can name an earlier entry; without one, skip the sync and the lookup.
        // The reads after this follow this session's own create, so they see at least what it saw.
        if (lookUp) {
            sync(lockPath);
            while (true) {
                Entry mine = find(
                        read(lockPath),
                        e -> e.requestKey().equals(requestKey)
                                && e.data().ownerId().equals(fresh.ownerId()));
                if (mine == null) {
                    break;
                }
                if (mine.granted()) {
                    return mine.version(); // a retry of an acquire that was granted: the loop answers it
                }
                int version = write(
                        lockPath,
                        mine,
                        mine.data().waitingUntil(Math.max(mine.data().waitUntil(), fresh.waitUntil())));
                if (version >= 0) {
                    return version;
                }
            }
        }
        create(lockPath, requestKey, fresh);
        return 0; // a new znode's data version
    }

    /**
     * Removes this call's waiting entry, with a versioned delete of the version this call wrote:
     * if a retry of the same request has written the entry since, the retry waits on it now and
     * it stays.
     */
    private void giveUp(String lockPath, Entry own, int written) {
        if (own.version() == written) {
            remove(lockPath, own);
        }
    }

    private LockServiceException callerGone(LockKey key) {
        return new LockServiceException(
                499,
                "CALLER_GONE",
                "the caller of this acquire of lock '" + key.key()
                        + "' closed its connection while waiting; its place in the queue is given up");
    }

    /**
     * Pushes the lease's expiry to now + {@code ttlMillis}.
     *
     * @return the new expiry
     * @throws LockServiceException 409 {@code LOCK_EXPIRED} if the lease is gone or past its
     *                              expiry; 403 {@code NOT_LOCK_OWNER} if {@code ownerId} is not its owner
     */
    long renew(LockKey key, String lockToken, String ownerId, long ttlMillis) {
        String lockPath = lockPath(key);
        boolean synced = false; // see release(): sync only before an answer a stale read could get wrong
        while (true) {
            long now = clock.millis();
            Entry e = find(read(lockPath), x -> x.lockToken().equals(lockToken));
            if ((e == null || !e.granted() || e.dead(now)) && !synced) {
                sync(lockPath);
                synced = true;
                continue;
            }
            if (e == null || !e.granted()) {
                throw new LockServiceException(
                        409,
                        "LOCK_EXPIRED",
                        "no live lease with this lockToken on lock '" + key.key() + "': it expired or was released");
            }
            checkOwner(key, e, ownerId);
            if (e.dead(now)) {
                delete(lockPath, e);
                throw new LockServiceException(
                        409,
                        "LOCK_EXPIRED",
                        "the lease on lock '" + key.key() + "' expired "
                                + (now - e.data().expiresAt()) + " ms ago; acquire again");
            }
            long expiresAt = now + ttlMillis;
            if (setData(lockPath, e, e.data().renewed(expiresAt))) {
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
     * @throws LockServiceException 403 {@code NOT_LOCK_OWNER} if {@code ownerId} is not its owner
     */
    boolean release(LockKey key, String lockToken, String ownerId) {
        String lockPath = lockPath(key);
        // No sync up front: an entry found is acted on by a versioned delete, which the leader
        // refuses if the read was stale. Only a miss, or a refused delete, could come from a
        // lagging server, and those read again after a sync before answering.
        boolean synced = false;
        while (true) {
            Entry e = find(read(lockPath), x -> x.lockToken().equals(lockToken));
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

    private Removal remove(String lockPath, Entry e) {
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
    List<Entry> status(LockKey key) {
        String lockPath = lockPath(key);
        sync(lockPath);
        return live(lockPath, clock.millis());
    }

    /** A held lock, as the list call answers it. */
    record Held(LockKey key, Entry holder, int waiters) {}

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
            List<Entry> queue =
                    read(nsPath + "/" + lock).stream().filter(e -> !e.dead(now)).toList();
            if (!queue.isEmpty() && queue.get(0).granted()) {
                out.add(new Held(LockKey.fromZnode(namespace, lock), queue.get(0), queue.size() - 1));
            }
        }
        return out;
    }

    /**
     * Ends the current holder's lease at once, whoever holds it, and records it in the audit
     * trail. Deletes exactly the entry read (a versioned delete; a renew meanwhile is read again),
     * so the next holder is never touched; that holder's fencing token is higher, so resources
     * reject the evicted holder's late writes.
     *
     * @param expectedFencingToken if not null, release only a holder with this token
     *                             (otherwise {@code HOLDER_CHANGED}, nothing deleted)
     */
    ForcedRelease forceRelease(LockKey key, String reason, String by, Long expectedFencingToken) {
        String lockPath = lockPath(key);
        sync(lockPath);
        ForcedRelease result;
        while (true) {
            List<Entry> queue = live(lockPath, clock.millis());
            Entry head = queue.isEmpty() ? null : queue.get(0);
            if (head == null || !head.granted()) {
                result = forced(key, ForcedRelease.Outcome.NOT_HELD, null, reason, by);
                break;
            }
            if (expectedFencingToken != null && head.fencingToken() != expectedFencingToken) {
                result = forced(key, ForcedRelease.Outcome.HOLDER_CHANGED, head, reason, by);
                break;
            }
            try {
                zk.delete().withVersion(head.version()).forPath(lockPath + "/" + head.node());
                result = forced(key, ForcedRelease.Outcome.RELEASED, head, reason, by);
                break;
            } catch (KeeperException.BadVersionException renewed) {
                continue; // renewed meanwhile: the same holder, read again
            } catch (KeeperException.NoNodeException gone) {
                result = forced(key, ForcedRelease.Outcome.HOLDER_CHANGED, head, reason, by);
                break;
            } catch (Exception e) {
                throw unavailable("force-releasing " + head.node() + " of " + lockPath, e);
            }
        }
        audit.append(result);
        metrics.forceReleased(result.outcome().name().toLowerCase(java.util.Locale.ROOT));
        return result;
    }

    /** The newest entries of the audit trail, newest first. */
    List<ForcedRelease> auditTrail(int limit) {
        sync(base() + "/_audit");
        return audit.newest(limit);
    }

    private ForcedRelease forced(LockKey key, ForcedRelease.Outcome outcome, Entry holder, String reason, String by) {
        return new ForcedRelease(
                key.key(),
                outcome,
                holder == null ? "" : holder.node(),
                holder == null ? "" : holder.data().ownerId(),
                holder == null ? 0 : holder.fencingToken(),
                reason,
                by,
                clock.instant());
    }

    /**
     * The entries, with every dead one removed (any replica may: versioned deletes). A delete
     * refused because the entry changed since the read (renewed, granted, its wait extended by a
     * retry) means this read of it is out of date: the queue is read again after a sync. Passing
     * over such an entry would let the entry behind it be granted beside a live lease.
     */
    private List<Entry> live(String lockPath, long now) {
        while (true) {
            List<Entry> live = new ArrayList<>();
            boolean outOfDate = false;
            for (Entry e : read(lockPath)) {
                if (!e.dead(now)) {
                    live.add(e);
                    continue;
                }
                Removal removal = remove(lockPath, e);
                if (removal == Removal.CHANGED) {
                    outOfDate = true;
                    break;
                }
                if (removal == Removal.DELETED && e.granted()) {
                    metrics.expired();
                }
            }
            if (!outOfDate) {
                return live;
            }
            sync(lockPath);
        }
    }

    private List<Entry> read(String lockPath) {
        List<String> children;
        try {
            children = zk.getChildren().forPath(lockPath);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw unavailable("reading " + lockPath, e);
        }
        List<Entry> entries = new ArrayList<>();
        for (String child : children) {
            Optional<String[]> parts = Entry.parseName(child);
            if (parts.isEmpty()) {
                continue;
            }
            try {
                Stat stat = new Stat();
                byte[] data = zk.getData().storingStatIn(stat).forPath(lockPath + "/" + child);
                EntryData d = json.readValue(data, EntryData.class);
                entries.add(new Entry(
                        child,
                        Integer.parseInt(parts.get()[3]),
                        parts.get()[1],
                        parts.get()[2],
                        d,
                        stat.getCzxid(),
                        stat.getVersion()));
            } catch (KeeperException.NoNodeException gone) {
                // released or reaped since the children read
            } catch (Exception e) {
                throw unavailable("reading entry " + child + " of " + lockPath, e);
            }
        }
        entries.sort((a, b) -> Integer.signum(a.sequence() - b.sequence())); // serial order, as lock-core
        return entries;
    }

    private void create(String lockPath, String requestKey, EntryData data) {
        String lockToken = UUID.randomUUID().toString().replace("-", "");
        try {
            zk.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(lockPath + "/e-" + lockToken + "-" + requestKey + "-", json.writeValueAsBytes(data));
        } catch (Exception e) {
            throw unavailable("queueing on " + lockPath, e);
        }
    }

    /** A conditional write on the version read; false if the entry changed or went meanwhile. */
    private boolean setData(String lockPath, Entry e, EntryData data) {
        return write(lockPath, e, data) >= 0;
    }

    /** A conditional write on the version read: the entry's new version, or -1 if it changed or went meanwhile. */
    private int write(String lockPath, Entry e, EntryData data) {
        try {
            return zk.setData()
                    .withVersion(e.version())
                    .forPath(lockPath + "/" + e.node(), json.writeValueAsBytes(data))
                    .getVersion();
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException changed) {
            return -1;
        } catch (Exception ex) {
            throw unavailable("writing entry " + e.node() + " of " + lockPath, ex);
        }
    }

    /** A versioned delete; false if the entry changed meanwhile (true also when it was gone already). */
    private boolean delete(String lockPath, Entry e) {
        return remove(lockPath, e) != Removal.CHANGED;
    }

    /** Waits until {@code path} is deleted, {@code millis} pass or the caller leaves. */
    private void awaitGone(String path, long millis, CallerPresence caller) {
        CountDownLatch gone = new CountDownLatch(1);
        waits.add(gone);
        if (stopping) {
            gone.countDown(); // shutdown() ran before this wait was registered
        }
        Runnable stopWatching = caller.onGone(gone::countDown);
        try {
            Stat stat = zk.checkExists()
                    .usingWatcher((org.apache.zookeeper.Watcher) event -> gone.countDown())
                    .forPath(path);
            if (stat == null) {
                return;
            }
            gone.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockServiceException(503, "UNAVAILABLE", "interrupted while waiting for " + path);
        } catch (Exception e) {
            throw unavailable("watching " + path, e);
        } finally {
            waits.remove(gone);
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
                throw new LockServiceException(503, "UNAVAILABLE", "ZooKeeper did not answer a sync of " + path);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockServiceException(503, "UNAVAILABLE", "interrupted syncing " + path);
        } catch (LockServiceException e) {
            throw e;
        } catch (Exception e) {
            throw unavailable("syncing " + path, e);
        }
    }

    private static void checkOwner(LockKey key, Entry e, String ownerId) {
        if (!e.data().ownerId().equals(ownerId)) {
            throw new LockServiceException(
                    403,
                    "NOT_LOCK_OWNER",
                    "lockToken of lock '" + key.key() + "' belongs to another" + " owner than '" + ownerId + "'");
        }
    }

    private static Grant grant(LockKey key, Entry e, long expiresAt) {
        return new Grant(key.key(), e.lockToken(), e.fencingToken(), e.data().ownerId(), expiresAt);
    }

    private static LockServiceException alreadyHeld(LockKey key, List<Entry> queue, long now) {
        Map<String, Object> extra = new LinkedHashMap<>();
        Entry head = queue.isEmpty() ? null : queue.get(0);
        extra.put("currentOwner", head == null ? null : head.data().ownerId());
        extra.put(
                "retryAfterMillis",
                head != null && head.granted() ? Math.max(0, head.data().expiresAt() - now) : 0);
        return new LockServiceException(
                409,
                "LOCK_ALREADY_HELD",
                "lock '" + key.key() + "' is held"
                        + (head == null ? "" : " by '" + head.data().ownerId() + "'"),
                extra);
    }

    private static Entry find(List<Entry> entries, java.util.function.Predicate<Entry> which) {
        return entries.stream().filter(which).findFirst().orElse(null);
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

    private static LockServiceException unavailable(String what, Exception e) {
        return new LockServiceException(503, "UNAVAILABLE", what + " failed: " + e);
    }
}
