package io.zkfence.bench;

import io.zkfence.lock.LockClient;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingZooKeeperServer;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;

/**
 * Three real ZooKeeper servers in this JVM (curator-test's TestingCluster, each with its own data
 * directory and transaction log), and sessions on them.
 *
 * <p>Every client of every variant connects to the same server, a follower, so that no variant is
 * favoured by landing on the leader (a follower forwards writes to the leader: one more hop, the
 * usual case for clients of a 3-server ensemble).
 */
final class ZkCluster implements AutoCloseable {

    static final int SIZE = 3;
    /** ZooKeeper's usual tick; sessions may be 4 s to 40 s. */
    static final int TICK_MS = 2_000;

    static final int SESSION_TIMEOUT_MS = 15_000;

    private static final Pattern RECEIVED = Pattern.compile("Received: (\\d+)");
    private static final Pattern ZXID = Pattern.compile("Zxid: 0x([0-9a-fA-F]+)");

    private final EmbeddedEnsemble ensemble;
    private final InstanceSpec pinned;
    private final boolean fsync;

    private ZkCluster(EmbeddedEnsemble ensemble, InstanceSpec pinned, boolean fsync) {
        this.ensemble = ensemble;
        this.pinned = pinned;
        this.fsync = fsync;
    }

    /**
     * Starts the ensemble. {@code fsync} sets ZooKeeper's {@code zookeeper.forceSync} (read by each
     * server's transaction log when it opens; ZooKeeper's default, and TestingCluster's, is "yes").
     * No per-host connection limit: hundreds of sessions come from 127.0.0.1.
     */
    static ZkCluster start(boolean fsync) {
        System.setProperty("zookeeper.forceSync", fsync ? "yes" : "no");
        EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder()
                .servers(SIZE)
                .tickTime(Duration.ofMillis(TICK_MS))
                .maxClientConnections(0)
                .start();
        try {
            return new ZkCluster(ensemble, follower(ensemble), fsync);
        } catch (RuntimeException e) {
            ensemble.close();
            throw e;
        }
    }

    /** A follower; start() returned only once the quorum had formed, so there is one. */
    private static InstanceSpec follower(EmbeddedEnsemble ensemble) {
        return ensemble.servers().stream()
                .filter(spec -> "follower".equals(ensemble.mode(spec)))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no follower in " + ensemble.connectString()));
    }

    boolean fsync() {
        return fsync;
    }

    /** The server every client connects to. */
    String connectString() {
        return "127.0.0.1:" + pinned.getPort();
    }

    String pinnedRole() {
        String mode = ensemble.mode(pinned);
        return mode.isEmpty() ? "down" : mode;
    }

    String dataDirectory() {
        return pinned.getDataDirectory().getAbsolutePath();
    }

