package io.zkfence.testing;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * Three real ZooKeeper servers in this JVM (curator-test's TestingCluster), plus helpers to make
 * clients on them. {@link #shared()} is started once per test JVM; tests that kill servers make
 * their own with {@link #start()}. Shared with other modules through lock-core's test-jar.
 */
public final class Ensemble implements AutoCloseable {

    /** Scales waits for slow, loaded machines. */
    public static final Duration PATIENCE = Duration.ofSeconds(60);

    private static Ensemble shared;

    private final TestingCluster cluster;

    private Ensemble(TestingCluster cluster) {
        this.cluster = cluster;
    }

    public static synchronized Ensemble shared() {
        if (shared == null) {
            shared = start();
            Ensemble s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close));
        }
        return shared;
    }

    public static Ensemble start() {
        // Containers are checked every second (a JVM-wide server setting, read when the servers
        // start) so tests about re-created lock znodes need not wait a minute.
        System.setProperty("znode.container.checkIntervalMs", "1000");
        IllegalStateException failure = new IllegalStateException("could not start the ZooKeeper test ensemble");
        for (int attempt = 0; attempt < 3; attempt++) {
            TestingCluster cluster = new TestingCluster(distinctSpecs());
            try {
                cluster.start();
                return new Ensemble(cluster);
            } catch (Exception e) {
                // A port picked as free was taken before the server bound it: try other ports.
                failure.addSuppressed(e);
                try {
                    cluster.close();
                } catch (IOException closeFailure) {
                    failure.addSuppressed(closeFailure);
                }
            }
        }
        throw failure;
    }

    /**
     * Three server specs (tickTime 1000 ms: sessions may be 2 s to 20 s) whose ports are all
     * different. curator-test picks each port by opening and closing a socket, which can hand
     * out the same port twice.
     */
    private static List<InstanceSpec> distinctSpecs() {
        Set<Integer> used = new HashSet<>();
        List<InstanceSpec> specs = new ArrayList<>();
        int serverId = 1;
        while (specs.size() < 3) {
            InstanceSpec s = InstanceSpec.newInstanceSpec();
            if (used.add(s.getPort()) & used.add(s.getElectionPort()) & used.add(s.getQuorumPort())) {
                specs.add(new InstanceSpec(null, s.getPort(), s.getElectionPort(), s.getQuorumPort(), true, serverId++,
                        1000, -1));
            }
        }
        return specs;
    }

    /** The underlying cluster, for killing and restarting servers. */
    public TestingCluster cluster() {
        return cluster;
    }

    public String connectString() {
        return cluster.getConnectString();
    }

    /** A started Curator client on the whole ensemble. */
    public CuratorFramework curator(Duration sessionTimeout) {
        return curator(connectString(), sessionTimeout);
    }

    public static CuratorFramework curator(String connectString, Duration sessionTimeout) {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                // Keep to the given connect string: the tracker would replace a proxy's address
                // with the servers' real ones and route around the proxy.
                .ensembleTracker(false)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 500))
                .build();
        c.start();
        try {
            if (!c.blockUntilConnected((int) PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("no connection to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return c;
    }

    /** A lock client on its own session, under {@code root}. */
    public LockClient client(String root, String ownerId) {
        return LockClient.connect(connectString(), LockClientConfig.builder().rootPath(root).ownerId(ownerId)
                .sessionTimeout(Duration.ofSeconds(10)).build());
    }

    /** A root path no other test uses. */
    public static String freshRoot(String testName) {
        return "/zkfence-test/" + testName + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The server that currently leads, found with the 'srvr' four-letter word. */
    public InstanceSpec leader() {
        for (InstanceSpec spec : cluster.getInstances()) {
            try {
                String srvr = FourLetterWordMain.send4LetterWord("127.0.0.1", spec.getPort(), "srvr");
                if (srvr.contains("Mode: leader")) {
                    return spec;
                }
            } catch (IOException | org.apache.zookeeper.common.X509Exception.SSLContextException e) {
                // A server that is down or electing answers nothing: not the leader.
            }
        }
        throw new IllegalStateException("no leader in the ensemble");
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
