package io.zkfence.testkit;

import io.zkfence.testkit.internal.ListenPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingZooKeeperServer;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;

/**
 * Published, for your tests (zkfence-testkit): real ZooKeeper servers in this JVM, as a quorum
 * (curator-test's {@code TestingCluster}), for tests, demos and benchmarks: sessions, expiry,
 * leader election and ephemeral nodes behave as on a production ensemble.
 *
 * <pre>{@code
 * try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder().servers(3).tickTime(Duration.ofSeconds(1)).start()) {
 *     LockClient client = LockClient.connect(zk.connectString());
 *     ...
 * }
 * }</pre>
 *
 * <p>Sessions may last from 2 to 20 tick times (ZooKeeper's defaults). Servers fsync their
 * transaction logs unless the JVM-wide {@code zookeeper.forceSync} is {@code no} when they start.
 */
public final class EmbeddedEnsemble implements AutoCloseable {

    private static final int START_ATTEMPTS = 3;
    private static final Duration QUORUM_WAIT = Duration.ofSeconds(60);
    private static final Duration PORTS_FREED = Duration.ofSeconds(30);
    private static final System.Logger LOG = System.getLogger(EmbeddedEnsemble.class.getName());

    private final TestingCluster cluster;
    private final Duration tickTime;

    private EmbeddedEnsemble(TestingCluster cluster, Duration tickTime) {
        this.cluster = cluster;
        this.tickTime = tickTime;
    }

    /**
     * Starts three servers with a one-second tick.
     *
     * @return the started ensemble, serving
     */
    public static EmbeddedEnsemble start() {
        return builder().start();
    }

    /**
     * Starts building an ensemble.
     *
     * @return a builder with the defaults (three servers, a one-second tick)
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the connect string of every server.
     *
     * @return {@code host:port,...} of every server
     */
    public String connectString() {
        return cluster.getConnectString();
    }

    /**
     * Returns the servers' tick time: sessions may last 2 to 20 ticks.
     *
     * @return the tick time
     */
    public Duration tickTime() {
        return tickTime;
    }

    /**
     * Returns the servers, for {@link #kill}, {@link #restart} and {@link #mode}.
     *
     * @return the servers, in a fixed order
     */
    public List<InstanceSpec> servers() {
        return List.copyOf(cluster.getInstances());
    }

    /**
     * Returns the underlying curator-test cluster.
     *
     * @return the cluster
     */
    public TestingCluster cluster() {
        return cluster;
    }