    /** Requests the pinned server has received from clients so far (its 'srvr' counter). */
    long received() {
        Matcher m = RECEIVED.matcher(ensemble.srvr(pinned));
        if (!m.find()) {
            throw new IllegalStateException("'srvr' on " + connectString() + " gave no Received count");
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * The last transaction the pinned server has applied (its 'srvr' Zxid): every committed write
     * (a multi is one) moves it by one, so its growth over a block of cycles counts their durable
     * writes. Its low 32 bits count within a leader's epoch; no workload runs across an election.
     */
    long zxid() {
        Matcher m = ZXID.matcher(ensemble.srvr(pinned));
        if (!m.find()) {
            throw new IllegalStateException("'srvr' on " + connectString() + " gave no Zxid");
        }
        return Long.parseLong(m.group(1), 16);
    }

    /** Every server's client port, comma-separated: the connect string of a client that may use any. */
    String connectStringAll() {
        return ensemble.connectString();
    }

    /** Requests every server has received from clients so far (the sum of their 'srvr' counters). */
    long receivedByAll() {
        long sum = 0;
        for (InstanceSpec spec : ensemble.servers()) {
            Matcher m = RECEIVED.matcher(ensemble.srvr(spec));
            if (!m.find()) {
                throw new IllegalStateException("'srvr' on 127.0.0.1:" + spec.getPort() + " gave no Received count");
            }
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }

    /** The leader's 'mntr' counters (znode count, approximate data size, ...), by name. */
    Map<String, String> mntr() {
        InstanceSpec leader = ensemble.leader();
        String text;
        try {
            text = FourLetterWordMain.send4LetterWord("127.0.0.1", leader.getPort(), "mntr");
        } catch (IOException | X509Exception.SSLContextException e) {
            throw new IllegalStateException("'mntr' on 127.0.0.1:" + leader.getPort() + " failed", e);
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] kv = line.split("\t", 2);
            if (kv.length == 2) {
                values.put(kv[0].strip(), kv[1].strip());
            }
        }
        return values;
    }

    /**
     * Has the leader write a snapshot of its data tree now, as ZooKeeper does by itself every
     * {@code snapCount} transactions, and returns the file's size in bytes: what a server writes to
     * disk, reads at start and sends a follower that is too far behind. (The in-process server is
     * reached through curator-test's internals; ZooKeeper's own {@code takeSnapshot} writes it.)
     */
    long snapshotBytes() {
        InstanceSpec leader = ensemble.leader();
        for (TestingZooKeeperServer server : ensemble.cluster().getServers()) {
            if (server.getInstanceSpec().equals(leader)) {
                try {
                    Method getMain = TestingZooKeeperServer.class.getDeclaredMethod("getMain");
                    getMain.setAccessible(true);
                    QuorumPeer peer = quorumPeer(getMain.invoke(server));
                    File snapshot = peer.getActiveServer().takeSnapshot(true);
                    return snapshot.length();
                } catch (ReflectiveOperationException | IOException | RuntimeException e) {
                    throw new IllegalStateException(
                            "cannot take a snapshot on the leader 127.0.0.1:" + leader.getPort() + ": " + e, e);
                }
            }
        }
        throw new IllegalStateException(
                "the leader 127.0.0.1:" + leader.getPort() + " is not a server of this cluster");
    }

    /**
     * The peer behind curator-test's server main: a {@link QuorumPeerMain} itself, or (curator-test
     * 5.7+) an adapter around ZooKeeper's {@code ZooKeeperServerEmbedded}, whose implementation keeps
     * its {@code QuorumPeerMain} in a field.
     */
    private static QuorumPeer quorumPeer(Object main) throws ReflectiveOperationException {
        Object peerMain = main;
        if (!(peerMain instanceof QuorumPeerMain)) {
            Object embedded = field(peerMain, "zooKeeperEmbedded");
            peerMain = field(embedded, "maincluster");
        }
        Field peerField = QuorumPeerMain.class.getDeclaredField("quorumPeer");
        peerField.setAccessible(true);
        return (QuorumPeer) peerField.get(peerMain);
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                Object value = f.get(target);
                if (value == null) {
                    throw new IllegalStateException(c.getName() + "." + name + " is null");
                }
                return value;
            } catch (NoSuchFieldException e) {
                // declared higher up
            }
        }
        throw new NoSuchFieldException(target.getClass().getName() + "." + name);
    }

    /** A started Curator client with a session of its own on the pinned server. */
    CuratorFramework curator() {
        return curator(connectString());
    }

    static CuratorFramework curator(String connectString) {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .ensembleTracker(false) // stay on the pinned server
                .sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(15_000)
                .retryPolicy(LockClient.defaultRetryPolicy())
                .build();
        c.start();
        try {
            if (!c.blockUntilConnected(60, TimeUnit.SECONDS)) {
                c.close();
                throw new IllegalStateException("no connection to ZooKeeper at " + connectString + " within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new IllegalStateException("interrupted while connecting to " + connectString, e);
        }
        return c;
    }

    @Override
    public void close() {
        ensemble.close();
    }
}
