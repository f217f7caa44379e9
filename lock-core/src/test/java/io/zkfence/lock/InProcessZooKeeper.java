package io.zkfence.lock;

import io.zkfence.lock.internal.ZkGateway;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The ZooKeeper a client sees, in-process, for tests whose scheduler drives every thread (see
 * {@link World}): the znodes of one ensemble and one session, the client's. A controlled scheduler
 * cannot drive a real ZooKeeper's network threads; this one runs on the world's
 * {@link World.Lane#ZOOKEEPER} lane, which applies and answers every request in the order it was
 * sent, as a server does for one session, and delivers the watch events a change fires on that lane
 * before the change's answer, as ZooKeeper's event thread does.
 *
 * <p>What it keeps of ZooKeeper's semantics: a sequential node's suffix is its parent's cversion
 * (bumped by every child create and delete), every change takes the next zxid (a node's token is
 * its creation zxid), ephemeral nodes carry their session, a data watch fires once (NodeDeleted),
 * and a missing parent or node answers NONODE. Other processes' nodes are made by the test, at
 * once ({@link #createNow}) or as a request from another session that takes its turn on the lane
 * ({@link #createAs}, {@link #deleteAs}).
 */
final class InProcessZooKeeper implements ZkGateway {

    /** The client's session. */
    static final long SESSION = 0x1001;

    private static final class Znode {
        byte[] data;
        final long czxid;
        final long owner;
        int cversion;
        final Set<String> children = new LinkedHashSet<>();

        Znode(byte[] data, long czxid, long owner) {
            this.data = data;
            this.czxid = czxid;
            this.owner = owner;
        }

        Stat stat() {
            Stat stat = new Stat();
            stat.setCzxid(czxid);
            stat.setMzxid(czxid);
            stat.setEphemeralOwner(owner);
            stat.setCversion(cversion);
            stat.setNumChildren(children.size());
            return stat;
        }
    }

    private final World world;
    // Guarded by this.
    private final Map<String, Znode> nodes = new HashMap<>();
    private final Map<String, List<Watcher>> dataWatches = new HashMap<>();
    /** Epoch 1: tokens look like a real ensemble's. */
    private long zxid = 1L << 32;

    private int creates;
    /** The client's reads, in the order sent. */
    private final List<String> reads = new ArrayList<>();
    /** Deletes of the client's own nodes sent so far. */
    private int ownDeletes;
    /** A path whose next children read is served by a server that lags (see {@link #lagNextChildrenRead}). */
    private String lagging;

    InProcessZooKeeper(World world, String... paths) {
        this.world = world;
        nodes.put("/", new Znode(new byte[0], 0, 0));
        for (String path : paths) {
            createContainersNow(path);
        }
    }

    // ---- the test's side ----

    /** Creates a sequential node of {@code session} under {@code parent} at once; returns its name. */
    synchronized String createNow(String parent, String prefix, long session) {
        return apply(parent + "/" + prefix, new byte[0], session, true);
    }

    /** Another session's create, sent now: it takes its turn on the ZooKeeper lane. Returns the answer. */
    CompletableFuture<String> createAs(String parent, String prefix, long session) {
        return request(() -> createNow(parent, prefix, session));
    }

    /** Another session's delete of {@code path}, sent now: a waiter giving up, a session expiring. */
    CompletableFuture<Void> deleteAs(String path) {
        return delete(path, -1);
    }

    /**
     * Another session's release of its granted node {@code path}, sent now: the delete and the
     * {@link ReleaseRecord} on the lock's znode, in one transaction, as lock-core releases.
     */
    CompletableFuture<Void> releaseAs(String path) {
        return deleteRecording(path, parentOf(path), ReleaseRecord.encode(path.substring(path.lastIndexOf('/') + 1)));
    }

    /** Waits (up to a minute, without a clock of its own) until someone watches {@code path}'s data. */
    synchronized void awaitWatched(String path) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (dataWatches.getOrDefault(path, List.of()).isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("nobody watched " + path + " within a minute; reads: " + reads);
            }
            wait(left / 1_000_000 + 1);
        }
    }

    /** The data of {@code path} now. */
    synchronized byte[] dataNow(String path) {
        return existing(path).data;
    }

    /** How many reads the client has sent so far (see {@link #readsSince}). */
    synchronized int readsSent() {
        return reads.size();
    }

    /**
     * The reads the client sent after the first {@code mark}, in order: {@code children <path>},
     * {@code read <path>} or {@code watch <path>}.
     */
    synchronized List<String> readsSince(int mark) {
        return List.copyOf(reads.subList(mark, reads.size()));
    }

    /**
     * The client's next read of {@code path}'s children is answered by a server that has not yet
     * applied other sessions' creates there (ZooKeeper serves reads from the server a client is
     * connected to, which may lag): it sees the client's own children only.
     */
    synchronized void lagNextChildrenRead(String path) {
        lagging = path;
    }

    /** The children of {@code path} now. */
    synchronized List<String> childrenNow(String path) {
        Znode n = nodes.get(path);
        return n == null ? List.of() : List.copyOf(n.children);
    }

    /** The nodes the client's session owns now. */
    synchronized List<String> nodesOfClient() {
        return nodes.entrySet().stream()
                .filter(e -> e.getValue().owner == SESSION)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    /** Waits until the client has sent a delete of one of its own nodes (without a clock). */
    synchronized void awaitOwnDeleteSent() throws InterruptedException {
        while (ownDeletes == 0) {
            wait();
        }
    }

    /** The EPHEMERAL_SEQUENTIAL creates the client sent so far. */
    synchronized int creates() {
        return creates;
    }

    // ---- ZkGateway: the requests lock-core sends ----

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        synchronized (this) {
            if (mode == CreateMode.EPHEMERAL_SEQUENTIAL) {
                creates++;
            }
        }
        return request(() -> {
            synchronized (this) {
                String name = apply(path, data, mode.isEphemeral() ? SESSION : 0, mode.isSequential());
                return new Created(name, nodes.get(parentOf(path) + "/" + name).stat());
            }
        });
    }

    @Override
    public CompletableFuture<Children> children(String path, Watcher watcher) {
        if (watcher != null) {
            throw notModelled("a watch on children");
        }
        sent("children", path);
        return request(() -> {
            synchronized (this) {
                Znode n = existing(path);
                List<String> children = List.copyOf(n.children);
                if (path.equals(lagging)) {
                    lagging = null;
                    children = children.stream()
                            .filter(c -> nodes.get(path + "/" + c).owner == SESSION)
                            .toList();
                }
                return new Children(children, n.stat());
            }
        });
    }

    @Override
    public CompletableFuture<NodeContent> getData(String path, Watcher watcher) {
        sent(watcher == null ? "read" : "watch", path);
        return request(() -> {
            synchronized (this) {
                Znode n = existing(path);
                if (watcher != null) {
                    dataWatches.computeIfAbsent(path, p -> new ArrayList<>()).add(watcher);
                    notifyAll();
                }
                return new NodeContent(n.data, n.stat());
            }
        });
    }

    @Override
    public CompletableFuture<Void> delete(String path, int version) {
        if (version != -1) {
            throw notModelled("a versioned delete");
        }
        return deleteRecording(path, null, null);
    }

    /** A delete, and with a {@code record} also a set of {@code lockPath}'s data, as one transaction. */
    private CompletableFuture<Void> deleteRecording(String path, String lockPath, byte[] record) {
        synchronized (this) {
            Znode n = nodes.get(path);
            if (n != null && n.owner == SESSION) {
                ownDeletes++;
                notifyAll();
            }
        }
        return request(() -> {
            List<Watcher> fired;
            synchronized (this) {
                Znode n = existing(path);
                if (!n.children.isEmpty()) {
                    throw new CompletionFailure(KeeperException.create(KeeperException.Code.NOTEMPTY, path));
                }
                Znode recorded = record == null ? null : existing(lockPath);
                nodes.remove(path);
                Znode parent = nodes.get(parentOf(path));
                parent.children.remove(path.substring(path.lastIndexOf('/') + 1));
                parent.cversion++;
                if (recorded != null) {
                    recorded.data = record;
                }
                zxid++;
                fired = dataWatches.remove(path);
            }
            if (fired != null) {
                // Watch events first, then the answer: the order ZooKeeper's event thread keeps.
                WatchedEvent deleted = new WatchedEvent(
                        Watcher.Event.EventType.NodeDeleted, Watcher.Event.KeeperState.SyncConnected, path);
                fired.forEach(w -> w.process(deleted));
            }
            return null;
        });
    }

    @Override
    public void deleteSync(String path) throws KeeperException, InterruptedException {
        try {
            delete(path, -1).get();
        } catch (ExecutionException e) {
            throw (KeeperException) e.getCause();
        }
    }

    @Override
    public void deleteSyncRecording(String nodePath, String lockPath, byte[] record)
            throws KeeperException, InterruptedException {
        try {
            deleteRecording(nodePath, lockPath, record).get();
        } catch (ExecutionException e) {
            throw (KeeperException) e.getCause();
        }
    }

    @Override
    public synchronized void removeWatch(String path, Watcher watcher) {
        List<Watcher> watchers = dataWatches.get(path);
        if (watchers != null) {
            watchers.remove(watcher);
        }
    }

    @Override
    public void createContainers(String path) throws KeeperException, InterruptedException {
        try {
            request(() -> {
                        createContainersNow(path);
                        return null;
                    })
                    .get();
        } catch (ExecutionException e) {
            throw (KeeperException) e.getCause();
        }
    }

    @Override
    public boolean isConnected() {
        return true;
    }

    @Override
    public long sessionId() {
        return SESSION;
    }

    @Override
    public int sessionTimeoutMs() {
        return 10_000;
    }

    /** The one connection never drops, so it is never made again. */
    @Override
    public Runnable onConnected(Runnable listener) {
        return () -> {};
    }

    // The lock service's requests and a multi's ops: lock-core sends none, so this model has none.

    @Override
    public List<ACL> acl() {
        throw notModelled("multi, and so needs no ACL for a multi's ops");
    }

    @Override
    public String fullPath(String path) {
        throw notModelled("multi, and so needs no full path for a multi's ops");
    }

    @Override
    public CompletableFuture<Stat> exists(String path, Watcher watcher) {
        throw notModelled("exists");
    }

    @Override
    public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        throw notModelled("setData");
    }

    @Override
    public CompletableFuture<MultiAnswer> multi(List<Op> ops) {
        throw notModelled("multi");
    }

    @Override
    public CompletableFuture<Void> sync(String path) {
        throw notModelled("sync");
    }

    private static UnsupportedOperationException notModelled(String request) {
        return new UnsupportedOperationException(
                "the in-process ZooKeeper models the requests lock-core sends, and lock-core sends no " + request);
    }

    // ---- the server ----

    private synchronized void sent(String what, String path) {
        reads.add(what + " " + path);
    }

    /** A request sent now: applied and answered in turn on the ZooKeeper lane. */
    private <T> CompletableFuture<T> request(Supplier<T> apply) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        world.post(World.Lane.ZOOKEEPER, () -> {
            T value;
            try {
                value = apply.get();
            } catch (CompletionFailure e) {
                answer.completeExceptionally(e.getCause());
                return;
            }
            answer.complete(value);
        });
        return answer;
    }

    /** Under the monitor: creates {@code path} (with the sequence suffix if {@code sequential}); returns its name. */
    private String apply(String path, byte[] data, long owner, boolean sequential) {
        Znode parent = existing(parentOf(path));
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (sequential) {
            // ZooKeeper's %010d, written out: String.format loads locale data the model checker cannot run.
            String sequence = Integer.toString(parent.cversion);
            name += "0".repeat(10 - sequence.length()) + sequence;
        }
        String full = parentOf(path) + "/" + name;
        if (nodes.containsKey(full)) {
            throw new CompletionFailure(KeeperException.create(KeeperException.Code.NODEEXISTS, full));
        }
        parent.cversion++;
        parent.children.add(name);
        nodes.put(full, new Znode(data, ++zxid, owner));
        return name;
    }

    private synchronized void createContainersNow(String path) {
        StringBuilder at = new StringBuilder();
        for (String part : path.substring(1).split("/")) {
            String parent = at.length() == 0 ? "/" : at.toString();
            at.append('/').append(part);
            if (!nodes.containsKey(at.toString())) {
                nodes.get(parent).children.add(part);
                nodes.put(at.toString(), new Znode(new byte[0], ++zxid, 0));
            }
        }
    }

    private Znode existing(String path) {
        Znode n = nodes.get(path);
        if (n == null) {
            throw new CompletionFailure(KeeperException.create(KeeperException.Code.NONODE, path));
        }
        return n;
    }

    private static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    /** A request's error answer, carried out of the apply step. */
    private static final class CompletionFailure extends RuntimeException {
        CompletionFailure(KeeperException cause) {
            super(cause);
        }

        @Override
        public synchronized KeeperException getCause() {
            return (KeeperException) super.getCause();
        }
    }
}
