package io.zkfence.server;

import io.zkfence.lock.internal.CuratorClosedException;
import io.zkfence.lock.internal.ZkGateway;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * One replica's ZooKeeper client in the simulation, behind the same {@link ZkGateway} as the
 * real one (lock-core's {@code CuratorZkGateway}): a session, a connection to one server at a
 * time, requests answered in order, watches kept client-side and set again on a new server (fired
 * if the node changed since the last zxid the client saw, as ZooKeeper's {@code SetWatches} does),
 * a ping every third of the session timeout, and what a Curator client does after a connection
 * loss (reconnect to any server that is as up to date as the client) or a session expiry (every
 * watch told {@code Expired}, a new session, the listeners told). Between an expiry and the new
 * session, {@link #sessionId()} is 0, as a new ZooKeeper handle's is.
 *
 * <p>It serves the requests the service sends; lock-core's blocking ones and {@link #removeWatch}
 * the service never sends, and they are not modelled.
 *
 * <p>Everything the client itself sees (answers, watch events, the loss of its connection) is an
 * event of its replica's process: a paused replica sees it when it goes on.
 */
final class SimZkClient implements ZkGateway {

    enum Kind {
        MULTI,
        CREATE,
        DELETE,
        SET_DATA,
        CHILDREN,
        DATA,
        EXISTS,
        SYNC;

        boolean write() {
            return this == MULTI || this == CREATE || this == DELETE || this == SET_DATA;
        }
    }

    /** One request, as sent. */
    record Request(
            Kind kind, List<Op> ops, String path, Watcher watcher, CompletableFuture<Object> future, String tag) {
        boolean isMulti() {
            return kind == Kind.MULTI;
        }
    }

    private record Sent(Request request, int epoch) {}

    private enum State {
        CONNECTING,
        CONNECTED,
        CLOSED
    }

    private final SimWorld world;
    private final SimEnsemble ensemble;
    private final SimProcess process;
    private final SimConfig config;
    private final String name;
    private final int timeoutMs;
    private final String in;
    private final String out;

    // What the servers see.
    private SimEnsemble.Server server;
    private int epoch;
    private final Deque<Request> atServer = new ArrayDeque<>();
    private SimEnsemble.Outcome pendingOutcome;
    /** The write or sync at the head of {@link #atServer} once it went to the leader (it goes once). */
    private Request forwarded;

    private boolean loseNextWriteAnswer;
    private Runnable afterNextWrite;
    private int preferred = -1;
    private boolean cutOff;
    /**
     * What was sent either way while cut off, in order: the connection is TCP, so a cut shorter
     * than the read timeout delays it (delivered when the cut heals), and only a cut the client
     * notices loses it, with the connection (each message then finds its epoch gone).
     */
    private final List<Runnable> heldByTheCut = new ArrayList<>();

    // What the client itself knows.
    private State state = State.CONNECTING;
    private SimEnsemble.Session session;
    private int knownEpoch = -1;
    private long lastZxid;
    /** When the client last heard from its server (an answer, an event, a ping's answer). */
    private long lastHeard;

    private final Deque<Request> outgoing = new ArrayDeque<>();
    private final List<Sent> outstanding = new ArrayList<>();
    private final Map<String, List<Watcher>> dataWatches = new LinkedHashMap<>();
    private final Map<String, List<Watcher>> existWatches = new LinkedHashMap<>();
    private final Map<String, List<Watcher>> childWatches = new LinkedHashMap<>();
    private final List<Runnable> listeners = new ArrayList<>();

    SimZkClient(SimWorld world, SimEnsemble ensemble, SimProcess process, SimConfig config, int timeoutMs) {
        this.world = world;
        this.ensemble = ensemble;
        this.process = process;
        this.config = config;
        this.name = process.name();
        this.timeoutMs = timeoutMs;
        this.in = "zk>" + name + "#" + System.identityHashCode(this);
        this.out = name + "#" + System.identityHashCode(this) + ">zk";
        world.after(0, process, in, this::tryConnect);
        // As ZooKeeper's client does on each turn of its loop: a process that was stopped for longer
        // than the read timeout (two thirds of the session) drops its connection before it reads
        // anything that waited for it, and connects again (where the session may have expired).
        process.onResume(() -> {
            if (state == State.CONNECTED && world.now() - lastHeard > timeoutMs * 2000L / 3) {
                disconnected("read timeout after a pause");
            }
        });
    }

    // ---- ZkGateway ----

    /** The ACL is not modelled: every node is open. */
    @Override
    public List<ACL> acl() {
        return ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }

    /** No namespace: the service's paths are the ensemble's. */
    @Override
    public String fullPath(String path) {
        return path;
    }

    @Override
    public CompletableFuture<MultiAnswer> multi(List<Op> ops) {
        return send(new Request(
                Kind.MULTI, List.copyOf(ops), ops.get(0).getPath(), null, new CompletableFuture<>(), tag()));
    }

    @Override
    public CompletableFuture<Children> children(String path, Watcher watcher) {
        return send(new Request(Kind.CHILDREN, List.of(), path, watcher, new CompletableFuture<>(), tag()));
    }

    @Override
    public CompletableFuture<NodeContent> getData(String path, Watcher watcher) {
        return send(new Request(Kind.DATA, List.of(), path, watcher, new CompletableFuture<>(), tag()));
    }

    @Override
    public CompletableFuture<Stat> exists(String path, Watcher watcher) {
        return send(new Request(Kind.EXISTS, List.of(), path, watcher, new CompletableFuture<>(), tag()));
    }

    @Override
    public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        return send(new Request(
                Kind.SET_DATA, List.of(Op.setData(path, data, version)), path, null, new CompletableFuture<>(), tag()));
    }

    @Override
    public CompletableFuture<Void> delete(String path, int version) {
        return send(new Request(
                Kind.DELETE, List.of(Op.delete(path, version)), path, null, new CompletableFuture<>(), tag()));
    }

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        return send(new Request(
                Kind.CREATE,
                List.of(Op.create(path, data, acl(), mode)),
                path,
                null,
                new CompletableFuture<>(),
                tag()));
    }

    @Override
    public CompletableFuture<Void> sync(String path) {
        return send(new Request(Kind.SYNC, List.of(), path, null, new CompletableFuture<>(), tag()));
    }

    @Override
    public long sessionId() {
        return session == null ? 0 : session.id;
    }

    @Override
    public int sessionTimeoutMs() {
        return session == null ? 0 : timeoutMs;
    }

    @Override
    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public Runnable onConnected(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    @Override
    public void removeWatch(String path, Watcher watcher) {
        throw notModelled("removes no watch");
    }

    @Override
    public void deleteSync(String path) {
        throw notModelled("waits for its requests through its Scheduler, never on a blocking call");
    }

    @Override
    public void createContainers(String path) {
        throw notModelled("creates its znodes request by request (ZkWire.createPath)");
    }

    private static UnsupportedOperationException notModelled(String what) {
        return new UnsupportedOperationException(
                "the simulation models what the service sends, and the service " + what);
    }

    // ---- faults and the replica's life ----

    /** The replica's process was killed: the connection is reset, the session lives on until it expires. */
    void crashed() {
        state = State.CLOSED;
        dropServerSide();
    }

    /** A graceful close: the session ends now (its ephemeral nodes go) if its server reaches the leader, as ZooKeeper's {@code close()}. */
    void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        // ZooKeeper's close() sends the session's close to its server: it ends the session only if
        // that server reaches the leader; otherwise the session expires in its own time.
        if (session != null && server != null && server.inSync() && !cutOff) {
            ensemble.closeSession(session.id, "closed by " + name);
        }
        dropServerSide();
        failOutstanding(KeeperException.Code.CONNECTIONLOSS, Integer.MAX_VALUE);
    }

    /**
     * The replica cannot reach ZooKeeper for {@code micros}: it notices after its read timeout and
     * drops the connection; a shorter cut only delays what went either way meanwhile.
     */
    void cutOff(long micros) {
        if (cutOff || state == State.CLOSED) {
            return;
        }
        cutOff = true;
        world.trace().add(world.now(), name, "cut off from ZooKeeper for " + micros / 1000 + " ms");
        int at = epoch;
        world.after(timeoutMs * 2000L / 3, null, out, () -> {
            if (cutOff && epoch == at && server != null) {
                disconnected("read timeout (cut off)");
            }
        });
        world.after(micros, null, out, () -> {
            cutOff = false;
            List<Runnable> held = List.copyOf(heldByTheCut);
            heldByTheCut.clear();
            held.forEach(Runnable::run);
        });
    }

    /** The answer of this client's next write is lost with its connection, after the write commits. */
    void loseNextWriteAnswer() {
        loseNextWriteAnswer = true;
    }

    /** Runs {@code r} (on the world's thread) right after this client's next write commits at the leader. */
    void afterNextWriteCommits(Runnable r) {
        afterNextWrite = r;
    }

    /** Drops the connection now and connects again to server {@code i} (a scenario's choice). */
    void moveTo(int i) {
        preferred = i;
        disconnected("moved to server " + i);
    }

    /** The server this client is connected to (-1: none). */
    int serverIndex() {
        return server == null ? -1 : server.id;
    }

    /** The server dropped this client's connection (the client hears of it after a moment). */
    void disconnected(String why) {
        if (server == null) {
            return;
        }
        world.trace().add(world.now(), name, "ZooKeeper connection lost: " + why);
        dropServerSide();
        int lost = epoch - 1;
        world.message(in, ensemble.latency(), process, () -> noticeLoss(lost));
    }

    /** The session expired at the leader while connected: the server closes the connection saying so. */
    void expiredByServer() {
        if (server == null) {
            return;
        }
        dropServerSide();
        world.message(in, ensemble.latency(), process, this::expired);
    }

    // ---- requests ----

    private String tag() {
        SimWorld.Actor a = world.current();
        return a == null ? null : a.tag;
    }

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> send(Request r) {
        if (state == State.CLOSED) {
            if (process.dead()) {
                throw new SimWorld.SimKilled();
            }
            // As CuratorZkGateway once its Curator client is closed: nothing is sent.
            r.future().completeExceptionally(new CuratorClosedException());
        } else if (state == State.CONNECTED) {
            transmit(r);
        } else {
            outgoing.add(r);
        }
        return (CompletableFuture<T>) r.future();
    }

    private void transmit(Request r) {
        outstanding.add(new Sent(r, knownEpoch));
        SimEnsemble.Server s = server;
        int e = epoch;
        if (s == null || e != knownEpoch) {
            return; // lost on the way: the loss of the connection fails it
        }
        if (cutOff) {
            heldByTheCut.add(() -> world.message(out, ensemble.latency(), null, () -> arrive(s, e, r)));
            return;
        }
        world.message(out, ensemble.latency(), null, () -> arrive(s, e, r));
    }

    private void arrive(SimEnsemble.Server s, int e, Request r) {
        if (e != epoch || s != server || !s.serving()) {
            return;
        }
        ensemble.touch(s, session.id);
        atServer.add(r);
        if (atServer.size() == 1) {
            processNext(s, e);
        }
    }

    /** The session the server knows this connection by (null once it expired). */
    private long serverSession() {
        return session == null ? 0 : session.id;
    }

    /** The server works through this session's requests in order: a write or a sync holds the ones behind it. */
    private void processNext(SimEnsemble.Server s, int e) {
        while (e == epoch && s == server && !atServer.isEmpty()) {
            Request r = atServer.peek();
            if (r.kind().write() || r.kind() == Kind.SYNC) {
                if (!s.inSync() || forwarded == r) {
                    return; // held until the server is back in touch (or drops the connection), or on its way
                }
                forwarded = r;
                long sid = serverSession();
                world.message("s" + s.id + ">leader", ensemble.latency(), null, () -> atLeader(s, e, sid, r));
                return;
            }
            atServer.poll();
            read(s, e, r);
        }
    }

    /** The server is in touch with its leader again: requests held behind a write go on. */
    void serverBackInTouch(SimEnsemble.Server s) {
        if (s == server && !atServer.isEmpty() && pendingOutcome == null) {
            processNext(s, epoch);
        }
    }

    private void atLeader(SimEnsemble.Server s, int e, long sid, Request r) {
        if (ensemble.electing() || !ensemble.server(ensemble.leader()).up || !ensemble.sessionOpen(sid)) {
            return; // lost in the election (the connection goes too), or the session has ended
        }
        SimEnsemble.Outcome o = r.kind() == Kind.SYNC
                ? new SimEnsemble.Outcome(null, KeeperException.Code.OK, ensemble.committedZxid())
                : ensemble.write(r, sid, r.tag());
        if (r.kind().write() && afterNextWrite != null) {
            Runnable hook = afterNextWrite;
            afterNextWrite = null;
            hook.run();
        }
        if (r.kind().write() && loseNextWriteAnswer && e == epoch) {
            loseNextWriteAnswer = false;
            disconnected("the answer of a write was lost after it committed");
            return;
        }
        if (e != epoch || s != server) {
            return; // committed, but the connection is gone: nobody hears the answer
        }
        pendingOutcome = o;
        serverApplied(s);
    }

    /** {@code s} applied more transactions: a write or sync waiting for its zxid there is answered. */
    void serverApplied(SimEnsemble.Server s) {
        SimEnsemble.Outcome o = pendingOutcome;
        if (o == null || s != server || s.tree.applied() < o.zxid()) {
            return;
        }
        pendingOutcome = null;
        Request r = atServer.poll();
        forwarded = null;
        int e = epoch;
        long zxid = Math.max(o.zxid(), s.tree.applied());
        respond(e, r, o.code(), o.answer(), zxid);
        processNext(s, e);
    }

    private void read(SimEnsemble.Server s, int e, Request r) {
        SimTree.Node n = s.tree.get(r.path());
        long zxid = s.tree.applied();
        switch (r.kind()) {
            case CHILDREN -> {
                if (n == null) {
                    respond(e, r, KeeperException.Code.NONODE, null, zxid);
                } else {
                    if (r.watcher() != null) {
                        s.addWatch(r.path(), this, r.watcher(), SimEnsemble.WatchKind.CHILD);
                    }
                    respond(
                            e,
                            r,
                            KeeperException.Code.OK,
                            new ZkGateway.Children(new ArrayList<>(n.children), n.stat()),
                            zxid);
                }
            }
            case DATA -> {
                if (n == null) {
                    respond(e, r, KeeperException.Code.NONODE, null, zxid);
                } else {
                    if (r.watcher() != null) {
                        s.addWatch(r.path(), this, r.watcher(), SimEnsemble.WatchKind.DATA);
                    }
                    respond(e, r, KeeperException.Code.OK, new ZkGateway.NodeContent(n.data.clone(), n.stat()), zxid);
                }
            }
            case EXISTS -> {
                if (r.watcher() != null) {
                    s.addWatch(
                            r.path(),
                            this,
                            r.watcher(),
                            n == null ? SimEnsemble.WatchKind.EXISTS : SimEnsemble.WatchKind.DATA);
                }
                respond(e, r, KeeperException.Code.OK, n == null ? null : n.stat(), zxid);
            }
            default -> throw new IllegalStateException("not a read: " + r.kind());
        }
    }

    private void respond(int e, Request r, KeeperException.Code code, Object answer, long zxid) {
        if (cutOff) {
            // What was already on its way arrives; the rest when the cut heals (or never, with the connection).
            heldByTheCut.add(
                    () -> world.message(in, ensemble.latency(), process, () -> deliver(e, r, code, answer, zxid)));
            return;
        }
        world.message(in, ensemble.latency(), process, () -> deliver(e, r, code, answer, zxid));
    }

    private void deliver(int e, Request r, KeeperException.Code code, Object answer, long zxid) {
        if (e != knownEpoch || state != State.CONNECTED) {
            return; // the connection went: the loss failed this request
        }
        outstanding.removeIf(sent -> sent.request() == r);
        lastZxid = Math.max(lastZxid, zxid);
        lastHeard = world.now();
        if (r.watcher() != null && (code == KeeperException.Code.OK)) {
            Map<String, List<Watcher>> table = r.kind() == Kind.CHILDREN
                    ? childWatches
                    : r.kind() == Kind.EXISTS && answer == null ? existWatches : dataWatches;
            table.computeIfAbsent(r.path(), p -> new ArrayList<>()).add(r.watcher());
        }
        complete(r, code, answer);
    }

    private void complete(Request r, KeeperException.Code code, Object answer) {
        if (r.isMulti()) {
            // A multi's refusal is an answer (its code and per-operation results), not a failure.
            r.future().complete(answer != null ? answer : new MultiAnswer(code.intValue(), null));
        } else if (code == KeeperException.Code.OK) {
            r.future().complete(answer);
        } else {
            r.future().completeExceptionally(KeeperException.create(code, r.path()));
        }
    }

    // ---- watches ----

    /** A watch set at {@code s} fired; the event reaches the client in order with the answers. */
    void event(SimEnsemble.Server s, SimEnsemble.Watch w, EventType type, String path, long zxid) {
        if (s != server) {
            return;
        }
        int e = epoch;
        Runnable send = () -> world.message(in, ensemble.latency(), process, () -> {
            if (e != knownEpoch || state != State.CONNECTED) {
                return; // set again on the next server, which fires it if the node changed
            }
            lastZxid = Math.max(lastZxid, zxid);
            lastHeard = world.now();
            Map<String, List<Watcher>> table = switch (w.kind()) {
                case CHILD -> childWatches;
                case EXISTS -> existWatches;
                case DATA -> dataWatches;
            };
            List<Watcher> ws = table.get(path);
            if (ws != null && ws.remove(w.watcher())) {
                if (ws.isEmpty()) {
                    table.remove(path);
                }
                w.watcher().process(new WatchedEvent(type, KeeperState.SyncConnected, path, zxid));
            }
        });
        if (cutOff) {
            heldByTheCut.add(send); // or lost with the connection: then set again on the next server
        } else {
            send.run();
        }
    }

    private void tellAll(KeeperState state) {
        List<Watcher> all = new ArrayList<>();
        dataWatches.values().forEach(all::addAll);
        existWatches.values().forEach(all::addAll);
        childWatches.values().forEach(all::addAll);
        for (Watcher w : all) {
            w.process(new WatchedEvent(EventType.None, state, null));
        }
    }

    /** On a new server: each watch is set again there, and fired at once if its node changed since {@link #lastZxid}. */
    private void setWatchesAgain(SimEnsemble.Server s) {
        fireOrSet(s, dataWatches, SimEnsemble.WatchKind.DATA);
        fireOrSet(s, existWatches, SimEnsemble.WatchKind.EXISTS);
        fireOrSet(s, childWatches, SimEnsemble.WatchKind.CHILD);
    }

    private void fireOrSet(SimEnsemble.Server s, Map<String, List<Watcher>> table, SimEnsemble.WatchKind kind) {
        for (Map.Entry<String, List<Watcher>> e : new ArrayList<>(table.entrySet())) {
            SimTree.Node n = s.tree.get(e.getKey());
            EventType fire = switch (kind) {
                case DATA -> n == null ? EventType.NodeDeleted : n.mzxid > lastZxid ? EventType.NodeDataChanged : null;
                case EXISTS -> n != null ? EventType.NodeCreated : null;
                case CHILD ->
                    n == null ? EventType.NodeDeleted : n.pzxid > lastZxid ? EventType.NodeChildrenChanged : null;
            };
            for (Watcher w : new ArrayList<>(e.getValue())) {
                SimEnsemble.Watch watch = new SimEnsemble.Watch(this, w, kind);
                if (fire == null) {
                    s.addWatch(e.getKey(), this, w, kind);
                } else {
                    event(s, watch, fire, e.getKey(), s.tree.applied());
                }
            }
        }
    }

    // ---- connection and session ----

    private void dropServerSide() {
        if (server != null) {
            ensemble.detach(server, this);
        }
        server = null;
        epoch++;
        atServer.clear();
        pendingOutcome = null;
        forwarded = null;
    }

    private void noticeLoss(int lostEpoch) {
        if (state != State.CONNECTED || knownEpoch > lostEpoch) {
            return;
        }
        state = State.CONNECTING;
        failOutstanding(KeeperException.Code.CONNECTIONLOSS, lostEpoch);
        tellAll(KeeperState.Disconnected);
        world.after(config.reconnectMicros(world), process, in, this::tryConnect);
    }

    private void expired() {
        if (state == State.CLOSED) {
            return;
        }
        world.trace()
                .add(world.now(), name, "session " + Long.toHexString(sessionId()) + " expired (told by the server)");
        state = State.CONNECTING;
        failOutstanding(KeeperException.Code.SESSIONEXPIRED, Integer.MAX_VALUE);
        List<Request> queued = new ArrayList<>(outgoing);
        outgoing.clear();
        for (Request r : queued) {
            complete(r, KeeperException.Code.SESSIONEXPIRED, null);
        }
        tellAll(KeeperState.Expired);
        dataWatches.clear();
        existWatches.clear();
        childWatches.clear();
        session = null;
        world.after(config.reconnectMicros(world), process, in, this::tryConnect);
    }

    private void failOutstanding(KeeperException.Code code, int upToEpoch) {
        List<Sent> failed = new ArrayList<>();
        outstanding.removeIf(s -> {
            if (s.epoch() <= upToEpoch) {
                failed.add(s);
                return true;
            }
            return false;
        });
        for (Sent s : failed) {
            complete(s.request(), code, null);
        }
    }

    /** Connects to a server that has seen what this client has (a new session if it has none). */
    private void tryConnect() {
        if (state != State.CONNECTING) {
            return;
        }
        SimEnsemble.Server picked = cutOff ? null : ensemble.pickServer(lastZxid);
        if (preferred >= 0 && !cutOff) {
            SimEnsemble.Server p = ensemble.server(preferred);
            if (p.inSync() && p.tree.applied() >= lastZxid) {
                picked = p;
            }
        }
        SimEnsemble.Server s = picked;
        if (s == null) {
            world.after(config.reconnectMicros(world), process, in, this::tryConnect);
            return;
        }
        long roundTrip = 2 * ensemble.latency();
        world.after(roundTrip, process, in, () -> connectTo(s));
    }

    private void connectTo(SimEnsemble.Server s) {
        if (state != State.CONNECTING) {
            return;
        }
        if (cutOff || !s.inSync() || s.tree.applied() < lastZxid) {
            world.after(config.reconnectMicros(world), process, in, this::tryConnect);
            return;
        }
        boolean fresh = session == null;
        if (!fresh && !ensemble.sessionOpen(session.id)) {
            expired();
            return;
        }
        if (fresh) {
            session = ensemble.createSession(timeoutMs);
            world.trace().add(world.now(), name, "new ZooKeeper session " + Long.toHexString(session.id) + " on " + s);
        }
        ensemble.touch(s, session.id);
        server = s;
        s.clients.add(this);
        epoch++;
        knownEpoch = epoch;
        state = State.CONNECTED;
        lastHeard = world.now();
        if (!fresh) {
            tellAll(KeeperState.SyncConnected);
            setWatchesAgain(s);
        }
        List<Request> queued = new ArrayList<>(outgoing);
        outgoing.clear();
        for (Request r : queued) {
            transmit(r);
        }
        schedulePing(knownEpoch);
        for (Runnable l : new ArrayList<>(listeners)) {
            l.run();
        }
    }

    private void schedulePing(int e) {
        world.after(timeoutMs * 1000L / 3, process, in + "-ping", () -> {
            if (state != State.CONNECTED || knownEpoch != e) {
                return;
            }
            SimEnsemble.Server s = server;
            if (s != null && !cutOff && epoch == e) {
                world.message(out, ensemble.latency(), null, () -> {
                    if (epoch == e && s == server && s.serving() && !cutOff) {
                        ensemble.touch(s, session.id);
                        world.message(in, ensemble.latency(), process, () -> {
                            if (knownEpoch == e && state == State.CONNECTED) {
                                lastHeard = world.now();
                            }
                        });
                    }
                });
            }
            schedulePing(e);
        });
    }

    @Override
    public String toString() {
        return name + "'s ZooKeeper client";
    }
}