    /**
     * Stops {@code server} abruptly (its clients see the connection drop). When this returns, the
     * server no longer listens on any of its ports, so {@link #restart} can bind them again.
     *
     * @param server one of {@link #servers()}
     * @throws IllegalStateException if the server could not be stopped
     */
    public void kill(InstanceSpec server) {
        NullPointerException raced = null;
        try {
            cluster.killServer(server);
        } catch (NullPointerException e) {
            // ZooKeeper's embedded server shuts its peer down twice at once: here, and on its own
            // runner thread as soon as the peer stops. When the runner closes the transaction log
            // first, this shutdown fails on the closed log (the race of ZOOKEEPER-3803 and
            // CURATOR-575; later ZooKeeper versions log it instead of throwing). The runner's
            // shutdown goes on, so what counts is whether the server ends up down.
            raced = e;
            markStopped(server, e);
        } catch (Exception e) {
            throw new IllegalStateException("could not kill ZooKeeper server " + address(server), e);
        }
        awaitPortsFree(server, raced);
        if (raced != null) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "ZooKeeper server " + address(server) + " failed in its own shutdown but is down",
                    raced);
        }
    }

    private void markStopped(InstanceSpec server, NullPointerException raced) {
        TestingZooKeeperServer instance = cluster.getServers().stream()
                .filter(s -> s.getInstanceSpec().equals(server))
                .findFirst()
                .orElseThrow();
        try {
            // restart() needs the server marked stopped; stop() marks it and closes again whatever
            // the failed shutdown left open.
            instance.stop();
        } catch (IOException | RuntimeException again) {
            raced.addSuppressed(again);
        }
    }

    private static void awaitPortsFree(InstanceSpec server, RuntimeException cause) {
        // cause: what went wrong on the way here, if anything (null when the kill went cleanly)
        try {
            pollUntil(
                    PORTS_FREED,
                    () -> portsFree(server),
                    () -> new IllegalStateException(
                            "ZooKeeper server " + address(server) + " still holds its ports " + PORTS_FREED.toSeconds()
                                    + " s after being killed",
                            cause));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing ZooKeeper server " + address(server), e);
        }
    }

    private static boolean portsFree(InstanceSpec server) {
        return ListenPorts.free(server.getPort())
                && ListenPorts.free(server.getQuorumPort())
                && ListenPorts.free(server.getElectionPort());
    }

    private static String address(InstanceSpec server) {
        return server.getHostname() + ":" + server.getPort();
    }

    /**
     * Starts a killed {@code server} again, with its data.
     *
     * @param server one of {@link #servers()}
     */
    public void restart(InstanceSpec server) {
        try {
            cluster.restartServer(server);
        } catch (Exception e) {
            throw new IllegalStateException("could not restart ZooKeeper server " + address(server), e);
        }
    }

    /**
     * The output of ZooKeeper's {@code srvr} command on {@code server} (mode, counters), or empty if
     * it does not answer (down, or not serving while it elects a leader).
     *
     * @param server one of {@link #servers()}
     * @return the command's output, or empty
     */
    public String srvr(InstanceSpec server) {
        try {
            return FourLetterWordMain.send4LetterWord("127.0.0.1", server.getPort(), "srvr");
        } catch (IOException | X509Exception.SSLContextException e) {
            return "";
        }
    }

    /**
     * Returns the role {@code server} reports.
     *
     * @param server one of {@link #servers()}
     * @return {@code "leader"}, {@code "follower"}, or empty if the server does not answer
     */
    public String mode(InstanceSpec server) {
        for (String line : srvr(server).split("\n")) {
            if (line.startsWith("Mode: ")) {
                return line.substring("Mode: ".length()).strip();
            }
        }
        return "";
    }

    /**
     * Returns the server that currently leads.
     *
     * @return the leader
     * @throws IllegalStateException if no server says it leads
     */
    public InstanceSpec leader() {
        return servers().stream()
                .filter(s -> mode(s).equals("leader"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no leader in the ensemble " + connectString()));
    }

    /**
     * Waits until every server serves: one leader and the others followers (or one standalone
     * server). A server {@link #restart restarted} rejoins after an election round or a sync with
     * the leader; until it has, the ensemble survives one failure fewer than its size says.
     *
     * @param within how long to wait at most
     * @throws IllegalStateException if some server does not serve within that time (the message
     *                               lists every server's mode), or the thread is interrupted
     */
    public void awaitAllServing(Duration within) {
        try {
            awaitQuorum(within);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the servers " + connectString(), e);
        }
    }

    private void awaitQuorum(Duration within) throws InterruptedException {
        pollUntil(
                within,
                () -> serving(modes()),
                () -> new IllegalStateException("ZooKeeper servers " + connectString() + " did not all serve within "
                        + within.toMillis() + " ms (modes " + modes() + ")"));
    }

    private List<String> modes() {
        return servers().stream().map(this::mode).toList();
    }

    private static boolean serving(List<String> modes) {
        long leaders = modes.stream()
                .filter(m -> m.equals("leader") || m.equals("standalone"))
                .count();
        long followers = modes.stream().filter(m -> m.equals("follower")).count();
        return leaders == 1 && leaders + followers == modes.size();
    }

    /** Polls state that other threads change (an election, sockets closing): there is nothing to wait on. */
    private static void pollUntil(Duration within, BooleanSupplier done, Supplier<RuntimeException> timedOut)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw timedOut.get();
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop the ZooKeeper ensemble " + connectString(), e);
        }
    }

    /** Settings of an {@link EmbeddedEnsemble}. */
    public static final class Builder {
        private int servers = 3;
        private Duration tickTime = Duration.ofSeconds(1);
        private int maxClientConnections = -1;

        private Builder() {}

        /**
         * Sets how many servers to start.
         *
         * @param servers 1 to 9 (default 3; 1 is a standalone-like quorum of one)
         * @return this builder
         * @throws IllegalArgumentException if out of bounds
         */
        public Builder servers(int servers) {
            if (servers < 1 || servers > 9) {
                throw new IllegalArgumentException("servers must be between 1 and 9, was " + servers);
            }
            this.servers = servers;
            return this;
        }

        /**
         * Sets ZooKeeper's tickTime: sessions may last 2 to 20 ticks.
         *
         * @param tickTime at least 1 ms (default 1 s)
         * @return this builder
         * @throws IllegalArgumentException if below 1 ms or above {@code Integer.MAX_VALUE} ms
         */
        public Builder tickTime(Duration tickTime) {
            Objects.requireNonNull(tickTime, "tickTime");
            if (tickTime.toMillis() < 1 || tickTime.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("tickTime must be at least 1 ms, was " + tickTime);
            }
            this.tickTime = tickTime;
            return this;
        }

        /**
         * Sets how many connections one host may open to one server.
         *
         * @param maxClientConnections 0 for no limit, or more (default: ZooKeeper's, 60)
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder maxClientConnections(int maxClientConnections) {
            if (maxClientConnections < 0) {
                throw new IllegalArgumentException(
                        "maxClientConnections must be 0 (no limit) or more, was " + maxClientConnections);
            }
            this.maxClientConnections = maxClientConnections;
            return this;
        }

        /**
         * Starts the servers and waits until they serve (a leader elected, the others following).
         * Ports are picked free; a port taken between
         * the pick and the bind makes it try again with other ports (up to three times).
         *
         * @return the started ensemble, serving
         * @throws IllegalStateException if the servers do not start
         */
        public EmbeddedEnsemble start() {
            IllegalStateException failure =
                    new IllegalStateException("could not start " + servers + " ZooKeeper servers");
            for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
                TestingCluster cluster = new TestingCluster(distinctSpecs());
                try {
                    cluster.start();
                    EmbeddedEnsemble ensemble = new EmbeddedEnsemble(cluster, tickTime);
                    ensemble.awaitQuorum(QUORUM_WAIT);
                    return ensemble;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    closeAfterFailure(cluster, failure);
                    throw new IllegalStateException("interrupted while starting ZooKeeper", e);
                } catch (Exception e) {
                    failure.addSuppressed(e);
                    closeAfterFailure(cluster, failure);
                }
            }
            throw failure;
        }

        private static void closeAfterFailure(TestingCluster cluster, IllegalStateException failure) {
            try {
                cluster.close();
            } catch (IOException closeFailure) {
                failure.addSuppressed(closeFailure);
            }
        }

        /**
         * Specs whose ports are all different ({@link ListenPorts}: outside the ephemeral range,
         * so that a killed server's ports are still free when it restarts).
         */
        private List<InstanceSpec> distinctSpecs() {
            Set<Integer> used = new HashSet<>();
            List<InstanceSpec> specs = new ArrayList<>();
            int serverId = 1;
            while (specs.size() < servers) {
                int port = ListenPorts.pick(used);
                int electionPort = ListenPorts.pick(used);
                int quorumPort = ListenPorts.pick(used);
                if (used.add(port) & used.add(electionPort) & used.add(quorumPort)) {
                    // A null directory: the spec makes a temporary one and deletes it on close.
                    specs.add(new InstanceSpec(
                            null,
                            port,
                            electionPort,
                            quorumPort,
                            true,
                            serverId++,
                            (int) tickTime.toMillis(),
                            maxClientConnections));
                }
            }
            return specs;
        }
    }
}
