package io.zkfence.campaigns.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The campaign's view of the service from outside the workers, twice a second, and a judge's record
 * of every lease it granted:
 *
 * <ul>
 * <li>ZooKeeper read directly under the service's root (no replica in between, nothing written),
 *     after a {@code sync} so that no read lags behind an answer a worker already heard: every
 *     queue entry, its owner and request, whether it is granted, its fencing token (the entry's
 *     creation zxid), how its {@code expiresAt} and its tie to a replica's session changed, when
 *     that session ended while it was tied to it, and when it was removed: the creation time of
 *     the finished-request record written in the same multi (ZooKeeper's own clock, to the
 *     millisecond), else the first read that missed it. Every queue with waiters in it, at every
 *     read ({@link QueueSnapshot}), for the dead-waiter check. The audit trail's forced releases.
 *     An entry is a znode whose data is a JSON object with an {@code ownerId}.
 *     The service's rule decides who holds a lock (docs/server.md, "How it works"): the first entry
 *     of its queue, unless that entry is dead: a lease past its {@code expiresAt}, or an
 *     unconfirmed entry (a waiting acquire's) whose replica's session marker under
 *     {@code _replicas} is gone. A dead head with others behind it blocks its key until a replica
 *     removes it. A granted lease is recorded once it stands on its own ({@code confirmed}): an
 *     unconfirmed head is a waiter being answered, or a waiter whose replica cannot answer (paused,
 *     cut off), which ends with that replica's session (promise 4's bound) and is no lease.
 * <li>The service's own list call ({@code GET /v1/locks?namespace=}), on each replica in turn: the
 *     holders with their fencing tokens, whatever the layout.
 * <li>Each replica's {@code /metrics}, every 5 s (per replica incarnation: a restart starts them at 0).
 * </ul>
 */
