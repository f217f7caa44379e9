package io.zkfence.server;

import io.zkfence.lock.internal.ZkGateway;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * A simulated ZooKeeper ensemble of three servers, as the service meets one: a leader that orders
 * every write (zxid = epoch and counter), followers that apply the committed transactions after a
 * lag of their own and answer reads from what they have applied, sessions that expire a full
 * timeout after the last request or ping reached the leader (every timeout starts again when a new
 * leader is elected), ephemeral nodes deleted with their session, one-shot watches fired by the
 * server that applies the change, {@code sync}, multi with per-operation results, and the faults:
 * a server killed, a leader election, a follower cut off from its leader (it goes on answering
 * reads and pings, touching nothing at the leader, until it gives up after the sync limit), a
 * follower that lags, a connection dropped after a write was sent (the write may commit, its
 * answer is lost), and an empty container node removed.
 *
 * <p>The ensemble's committed state is {@link #truth()}: what the invariants judge by.
 */
final class SimEnsemble {

    static final int SERVERS = 3;

    /** What the checker hears of the ensemble. */
    interface Observer {
        /** A transaction committed at the leader; {@code tag} names the call that sent it (null: none). */
        void committed(SimTree.Txn txn, String tag, Map<String, byte[]> deletedData);

        /** A session closed (expired or closed by its client). */
        void sessionClosed(long session);
    }

    /** A session as the leader tracks it. */
    static final class Session {
        final long id;
        final int timeoutMs;
        long lastTouch;
        boolean closed;
        long closedAt;
        final Set<String> ephemerals = new LinkedHashSet<>();

        Session(long id, int timeoutMs, long now) {
            this.id = id;
            this.timeoutMs = timeoutMs;
            this.lastTouch = now;
        }
    }

    /** A watch set at a server. */
    record Watch(SimZkClient client, org.apache.zookeeper.Watcher watcher, WatchKind kind) {}

    enum WatchKind {
        DATA,
        EXISTS,
        CHILD
    }

    /** One server. */
    final class Server {
        final int id;
        SimTree tree;
        boolean up = true;
        /** Cut off from the leader: it still serves its clients until it gives up ({@link #dropped}). */
        boolean isolated;
        /** Gave up on the leader: serves nobody until it is back in touch. */
        boolean dropped;

        long lagMicros;
        private long lastApplyAt;
        private int appliedIndex;
        final Map<String, List<Watch>> watches = new HashMap<>();
        final List<SimZkClient> clients = new ArrayList<>();

        Server(int id) {
            this.id = id;
            this.tree = new SimTree();
        }

        boolean serving() {
            return up && !dropped && !electing;
        }

        /** In touch with a leader: its clients' writes, syncs and pings reach it. */
        boolean inSync() {
            return serving() && !isolated;
        }

        void addWatch(String path, SimZkClient client, org.apache.zookeeper.Watcher w, WatchKind kind) {
            watches.computeIfAbsent(path, p -> new ArrayList<>()).add(new Watch(client, w, kind));
        }

        @Override
        public String toString() {
            return "zk" + id;
        }
    }

    private final SimWorld world;
    private final SimTrace trace;
    private final SimConfig config;
    private final Server[] servers = new Server[SERVERS];
    private final SimTree truth = new SimTree();
    private final List<SimTree.Txn> log = new ArrayList<>();
    private final Map<Long, Session> sessions = new LinkedHashMap<>();
    private final List<Observer> observers = new ArrayList<>();
    private int leader;
    private boolean electing;
    private long epoch = 1;
    private long counter;
    private long nextSession = 0x1000;
    private long lastElection;

    SimEnsemble(SimWorld world, SimConfig config) {
        this.world = world;
        this.trace = world.trace();
        this.config = config;
        for (int i = 0; i < SERVERS; i++) {
            servers[i] = new Server(i);
        }
        world.after(config.tickMicros(), null, "zk-tick", this::tick);
    }

    void observe(Observer o) {
        observers.add(o);
    }

    SimTree truth() {
        return truth;
    }

    Session session(long id) {
        return sessions.get(id);
    }

    /** True if session {@code id} is open at the leader (it has not expired or been closed). */
    boolean sessionOpen(long id) {
        Session s = sessions.get(id);
        return s != null && !s.closed;
    }

