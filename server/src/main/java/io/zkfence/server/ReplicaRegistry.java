package io.zkfence.server;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which replicas are alive, as ZooKeeper sees them: each replica keeps an ephemeral marker
 * {@code <root>/_replicas/<session id in hex>} for its current session, and watches the others'.
 *
 * <p>A waiting acquire's entry names the session of the replica whose call waits for it, and is
 * created only while that session's marker exists (the create's multi checks it). When the
 * session ends (the replica crashed, was cut off, or stopped), ZooKeeper deletes the marker, and
 * every replica may delete that replica's unconfirmed entries: a crashed replica's waiters stop
 * blocking the queue within the session timeout. Waiters behind such an entry are woken through
 * {@link #onGone}.
 *
 * <p>A session once gone never comes back (ZooKeeper never reuses a session id), so "gone" is
 * final; a session this replica has not seen yet is looked up directly.
 */
final class ReplicaRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaRegistry.class);
    private static final int GONE_REMEMBERED = 10_000;

    private final ZkWire wire;
    private final String path;
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    private final Map<String, Boolean> gone = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > GONE_REMEMBERED;
        }
    };
    private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
    private final Watcher onChange = this::childrenChanged;
    private volatile Runnable stopListening = () -> {};
    private volatile boolean closed;

    ReplicaRegistry(ZkWire wire, String root) {
        this.wire = wire;
        this.path = root + "/_replicas";
    }

    /** Creates this replica's marker and starts watching the others'. */
    void start() {
        try {
            wire.call("creating " + path, () -> wire.create(path, new byte[0], CreateMode.PERSISTENT));
        } catch (KeeperException.NodeExistsException exists) {
            // Another replica made it first: what we wanted.
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("creating " + path, e);
        }
        ensureOwnMarker();
        stopListening = wire.onConnected(this::connected);
        refresh();
    }

    /** This replica's current session, as entries name it (hex). */
    String self() {
        return Long.toHexString(wire.sessionId());
    }

    /** The marker of {@code session}. */
    String markerPath(String session) {
        return path + "/" + session;
    }

    /**
     * Creates the marker of this replica's current session if it is missing (a new session after
     * an expiry has none until this runs).
     */
    void ensureOwnMarker() {
        String session = self();
        try {
            wire.call(
                    "registering this replica",
                    () -> wire.create(markerPath(session), new byte[0], CreateMode.EPHEMERAL));
            live.add(session);
        } catch (KeeperException.NodeExistsException exists) {
            live.add(session);
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("registering this replica", e);
        }
    }

    /**
     * Whether the replica session {@code session} is alive. For a session not seen yet, the
     * marker is looked up: an entry naming it was created while the marker existed, and that read
     * of the entry came from this same connection, so a marker missing now has gone since.
     */
    boolean alive(String session) {
        if (session == null || live.contains(session)) {
            return true;
        }
        synchronized (gone) {
            if (gone.containsKey(session)) {
                return false;
            }
        }
        boolean exists;
        try {
            exists = wire.call("looking up replica " + session, () -> wire.exists(markerPath(session), null)) != null;
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("looking up replica " + session, e);
        }
        if (exists) {
            live.add(session);
        } else {
            markGone(session);
        }
        return exists;
    }

    /**
     * Runs {@code wake} once when {@code session} ends (at once if it has ended already).
     *
     * @return stops that; a wake under way may still run, so it must be harmless late
     */
    Runnable onGone(String session, Runnable wake) {
        Set<Runnable> set = listeners.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet());
        set.add(wake);
        synchronized (gone) {
            if (gone.containsKey(session)) {
                wake.run();
            }
        }
        return () -> set.remove(wake);
    }

    private void markGone(String session) {
        live.remove(session);
        synchronized (gone) {
            gone.put(session, Boolean.TRUE);
        }
        Set<Runnable> wakes = listeners.remove(session);
        if (wakes != null) {
            wakes.forEach(Runnable::run);
        }
    }

    /**
     * Reads the markers with a watch. Only sessions known alive before the read was sent can be
     * marked gone by it: one learned meanwhile may have been created after the read.
     */
    private void refresh() {
        if (closed) {
            return;
        }
        Set<String> before = new HashSet<>(live);
        wire.watchChildren(path, onChange).whenComplete((children, failure) -> {
            if (failure != null) {
                if (!closed) {
                    // The watch is re-armed when the connection comes back (connectionChanged).
                    log.debug("reading the replica markers failed: {}", failure.toString());
                }
                return;
            }
            Set<String> now = new HashSet<>(children.names());
            live.addAll(now);
            for (String session : before) {
                if (!now.contains(session)) {
                    markGone(session);
                }
            }
        });
    }

    private void childrenChanged(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
            refresh();
        }
    }

    private void connected() {
        if (closed) {
            return;
        }
        // After a session expiry the new session has no marker and the old watch is gone.
        wire.scheduler().start("zkfence-replica-marker", () -> {
            try {
                ensureOwnMarker();
            } catch (LockServiceException e) {
                log.warn("could not register this replica again after a reconnect: {}", e.getMessage());
            }
            refresh();
        });
    }

    @Override
    public void close() {
        closed = true;
        stopListening.run();
    }
}
