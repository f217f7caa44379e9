package io.zkfence.campaigns.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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
 * <li>ZooKeeper read directly under the service's root (no replica in between, nothing written):
 *     every queue entry, its owner and request, whether it is granted, its fencing token (the
 *     entry's creation zxid), and how long a dead entry stood at the head of its queue with others
 *     waiting behind it. An entry is a znode whose data is a JSON object with an {@code ownerId}.
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
        /** How the entry blocked its key at its longest stretch: {@code waiting} or {@code expired}. */
        String blockedAs;
        /** The current (or last) stretch at the head of its queue, waiting, with others behind it. */
        long blockedFrom;

        long blockedTo;
        /** The longest such stretch. */
        long longestBlockedFrom;

        long longestBlockedTo;

        long longestBlockedMillis() {
            return longestBlockedTo - longestBlockedFrom;
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
    private final Map<Long, Listed> listed = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Double>> metrics = new ConcurrentHashMap<>();
    private volatile List<String> heldKeys = List.of();
    private volatile boolean stopped;
    private final Thread poller;
    private long lastPoll;

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

    /** The last {@code /metrics} scrape of each replica incarnation ({@code r0#2} → meter → value). */
    Map<String, Map<String, Double>> metrics() {
        return metrics;
    }

    /** Whether an entry owned by {@code owner} is in a queue now (read directly). */
    boolean queued(String owner) {
        return read(System.currentTimeMillis()).stream().anyMatch(e -> owner.equals(e.owner()));
    }

    /** Every entry under the root now, read directly: what is left at the end. */
    List<Entry> now() {
        return read(System.currentTimeMillis());
    }

    /** One queue entry as read: its znode, its lock's znode, its fencing token and its data. */
    record Entry(
            String path,
            String lock,
            long fencingToken,
            String owner,
            String request,
            boolean granted,
            boolean confirmed,
            long expiresAt,
            long waitUntil) {}

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

    private void observe(long now) {
        List<Entry> all = read(now);
        if (all == null) {
            return;
        }
        Map<String, List<Entry>> byLock = new TreeMap<>();
        for (Entry e : all) {
            byLock.computeIfAbsent(e.lock(), k -> new ArrayList<>()).add(e);
            Seen s = entries.computeIfAbsent(
                    e.path(), p -> new Seen(p, e.lock(), e.fencingToken(), e.owner(), e.request(), now));
            s.lastSeen = now;
            s.waitUntil = e.waitUntil();
            if (e.granted() && e.confirmed()) {
                if (s.grantedSeen == 0) {
                    s.grantedSeen = now;
                }
                s.expiresAt = e.expiresAt();
            }
        }
        List<String> held = new ArrayList<>();
        for (List<Entry> queue : byLock.values()) {
            queue.sort(Comparator.comparingLong(Entry::fencingToken)); // creation order: queue order
            Entry head = queue.get(0);
            if (head.granted()) {
                held.add(ServiceCampaign.keyOfLock(head.lock()));
            } else if (queue.size() > 1) {
                // A dead entry at the head with others behind it: nobody is granted until a replica
                // removes it.
                Seen s = entries.get(head.path());
                if (s.blockedTo == 0 || s.blockedTo != lastPoll) {
                    s.blockedFrom = now; // a new stretch: it was not blocking at the last read
                }
                s.blockedTo = now;
                if (s.blockedTo - s.blockedFrom > s.longestBlockedMillis()) {
                    s.longestBlockedFrom = s.blockedFrom;
                    s.longestBlockedTo = s.blockedTo;
                    s.blockedAs = head.expiresAt() + EXPIRY_SLACK.toMillis() < now ? "expired" : "waiting";
                }
            }
        }
        heldKeys = held;
        lastPoll = now;
    }

    /** Every entry under the root, or null if ZooKeeper did not answer. */
    private List<Entry> read(long now) {
        List<Raw> raw = new ArrayList<>();
        Set<String> liveReplicas;
        try {
            liveReplicas = Set.copyOf(children(root + "/_replicas"));
            walk(root + "/" + ServiceCampaign.NAMESPACE, 0, raw);
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
                    r.waitUntil()));
        }
        return out;
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