final class QueueObserver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final Duration PERIOD = Duration.ofMillis(500);

    /**
     * How far past its {@code expiresAt} (the granting replica's clock) a lease at the head counts as
     * blocking its key: more than any replica's clock skew in the campaign (at most 6 s) and a poll.
     */
    static final Duration EXPIRY_SLACK = Duration.ofSeconds(7);

    /** The replicas' {@code --request-retention-ms} (their default): the length of a finished-request bucket. */
    static final long REQUEST_RETENTION_MILLIS = 600_000;

    /**
     * An entry's data as reads found it: whether it stood on its own, and its {@code expiresAt},
     * from the first read that found it so ({@code at}) to the last ({@code lastAt}).
     */
    record State(long at, long lastAt, boolean confirmed, long expiresAt) {}

    /** One entry as seen over time (fields written by the polling thread only, read after it stopped). */
    static final class Seen {
        final String path;
        final String lock;
        final long fencingToken;
        final String owner;
        final String request;
        final long firstSeen;
        long lastSeen;
        long grantedSeen;
        long expiresAt;
        long waitUntil;
        /** Each change of its data, in order: the first read, then every read that found it written again. */
        final List<State> states = new ArrayList<>();
        /** The first read that found it unconfirmed with its replica's session marker gone (0: never). */
        long sessionEndedSeen;
        /** The first read that missed it after it was seen (0: it was there at the last read). */
        long goneSeen;
        /**
         * When it was removed, by ZooKeeper's clock: the creation time of the finished-request record
         * written in the removing multi (0: no record, or one older than the entry's last sighting).
         */
        long removedAt;
        /** That record's outcome ({@code RELEASED}, {@code EXPIRED}, {@code FORCE_RELEASED}, {@code GAVE_UP}). */
        String removedAs;

        /** The latest the entry was removed: the record's time when known, else the first read that missed it. */
        long removedBy() {
            return removedAt > 0 ? removedAt : goneSeen;
        }

        Seen(String path, String lock, long fencingToken, String owner, String request, long firstSeen) {
            this.path = path;
            this.lock = lock;
            this.fencingToken = fencingToken;
            this.owner = owner;
            this.request = request;
            this.firstSeen = firstSeen;
            this.lastSeen = firstSeen;
        }
    }

    /**
     * A holder as the list call showed it: the answering replica's view by its own clock, which the
     * campaign skews, so it is reported beside the direct reads and not taken for a grant.
     */
    record Listed(String key, String owner, long fencingToken, long firstSeen) {}

    private final CuratorFramework zk;
    private final String root;
    private final List<Replica> replicas;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private final Map<String, Seen> entries = new ConcurrentHashMap<>();
    private final List<QueueSnapshot> snapshots = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> polls = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, Long> evictions = new ConcurrentHashMap<>();
    private final Set<String> auditRead = ConcurrentHashMap.newKeySet();
    private Set<String> present = Set.of();
    private final Map<Long, Listed> listed = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Double>> metrics = new ConcurrentHashMap<>();
    private volatile List<String> heldKeys = List.of();
    private volatile boolean stopped;
    private final Thread poller;

    QueueObserver(String connectString, String root, List<Replica> replicas) {
        this.zk = CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(100, 3, 1_000));
        this.zk.start();
        this.root = root;
        this.replicas = replicas;
        this.poller = Thread.ofPlatform().daemon().name("queue-observer").start(this::run);
    }

    /** The lock keys whose queue had a granted head at the last read (the campaign plants dead waiters behind them). */
    List<String> heldKeys() {
        return heldKeys;
    }

    Collection<Seen> entries() {
        return entries.values();
    }

    Collection<Listed> listed() {
        return listed.values();
    }

    /** Every queue with waiters in it, at every read. */
    List<QueueSnapshot> snapshots() {
        synchronized (snapshots) {
            return List.copyOf(snapshots);
        }
    }

    /** When each read of ZooKeeper that succeeded was done (the snapshots' times among them). */
    List<Long> polls() {
        synchronized (polls) {
            return List.copyOf(polls);
        }
    }

    /** Leases evicted by a forced release (the audit trail): fencing token → when, by ZooKeeper's clock. */
    Map<Long, Long> evictions() {
        return Map.copyOf(evictions);
    }

    /** The last {@code /metrics} scrape of each replica incarnation ({@code r0#2} → meter → value). */
    Map<String, Map<String, Double>> metrics() {
        return metrics;
    }

    /**
     * Whether an entry owned by {@code owner} is in a queue now (read directly); false while
     * ZooKeeper does not answer (a server killed by the campaign), for the caller to ask again.
     */
    boolean queued(String owner) {
        List<Entry> all = read(System.currentTimeMillis());
        return all != null && all.stream().anyMatch(e -> owner.equals(e.owner()));
    }

    /**
     * Every entry under the root now, read directly: what is left at the end. The faults have
     * stopped by then, so ZooKeeper answers within a few tries.
     *
     * @throws IllegalStateException if it did not answer in {@code 10} tries a second apart
     */
    List<Entry> now() {
        for (int i = 0; i < 10; i++) {
            List<Entry> all = read(System.currentTimeMillis());
            if (all != null) {
                return all;
            }
            ServiceCampaign.sleep(Duration.ofSeconds(1));
        }
        throw new IllegalStateException("ZooKeeper did not answer the read of what is left in the queues");
    }

    /**
     * One queue entry as read: its znode, its lock's znode, its fencing token and its data; for an
     * unconfirmed entry the session it is tied to and whether that session's marker was there.
     */
    record Entry(
            String path,
            String lock,
            long fencingToken,
            String owner,
            String request,
            boolean granted,
            boolean confirmed,
            long expiresAt,
            long waitUntil,
            String session,
            boolean sessionLive) {}

    /** An entry as its znode says, before its place in the queue is known. */
    private record Raw(
            String path,
            String lock,
            long fencingToken,
            String owner,
            String request,
            long expiresAt,
            long waitUntil,
            boolean confirmed,
            String replica) {

        /** Dead by the service's rule, with {@link #EXPIRY_SLACK} for the replicas' clock skew. */
        boolean dead(long now, Set<String> liveReplicas) {
            return expiresAt + EXPIRY_SLACK.toMillis() < now || (!confirmed && !liveReplicas.contains(replica));
        }
    }

    private void run() {
        int round = 0;
        while (!stopped) {
            long now = System.currentTimeMillis();
            try {
                observe(now);
                if (round % 2 == 0) {
                    list(replicas.get((round / 2) % replicas.size()), now);
                }
                if (round % 10 == 0) {
                    replicas.forEach(this::scrape);
                }
            } catch (RuntimeException e) {
                // ZooKeeper electing, a replica down: the next round reads again
            }
            round++;
            ServiceCampaign.sleep(PERIOD);
        }
    }

    /**
     * One read. {@code now}, taken before it, is when the read at the earliest saw what it saw: an
     * entry's data read is at least that recent (so a state read at or after an answer was heard is
     * one the answer's write is in). {@code by}, taken after it, is when the read at the latest saw it:
     * the time a grant, a removal or a session's end is known to have happened by.
     */
    private void observe(long now) {
        List<Entry> all = read(now);
        if (all == null) {
            return;
        }
        long by = System.currentTimeMillis();
        polls.add(by);
        Map<String, List<Entry>> byLock = new TreeMap<>();
        Set<String> seenNow = new HashSet<>();
        for (Entry e : all) {
            byLock.computeIfAbsent(e.lock(), k -> new ArrayList<>()).add(e);
            seenNow.add(e.path());
            Seen s = entries.computeIfAbsent(
                    e.path(), p -> new Seen(p, e.lock(), e.fencingToken(), e.owner(), e.request(), now));
            s.lastSeen = now;
            s.waitUntil = e.waitUntil();
            State last = s.states.isEmpty() ? null : s.states.getLast();
            if (last == null || last.confirmed() != e.confirmed() || last.expiresAt() != e.expiresAt()) {
                s.states.add(new State(now, now, e.confirmed(), e.expiresAt()));
            } else {
                s.states.set(s.states.size() - 1, new State(last.at(), now, last.confirmed(), last.expiresAt()));
            }
            if (!e.confirmed() && !e.sessionLive() && s.sessionEndedSeen == 0) {
                s.sessionEndedSeen = by;
            }
            if (e.granted() && e.confirmed()) {
                if (s.grantedSeen == 0) {
                    s.grantedSeen = by;
                }
                s.expiresAt = e.expiresAt();
            }
        }
        for (String gone : present) {
            if (!seenNow.contains(gone)) {
                removed(entries.get(gone), by);
            }
        }
        present = seenNow;
        List<String> held = new ArrayList<>();
        for (List<Entry> queue : byLock.values()) {
            queue.sort(Comparator.comparingLong(Entry::fencingToken)); // creation order: queue order
            Entry head = queue.get(0);
            if (head.granted()) {
                held.add(ServiceCampaign.keyOfLock(head.lock()));
            }
            if (queue.size() > 1) {
                snapshots.add(new QueueSnapshot(
                        by,
                        head.lock(),
                        queue.stream()
                                .map(e -> new QueueSnapshot.Slot(
                                        e.fencingToken(),
                                        e.owner(),
                                        e.confirmed(),
                                        e.session(),
                                        e.sessionLive(),
                                        e.expiresAt()))
                                .toList()));
            }
        }
        heldKeys = held;
        readAudit();
    }

    /**
     * An entry missing from this read: when it went. Every removal of an entry that may have been
     * granted writes its request's finished record in the same multi (docs/server.md, "Removals"),
     * so that record's creation time is the removal's, by ZooKeeper's clock; a record older than the
     * entry's last sighting is another entry's of the same request, and only the read that missed
     * it bounds the removal.
     */
    private void removed(Seen s, long now) {
        if (s == null || s.goneSeen != 0) {
            return;
        }
        s.goneSeen = now;
        String[] name = s.path.substring(s.path.lastIndexOf('/') + 1).split("-", 4); // e-<id>-<request>-<seq>
        if (name.length != 4 || name[2].length() < 3) {
            return;
        }
        String request = name[2];
        String record = lockDigest(s.lock) + "-" + request;
        long bucket = Math.floorDiv(now, REQUEST_RETENTION_MILLIS);
        for (long b = bucket + 1; b >= bucket - 1; b--) {
            Stat stat = new Stat();
            byte[] data;
            try {
                data = zk.getData()
                        .storingStatIn(stat)
                        .forPath(root + "/_done/b" + b + "/" + request.substring(1, 3) + "/" + record);
            } catch (KeeperException.NoNodeException notThere) {
                continue;
            } catch (Exception unavailable) {
                return; // ZooKeeper did not answer: the read that missed it bounds the removal
            }
            if (stat.getCtime() >= s.lastSeen) {
                s.removedAt = stat.getCtime();
                JsonNode json = parse(data);
                s.removedAs = json == null ? null : json.path("outcome").asText(null);
            }
            return;
        }
    }

    /**
     * 16 hex digits naming a lock in {@code _done} (the service's {@code ServicePaths.digest}: the
     * first 8 bytes of the path's SHA-256).
     */
    static String lockDigest(String lockPath) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(lockPath.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** New entries of the audit trail: a forced release that evicted a holder ends its lease on purpose. */
    private void readAudit() {
        List<String> names;
        try {
            names = children(root + "/_audit");
        } catch (Exception unavailable) {
            return;
        }
        for (String name : names) {
            if (auditRead.contains(name)) {
                continue;
            }
            Stat stat = new Stat();
            try {
                JsonNode json = parse(zk.getData().storingStatIn(stat).forPath(root + "/_audit/" + name));
                auditRead.add(name);
                if (json != null
                        && "RELEASED".equals(json.path("outcome").asText())
                        && json.path("fencingToken").asLong(0) > 0) {
                    evictions.putIfAbsent(json.get("fencingToken").asLong(), stat.getCtime());
                }
            } catch (KeeperException.NoNodeException trimmed) {
                auditRead.add(name);
            } catch (Exception unavailable) {
                return; // read again next time
            }
        }
    }

    /** Every entry under the root, or null if ZooKeeper did not answer. */
    private List<Entry> read(long now) {
        List<Raw> raw = new ArrayList<>();
        Set<String> liveReplicas;
        try {
            if (!sync(root)) {
                return null;
            }
            // The markers before and after the entries: a marker exists before any entry names its session and
            // goes only when the session ends. Missing from both reads, the session had ended before the entries
            // were read; missing only from the second, it ended meanwhile, maybe after the entry was confirmed
            // (a replica that stops confirms its leases, then closes its session): live for this read.
            Set<String> before = Set.copyOf(children(root + "/_replicas"));
            walk(root + "/" + ServiceCampaign.NAMESPACE, 0, raw);
            Set<String> after = new HashSet<>(children(root + "/_replicas"));
            after.addAll(before);
            liveReplicas = after;
        } catch (KeeperException.NoNodeException nothingYet) {
            return List.of();
        } catch (Exception e) {
            return null;
        }
        Map<String, Long> heads = new HashMap<>();
        for (Raw r : raw) {
            heads.merge(r.lock(), r.fencingToken(), Math::min);
        }
        List<Entry> out = new ArrayList<>();
        for (Raw r : raw) {
            boolean head = heads.get(r.lock()) == r.fencingToken();
            out.add(new Entry(
                    r.path(),
                    r.lock(),
                    r.fencingToken(),
                    r.owner(),
                    r.request(),
                    head && !r.dead(now, liveReplicas),
                    r.confirmed(),
                    r.expiresAt(),
                    r.waitUntil(),
                    r.confirmed() ? null : r.replica(),
                    r.confirmed() || liveReplicas.contains(r.replica())));
        }
        return out;
    }

    /**
     * A {@code sync} of {@code path}, waited for: the server this client reads from has then caught
     * up with the leader, and the reads sent after it on this session see at least what every
     * answer given before it saw.
     */
    private boolean sync(String path) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        int[] rc = {-1};
        zk.getZookeeperClient()
                .getZooKeeper()
                .sync(
                        path,
                        (code, p, ctx) -> {
                            rc[0] = code;
                            done.countDown();
                        },
                        null);
        return done.await(2, TimeUnit.SECONDS) && rc[0] == KeeperException.Code.OK.intValue();
    }

    private List<String> children(String path) throws Exception {
        try {
            return zk.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        }
    }

    /** The campaign's namespace: its locks, their entries (depth 1); nothing else under the root. */
    private void walk(String path, int depth, List<Raw> out) throws Exception {
        List<String> children;
        try {
            children = zk.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            if (depth == 0) {
                throw gone;
            }
            return;
        }
        for (String child : children) {
            String p = path + "/" + child;
            Stat stat = new Stat();
            byte[] data;
            try {
                data = zk.getData().storingStatIn(stat).forPath(p);
            } catch (KeeperException.NoNodeException gone) {
                continue;
            }
            JsonNode json = parse(data);
            if (json != null && json.hasNonNull("ownerId")) {
                out.add(new Raw(
                        p,
                        path,
                        stat.getCzxid(),
                        json.get("ownerId").asText(),
                        json.path("requestId").asText(null),
                        json.path("expiresAt").asLong(0),
                        json.path("waitUntil").asLong(0),
                        json.path("confirmed").asBoolean(true),
                        json.path("replica").asText(null)));
            } else if (depth == 0 && stat.getNumChildren() > 0) {
                walk(p, depth + 1, out);
            }
        }
    }

    private static JsonNode parse(byte[] data) {
        if (data == null || data.length == 0 || data[0] != '{') {
            return null;
        }
        try {
            return JSON.readTree(data);
        } catch (IOException notJson) {
            return null;
        }
    }

    private void list(Replica replica, long now) {
        try {
            HttpResponse<byte[]> r = http.send(
                    HttpRequest.newBuilder(URI.create(replica.directUrl() + "/v1/locks?namespace="
                                    + ServiceCampaign.NAMESPACE + "&limit=100"))
                            .timeout(Duration.ofSeconds(1))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                return;
            }
            for (JsonNode lock : JSON.readTree(r.body()).path("locks")) {
                long token = lock.path("fencingToken").asLong(0);
                if (token > 0) {
                    listed.putIfAbsent(
                            token,
                            new Listed(
                                    lock.path("lockKey").asText(),
                                    lock.path("ownerId").asText(),
                                    token,
                                    now));
                }
            }
        } catch (IOException unavailable) {
            // the replica is down, paused or cut off: another one answers next time
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void scrape(Replica replica) {
        try {
            String incarnation = replica.name + "#" + replica.incarnation();
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(replica.directUrl() + "/metrics"))
                            .timeout(Duration.ofSeconds(1))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                metrics.put(incarnation, PrometheusText.parse(r.body()));
            }
        } catch (IOException unavailable) {
            // down or paused: the last scrape of this incarnation stands
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Scrapes every replica once more (before they stop). */
    void scrapeAll() {
        replicas.forEach(this::scrape);
    }

    @Override
    public void close() {
        stopped = true;
        try {
            poller.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        zk.close();
    }
}
