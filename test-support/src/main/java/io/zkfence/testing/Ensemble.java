package io.zkfence.testing;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * Three real ZooKeeper servers in this JVM (zkfence-testkit's EmbeddedEnsemble), plus helpers to
 * make Curator clients on them. {@link #shared()} is started once per test JVM; tests that kill
 * servers make their own with {@link #start()}. Lock clients are made by each module's tests
 * ({@code LockClient.connect(ensemble.connectString(), ...)}): this module cannot depend on
 * lock-core, whose own tests use it.
 */
public final class Ensemble implements AutoCloseable {

    /** Scales waits for slow, loaded machines. */
    public static final Duration PATIENCE = Duration.ofSeconds(60);

    private static Ensemble shared;

    private final EmbeddedEnsemble servers;

    private Ensemble(EmbeddedEnsemble servers) {
        this.servers = servers;
    }

    public static synchronized Ensemble shared() {
        if (shared == null) {
            shared = start();
            Ensemble s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close));
        }
        return shared;
    }

    /** Three servers, tickTime 1000 ms: sessions may be 2 s to 20 s. */
    public static Ensemble start() {
        // Containers are checked every second (a JVM-wide server setting, read when the servers
        // start) so tests about re-created lock znodes need not wait a minute.
        System.setProperty("znode.container.checkIntervalMs", "1000");
        return new Ensemble(EmbeddedEnsemble.builder()
                .servers(3)
                .tickTime(Duration.ofSeconds(1))
                .start());
    }

    /** The underlying cluster, for its servers and their connections. */
    public TestingCluster cluster() {
        return servers.cluster();
    }

    /** Stops {@code server} abruptly; see {@link EmbeddedEnsemble#kill}. */
    public void kill(InstanceSpec server) {
        servers.kill(server);
    }

    /** Starts a killed {@code server} again, with its data. */
    public void restart(InstanceSpec server) {
        servers.restart(server);
    }

    public String connectString() {
        return servers.connectString();
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

    /** A root path no other test uses. */
    public static String freshRoot(String testName) {
        return "/zkfence-test/" + testName + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The server that currently leads. */
    public InstanceSpec leader() {
        return servers.leader();
    }

    @Override
    public void close() {
        servers.close();
    }
}