    /** When the last election ended (µs): every session's timeout started again then. */
    long lastElection() {
        return lastElection;
    }

    Server server(int i) {
        return servers[i];
    }

    boolean electing() {
        return electing;
    }

    int leader() {
        return leader;
    }

    /** A server a client may connect to now and that has seen at least {@code zxid}, at random; null if none. */
    Server pickServer(long zxid) {
        List<Server> ok = new ArrayList<>();
        for (Server s : servers) {
            if (s.inSync() && s.tree.applied() >= zxid) {
                ok.add(s);
            }
        }
        return ok.isEmpty() ? null : ok.get(world.random().nextInt(ok.size()));
    }

    /** The network's latency for one message, µs. */
    long latency() {
        return config.latency(world);
    }

    // ---- sessions ----

    Session createSession(int timeoutMs) {
        Session s = new Session(nextSession++, timeoutMs, world.now());
        sessions.put(s.id, s);
        return s;
    }

    /** A request or ping of {@code session} reached {@code server}: the leader hears of it if the server is in touch. */
    void touch(Server server, long session) {
        Session s = sessions.get(session);
        if (s != null && !s.closed && server.inSync()) {
            s.lastTouch = world.now();
        }
    }

    /** Closes {@code session} (its client closed it, or it expired): its ephemeral nodes go in one transaction. */
    void closeSession(long id, String why) {
        Session s = sessions.get(id);
        if (s == null || s.closed) {
            return;
        }
        s.closed = true;
        s.closedAt = world.now();
        trace.add(world.now(), "zk", "session " + Long.toHexString(id) + " " + why);
        List<SimTree.Change> changes = new ArrayList<>();
        for (String path : s.ephemerals) {
            if (truth.get(path) != null) {
                changes.add(new SimTree.Delete(path));
            }
        }
        s.ephemerals.clear();
        commit(changes, null);
        observers.forEach(o -> o.sessionClosed(id));
        // The servers close the session's connection when they apply that transaction: here, at once.
        for (Server srv : servers) {
            for (SimZkClient c : new ArrayList<>(srv.clients)) {
                if (c.sessionId() == id) {
                    c.expiredByServer();
                }
            }
        }
    }

    private void tick() {
        if (!electing && servers[leader].up) {
            for (Session s : new ArrayList<>(sessions.values())) {
                if (!s.closed && world.now() - s.lastTouch > s.timeoutMs * 1000L) {
                    closeSession(s.id, "expired");
                }
            }
        }
        world.after(config.tickMicros(), null, "zk-tick", this::tick);
    }

    // ---- writes ----

    /** A write's outcome at the leader: the answer for the client and the zxid to wait for. */
    record Outcome(Object answer, KeeperException.Code code, long zxid) {}

