package io.zkfence.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.zookeeper.data.Stat;

/**
 * One simulated ZooKeeper server's copy of the data tree, as it has applied the committed
 * transactions so far: nodes with their data, versions and zxids, as ZooKeeper keeps them (the
 * sequence of a sequential node is its parent's {@code cversion}; a transaction's zxid becomes
 * {@code czxid}, {@code mzxid} and the parent's {@code pzxid}).
 */
final class SimTree {

    /** A znode. */
    static final class Node {
        byte[] data;
        long czxid;
        long mzxid;
        long pzxid;
        int version;
        int cversion;
        long ephemeralOwner;
        boolean container;
        final TreeSet<String> children = new TreeSet<>();

        Node copy() {
            Node n = new Node();
            n.data = data;
            n.czxid = czxid;
            n.mzxid = mzxid;
            n.pzxid = pzxid;
            n.version = version;
            n.cversion = cversion;
            n.ephemeralOwner = ephemeralOwner;
            n.container = container;
            n.children.addAll(children);
            return n;
        }

        Stat stat() {
            return new Stat(
                    czxid, mzxid, 0, 0, version, cversion, 0, ephemeralOwner, data.length, children.size(), pzxid);
        }
    }

    /** One change of a transaction. */
    sealed interface Change {}

    record Create(String path, byte[] data, long ephemeralOwner, boolean container) implements Change {}

    record Delete(String path) implements Change {}

    record SetData(String path, byte[] data) implements Change {}

    /** A committed transaction: its zxid and changes (none for a refused write, which still takes a zxid). */
    record Txn(long zxid, List<Change> changes) {}

    private final Map<String, Node> nodes = new HashMap<>();
    private long applied;

    SimTree() {
        Node root = new Node();
        root.data = new byte[0];
        nodes.put("/", root);
    }

    /** A copy of {@code other}, as a server that has caught up with it. */
    static SimTree copyOf(SimTree other) {
        SimTree t = new SimTree();
        t.nodes.clear();
        other.nodes.forEach((p, n) -> t.nodes.put(p, n.copy()));
        t.applied = other.applied;
        return t;
    }

    Node get(String path) {
        return nodes.get(path);
    }

    /** The zxid of the last transaction applied. */
    long applied() {
        return applied;
    }

    /** Paths of every node, for the checker's scans. */
    Iterable<Map.Entry<String, Node>> all() {
        return nodes.entrySet();
    }

    /**
     * Applies {@code txn}: each change as ZooKeeper's data tree does it.
     *
     * @return the paths it changed, each with what happened to it, for the watches
     */
    List<Changed> apply(Txn txn) {
        List<Changed> out = new ArrayList<>();
        for (Change c : txn.changes()) {
            switch (c) {
                case Create cr -> {
                    Node n = new Node();
                    n.data = cr.data();
                    n.czxid = txn.zxid();
                    n.mzxid = txn.zxid();
                    n.pzxid = txn.zxid();
                    n.ephemeralOwner = cr.ephemeralOwner();
                    n.container = cr.container();
                    nodes.put(cr.path(), n);
                    Node parent = nodes.get(parent(cr.path()));
                    parent.children.add(name(cr.path()));
                    parent.cversion++;
                    parent.pzxid = txn.zxid();
                    out.add(new Changed(cr.path(), Kind.CREATED));
                }
                case Delete d -> {
                    nodes.remove(d.path());
                    Node parent = nodes.get(parent(d.path()));
                    parent.children.remove(name(d.path()));
                    parent.cversion++;
                    parent.pzxid = txn.zxid();
                    out.add(new Changed(d.path(), Kind.DELETED));
                }
                case SetData s -> {
                    Node n = nodes.get(s.path());
                    n.data = s.data();
                    n.version++;
                    n.mzxid = txn.zxid();
                    out.add(new Changed(s.path(), Kind.DATA));
                }
            }
        }
        applied = txn.zxid();
        return out;
    }

    enum Kind {
        CREATED,
        DELETED,
        DATA
    }

    record Changed(String path, Kind kind) {}

    static String parent(String path) {
        int i = path.lastIndexOf('/');
        return i == 0 ? "/" : path.substring(0, i);
    }

    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