    /**
     * Decides and commits a write at the leader: a multi, create, delete or setData. Refused
     * writes take a zxid too, as in ZooKeeper.
     */
    Outcome write(SimZkClient.Request r, long session, String tag) {
        Prep prep = new Prep();
        List<OpResult> results = new ArrayList<>();
        List<Op> ops = r.ops();
        int failed = -1;
        KeeperException.Code failure = KeeperException.Code.OK;
        for (int i = 0; i < ops.size(); i++) {
            try {
                results.add(prep.apply(ops.get(i), session));
            } catch (KeeperException e) {
                failed = i;
                failure = e.code();
                break;
            }
        }
        if (failed >= 0) {
            long zxid = commit(List.of(), tag);
            if (!r.isMulti()) {
                return new Outcome(null, failure, zxid);
            }
            List<OpResult> errs = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) {
                int code = i < failed
                        ? KeeperException.Code.OK.intValue()
                        : i == failed ? failure.intValue() : KeeperException.Code.RUNTIMEINCONSISTENCY.intValue();
                errs.add(new OpResult.ErrorResult(code));
            }
            return new Outcome(new ZkGateway.MultiAnswer(failure.intValue(), errs), failure, zxid);
        }
        long zxid = commit(prep.changes, tag);
        // Stats in results carry the transaction's zxid.
        List<OpResult> fixed = new ArrayList<>();
        for (OpResult res : results) {
            fixed.add(prep.withZxid(res, zxid));
        }
        for (SimTree.Change c : prep.changes) {
            if (c instanceof SimTree.Create cr && cr.ephemeralOwner() != 0) {
                sessions.get(cr.ephemeralOwner()).ephemerals.add(cr.path());
            }
            if (c instanceof SimTree.Delete d) {
                for (Session s : sessions.values()) {
                    s.ephemerals.remove(d.path());
                }
            }
        }
        if (r.isMulti()) {
            return new Outcome(new ZkGateway.MultiAnswer(0, fixed), KeeperException.Code.OK, zxid);
        }
        OpResult only = fixed.get(0);
        Object answer = switch (only) {
            case OpResult.CreateResult cr ->
                new ZkGateway.Created(cr.getPath().substring(cr.getPath().lastIndexOf('/') + 1), cr.getStat());
            case OpResult.SetDataResult sd -> sd.getStat();
            default -> null;
        };
        return new Outcome(answer, KeeperException.Code.OK, zxid);
    }

    /** The leader's zxid now: what a sync waits for. */
    long committedZxid() {
        return truth.applied();
    }

    /** Commits {@code changes} (may be none: a refused write) at the leader; followers apply them after their lag. */
    private long commit(List<SimTree.Change> changes, String tag) {
        long zxid = (epoch << 32) | ++counter;
        Map<String, byte[]> deleted = new HashMap<>();
        for (SimTree.Change c : changes) {
            if (c instanceof SimTree.Delete d && truth.get(d.path()) != null) {
                deleted.put(d.path(), truth.get(d.path()).data);
            }
        }
        SimTree.Txn txn = new SimTree.Txn(zxid, List.copyOf(changes));
        String described = describe(changes);
        if (!described.isEmpty()) {
            trace.add(
                    world.now(),
                    "zk",
                    "commit " + Long.toHexString(zxid) + (tag == null ? "" : " by " + tag) + ":" + described);
        }
        truth.apply(txn);
        log.add(txn);
        for (Observer o : observers) {
            o.committed(txn, tag, deleted);
        }
        for (Server s : servers) {
            scheduleApply(s);
        }
        return zxid;
    }

    /** The changes to queue entries and replica markers, in words (the rest is bookkeeping). */
    private String describe(List<SimTree.Change> changes) {
        StringBuilder b = new StringBuilder();
        for (SimTree.Change c : changes) {
            String path = switch (c) {
                case SimTree.Create cr -> cr.path();
                case SimTree.Delete d -> d.path();
                case SimTree.SetData sd -> sd.path();
            };
            String name = SimTree.name(path);
            boolean entry = name.startsWith("e-");
            boolean marker = SimTree.parent(path).endsWith("/_replicas");
            if (!entry && !marker) {
                continue;
            }
            String where = entry ? SimTree.name(SimTree.parent(path)) + "/" + name : "marker " + name;
            switch (c) {
                case SimTree.Create cr -> b.append(" create ").append(where).append(entry ? entryWords(cr.data()) : "");
                case SimTree.Delete d -> b.append(" delete ").append(where);
                case SimTree.SetData sd -> b.append(" write ").append(where).append(entryWords(sd.data()));
            }
            b.append(';');
        }
        return b.toString();
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper()
                    .configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** An entry's data in few words: owner, request, tie or confirmed, and its end in simulated seconds. */
    private static String entryWords(byte[] data) {
        try {
            EntryData d = JSON.readValue(data, EntryData.class);
            return " [" + d.ownerId() + (d.requestId() == null ? "" : " " + d.requestId())
                    + (d.standsAlone() ? " confirmed" : " tied to " + d.replica())
                    + String.format(" until %.3f s]", (d.expiresAt() - SimClock.EPOCH_MILLIS) / 1e3);
        } catch (java.io.IOException e) {
            return " [?]";
        }
    }

    private void scheduleApply(Server s) {
        if (!s.up || s.isolated) {
            return; // it catches up when it is back in touch
        }
        long at = s.id == leader ? world.now() : Math.max(s.lastApplyAt, world.now() + s.lagMicros + latency());
        s.lastApplyAt = at;
        world.at(at, null, "apply-" + s.id, () -> applyPending(s));
    }

    /** Applies at {@code s} every committed transaction it has not applied yet, firing its watches. */
    private void applyPending(Server s) {
        if (!s.up || s.isolated) {
            return;
        }
        while (s.appliedIndex < log.size()) {
            SimTree.Txn txn = log.get(s.appliedIndex++);
            for (SimTree.Changed ch : s.tree.apply(txn)) {
                fire(s, ch, txn.zxid());
            }
        }
        for (SimZkClient c : new ArrayList<>(s.clients)) {
            c.serverApplied(s);
        }
    }

    private void fire(Server s, SimTree.Changed ch, long zxid) {
        String path = ch.path();
        switch (ch.kind()) {
            case CREATED -> {
                fireOn(
                        s,
                        path,
                        zxid,
                        k -> k == WatchKind.EXISTS,
                        org.apache.zookeeper.Watcher.Event.EventType.NodeCreated);
                fireOn(
                        s,
                        SimTree.parent(path),
                        zxid,
                        k -> k == WatchKind.CHILD,
                        org.apache.zookeeper.Watcher.Event.EventType.NodeChildrenChanged);
            }
            case DELETED -> {
                fireOn(s, path, zxid, k -> true, org.apache.zookeeper.Watcher.Event.EventType.NodeDeleted);
                fireOn(
                        s,
                        SimTree.parent(path),
                        zxid,
                        k -> k == WatchKind.CHILD,
                        org.apache.zookeeper.Watcher.Event.EventType.NodeChildrenChanged);
            }
            case DATA ->
                fireOn(
                        s,
                        path,
                        zxid,
                        k -> k != WatchKind.CHILD,
                        org.apache.zookeeper.Watcher.Event.EventType.NodeDataChanged);
        }
    }

    private void fireOn(
            Server s,
            String path,
            long zxid,
            java.util.function.Predicate<WatchKind> which,
            org.apache.zookeeper.Watcher.Event.EventType type) {
        List<Watch> ws = s.watches.get(path);
        if (ws == null) {
            return;
        }
        List<Watch> fired = new ArrayList<>();
        ws.removeIf(w -> {
            if (which.test(w.kind())) {
                fired.add(w);
                return true;
            }
            return false;
        });
        for (Watch w : fired) {
            w.client().event(s, w, type, path, zxid);
        }
    }

    // ---- faults ----

    /** Kills server {@code i} (its clients lose their connection); an election follows if it led. */
    void killServer(int i) {
        Server s = servers[i];
        if (!s.up) {
            return;
        }
        trace.add(world.now(), "zk", "server " + i + " killed" + (i == leader ? " (the leader)" : ""));
        s.up = false;
        dropClients(s, "its server was killed");
        s.watches.clear();
        if (i == leader) {
            startElection();
        }
    }

    void restartServer(int i) {
        Server s = servers[i];
        if (s.up) {
            return;
        }
        trace.add(world.now(), "zk", "server " + i + " restarted");
        s.up = true;
        s.isolated = false;
        s.dropped = false;
        s.tree = SimTree.copyOf(truth);
        s.appliedIndex = log.size();
        if (electing) {
            finishElectionIfQuorum();
        }
    }

    /** A new leader election: every server drops its clients; sessions' timeouts start again at its end. */
    void startElection() {
        if (electing) {
            return;
        }
        electing = true;
        trace.add(world.now(), "zk", "leader election");
        for (Server s : servers) {
            dropClients(s, "leader election");
        }
        world.after(config.electionMicros(world), null, "zk-election", this::finishElectionIfQuorum);
    }

    private void finishElectionIfQuorum() {
        if (!electing) {
            return;
        }
        List<Server> up = new ArrayList<>();
        for (Server s : servers) {
            if (s.up && !s.isolated) {
                up.add(s);
            }
        }
        if (up.size() < 2) {
            return; // no quorum: a restart or a heal tries again
        }
        Server next = up.get(world.random().nextInt(up.size()));
        leader = next.id;
        epoch++;
        counter = 0;
        for (Server s : up) {
            s.tree = SimTree.copyOf(truth);
            s.appliedIndex = log.size();
            s.dropped = false;
            s.watches.clear();
        }
        for (Session s : sessions.values()) {
            if (!s.closed) {
                s.lastTouch = world.now();
            }
        }
        electing = false;
        lastElection = world.now();
        trace.add(world.now(), "zk", "leader is now server " + leader + " (epoch " + epoch + ")");
    }

    /**
     * Cuts follower {@code i} off from the leader for {@code micros}: it keeps serving its clients
     * (reads from what it has, pings answered, nothing reaching the leader) until it gives up
     * after the sync limit and drops them; then it catches up.
     */
    void isolate(int i, long micros) {
        Server s = servers[i];
        if (i == leader || !s.up || s.isolated) {
            return;
        }
        trace.add(world.now(), "zk", "server " + i + " cut off from the leader for " + micros / 1000 + " ms");
        s.isolated = true;
        world.after(config.syncLimitMicros(), null, "zk-isolation-" + i, () -> {
            if (s.isolated) {
                s.dropped = true;
                dropClients(s, "its server lost the leader");
            }
        });
        world.after(micros, null, "zk-isolation-" + i, () -> {
            if (!s.isolated) {
                return;
            }
            s.isolated = false;
            s.dropped = false;
            trace.add(world.now(), "zk", "server " + i + " back in touch with the leader");
            if (s.up) {
                applyPending(s);
                for (SimZkClient c : new ArrayList<>(s.clients)) {
                    c.serverBackInTouch(s);
                }
            }
            if (electing) {
                finishElectionIfQuorum();
            }
        });
    }

    /** Follower {@code i} applies commits {@code lagMicros} late for {@code micros}. */
    void lag(int i, long lagMicros, long micros) {
        Server s = servers[i];
        if (i == leader) {
            return;
        }
        trace.add(world.now(), "zk", "server " + i + " lags " + lagMicros / 1000 + " ms for " + micros / 1000 + " ms");
        s.lagMicros = lagMicros;
        world.after(micros, null, "zk-lag-" + i, () -> s.lagMicros = config.normalLagMicros());
    }

    /** ZooKeeper's container reaper: empty container nodes that had children are deleted. */
    void reapContainers() {
        if (electing) {
            return;
        }
        List<SimTree.Change> changes = new ArrayList<>();
        for (Map.Entry<String, SimTree.Node> e : truth.all()) {
            SimTree.Node n = e.getValue();
            if (n.container && n.children.isEmpty() && n.cversion > 0) {
                changes.add(new SimTree.Delete(e.getKey()));
            }
        }
        if (!changes.isEmpty()) {
            trace.add(world.now(), "zk", "container reaper removed " + changes.size() + " empty lock node(s)");
            commit(changes, "container-reaper");
        }
    }

    private void dropClients(Server s, String why) {
        for (SimZkClient c : new ArrayList<>(s.clients)) {
            c.disconnected(why);
        }
        s.clients.clear();
    }

    void detach(Server s, SimZkClient c) {
        s.clients.remove(c);
        for (List<Watch> ws : s.watches.values()) {
            ws.removeIf(w -> w.client() == c);
        }
    }

    void forEachServer(Consumer<Server> f) {
        for (Server s : servers) {
            f.accept(s);
        }
    }

    /** The leader's validation of one write, on a copy-on-write view of the committed tree. */
    private final class Prep {
        private final Map<String, SimTree.Node> changed = new HashMap<>();
        private final Set<String> deleted = new java.util.HashSet<>();
        final List<SimTree.Change> changes = new ArrayList<>();

        private SimTree.Node get(String path) {
            if (deleted.contains(path)) {
                return null;
            }
            SimTree.Node n = changed.get(path);
            return n != null ? n : truth.get(path);
        }

        private SimTree.Node mutable(String path) {
            SimTree.Node n = changed.get(path);
            if (n == null) {
                n = truth.get(path).copy();
                changed.put(path, n);
            }
            return n;
        }

        OpResult apply(Op op, long session) throws KeeperException {
            return switch (op.toRequestRecord()) {
                case CreateRequest c -> create(c, session);
                case DeleteRequest d -> delete(d);
                case SetDataRequest s -> setData(s);
                case CheckVersionRequest c -> check(c);
                default -> throw new IllegalArgumentException("the simulation has no " + op.getClass());
            };
        }

        private OpResult create(CreateRequest c, long session) throws KeeperException {
            CreateMode mode = CreateMode.fromFlag(c.getFlags());
            String parentPath = SimTree.parent(c.getPath());
            SimTree.Node parent = get(parentPath);
            if (parent == null) {
                throw KeeperException.create(KeeperException.Code.NONODE, c.getPath());
            }
            if (parent.ephemeralOwner != 0) {
                throw KeeperException.create(KeeperException.Code.NOCHILDRENFOREPHEMERALS, c.getPath());
            }
            String path = mode.isSequential() ? c.getPath() + String.format("%010d", parent.cversion) : c.getPath();
            if (get(path) != null) {
                throw KeeperException.create(KeeperException.Code.NODEEXISTS, path);
            }
            SimTree.Node p = mutable(parentPath);
            p.cversion++;
            p.children.add(SimTree.name(path));
            SimTree.Node n = new SimTree.Node();
            n.data = c.getData() == null ? new byte[0] : c.getData();
            n.ephemeralOwner = mode.isEphemeral() ? session : 0;
            n.container = mode.isContainer();
            deleted.remove(path);
            changed.put(path, n);
            changes.add(new SimTree.Create(path, n.data, n.ephemeralOwner, n.container));
            return new OpResult.CreateResult(path, n.stat());
        }

        private OpResult delete(DeleteRequest d) throws KeeperException {
            SimTree.Node n = get(d.getPath());
            if (n == null) {
                throw KeeperException.create(KeeperException.Code.NONODE, d.getPath());
            }
            if (d.getVersion() != -1 && d.getVersion() != n.version) {
                throw KeeperException.create(KeeperException.Code.BADVERSION, d.getPath());
            }
            if (!n.children.isEmpty()) {
                throw KeeperException.create(KeeperException.Code.NOTEMPTY, d.getPath());
            }
            SimTree.Node p = mutable(SimTree.parent(d.getPath()));
            p.cversion++;
            p.children.remove(SimTree.name(d.getPath()));
            changed.remove(d.getPath());
            deleted.add(d.getPath());
            changes.add(new SimTree.Delete(d.getPath()));
            return new OpResult.DeleteResult();
        }

        private OpResult setData(SetDataRequest s) throws KeeperException {
            SimTree.Node n = get(s.getPath());
            if (n == null) {
                throw KeeperException.create(KeeperException.Code.NONODE, s.getPath());
            }
            if (s.getVersion() != -1 && s.getVersion() != n.version) {
                throw KeeperException.create(KeeperException.Code.BADVERSION, s.getPath());
            }
            SimTree.Node m = mutable(s.getPath());
            m.data = s.getData() == null ? new byte[0] : s.getData();
            m.version++;
            changes.add(new SimTree.SetData(s.getPath(), m.data));
            return new OpResult.SetDataResult(m.stat());
        }

        private OpResult check(CheckVersionRequest c) throws KeeperException {
            SimTree.Node n = get(c.getPath());
            if (n == null) {
                throw KeeperException.create(KeeperException.Code.NONODE, c.getPath());
            }
            if (c.getVersion() != -1 && c.getVersion() != n.version) {
                throw KeeperException.create(KeeperException.Code.BADVERSION, c.getPath());
            }
            return new OpResult.CheckResult();
        }

        /** A result with the transaction's zxid in its stat (czxid for a create's, mzxid for a write's). */
        OpResult withZxid(OpResult r, long zxid) {
            return switch (r) {
                case OpResult.CreateResult cr -> {
                    org.apache.zookeeper.data.Stat s = cr.getStat();
                    s.setCzxid(zxid);
                    s.setMzxid(zxid);
                    s.setPzxid(zxid);
                    yield new OpResult.CreateResult(cr.getPath(), s);
                }
                case OpResult.SetDataResult sd -> {
                    org.apache.zookeeper.data.Stat s = sd.getStat();
                    s.setMzxid(zxid);
                    yield new OpResult.SetDataResult(s);
                }
                default -> r;
            };
        }
    }
}
