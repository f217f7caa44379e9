package io.zkfence.bench;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The peer the lock workloads compare with: Hazelcast's CP subsystem, three CP members in the
 * harness JVM (as the ZooKeeper servers are), and clients of it. Hazelcast 5.4.0 is the last
 * release whose CP subsystem is open source.
 *
 * <p>Durability: the members keep the Raft log in memory only (CP persistence is an Enterprise
 * feature and is not used); a lock operation is committed once a majority of members holds it in
 * memory, and nothing reaches a disk. ZooKeeper fsyncs every write before acknowledging it. The
 * report says so beside every Hazelcast row.
 */
final class HazelcastCp implements AutoCloseable {

    static final int MEMBERS = 3;

    /**
     * The JVM flags Hazelcast asks for on Java 9+ ("used to get the best performance results", as it
     * logs without them); ./bench gives the harness JVM the same. On JDK 24+ also the one that lets
     * Hazelcast's bundled JCTools use sun.misc.Unsafe without the JDK's warning.
     */
    static List<String> jvmFlags() {
        List<String> flags = new ArrayList<>(List.of(
                "--add-modules",
                "java.se",
                "--add-exports",
                "java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.lang=ALL-UNNAMED",
                "--add-opens",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens",
                "java.management/sun.management=ALL-UNNAMED",
                "--add-opens",
                "jdk.management/com.sun.management.internal=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 24) {
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        return flags;
    }

    private static final String HOST = "127.0.0.1";
    /** A warm-up lock taken once at start, so the first measured acquire does not create the CP group. */
    private static final String WARM_UP_LOCK = "bench-warm-up";

    /** The report's sentence on what each row's grants survive. */
    static final String DURABILITY_NOTE = "Durability differs: the ZooKeeper rows (zkfence, Curator) have every "
            + "queue change fsynced by a majority of the 3 servers before it is acknowledged; the Hazelcast row's "
            + "Raft log is in the members' memory only (CP persistence is not part of the open-source 5.4.0), so "
            + "losing a majority of members loses the lock state.";

    private final String clusterName;
    private final List<HazelcastInstance> members;
    private final String addresses;

    private HazelcastCp(String clusterName, List<HazelcastInstance> members, String addresses) {
        this.clusterName = clusterName;
        this.members = members;
        this.addresses = addresses;
    }

    /**
     * Starts the members on free loopback ports and returns once the CP subsystem has formed and a
     * first lock was granted. The cluster name is unique, so the members never join anyone else's
     * cluster on this machine.
     */
    static HazelcastCp start() {
        logThroughSlf4j();
        String clusterName = "zkfence-bench-" + UUID.randomUUID();
        List<Integer> ports = freePorts(MEMBERS);
        List<HazelcastInstance> members = new ArrayList<>();
        try {
            for (int port : ports) {
                members.add(Hazelcast.newHazelcastInstance(memberConfig(clusterName, port, ports)));
            }
            for (HazelcastInstance m : members) {
                if (!m.getCPSubsystem()
                        .getCPSubsystemManagementService()
                        .awaitUntilDiscoveryCompleted(2, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("Hazelcast CP discovery did not complete in 2 min on " + ports);
                }
            }
            FencedLock warmUp = members.get(0).getCPSubsystem().getLock(WARM_UP_LOCK);
            warmUp.lock();
            warmUp.unlock();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            terminate(members);
            throw new IllegalStateException("interrupted while starting the Hazelcast CP members", e);
        } catch (RuntimeException e) {
            terminate(members);
            throw e;
        }
        return new HazelcastCp(
                clusterName,
                List.copyOf(members),
                String.join(",", ports.stream().map(p -> HOST + ":" + p).toList()));
    }

    /** Where a grant of the row named {@code impl} is kept once acknowledged, for the report's tables. */
    static String durabilityOf(String impl) {
        return impl.equals("hazelcast") ? "memory of 2 of 3 members" : "fsync on 2 of 3 servers";
    }

    String clusterName() {
        return clusterName;
    }

    /** The members' addresses, comma-separated, as {@link #client(String, String, String)} takes them. */
    String addresses() {
        return addresses;
    }

    /** A new client of these members (its own connection and, once it locks, its own CP session). */
    HazelcastInstance client(String name) {
        return client(clusterName, addresses, name);
    }

    /** A new client of the members at {@code addresses} (used in other JVMs too); shut it down when done. */
    static HazelcastInstance client(String clusterName, String addresses, String name) {
        logThroughSlf4j();
        ClientConfig config = new ClientConfig();
        config.setClusterName(clusterName);
        config.setInstanceName(name);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        for (String address : addresses.split(",")) {
            config.getNetworkConfig().addAddress(address);
        }
        return HazelcastClient.newHazelcastClient(config);
    }

    /**
     * Terminates every member at once. A graceful shutdown would have each CP member leave the CP
     * groups in turn, and the last ones, below a majority, then fail and log errors for state that is
     * thrown away anyway.
     */
    @Override
    public void close() {
        terminate(members);
    }

    private static void terminate(List<HazelcastInstance> members) {
        for (HazelcastInstance m : members) {
            m.getLifecycleService().terminate();
        }
    }

    private static Config memberConfig(String clusterName, int port, List<Integer> ports) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setInstanceName("bench-cp-" + port);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        // TCP/IP discovery of the listed members only; no waiting for others to appear.
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface(HOST);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(1);
        for (int p : ports) {
            join.getTcpIpConfig().addMember(HOST + ":" + p);
        }
        // The CP subsystem on all three members; everything else stays at Hazelcast's defaults.
        config.getCPSubsystemConfig().setCPMemberCount(MEMBERS);
        return config;
    }

    /** Hazelcast's own default is java.util.logging; through SLF4J, the harness's logback.xml quiets it. */
    private static void logThroughSlf4j() {
        System.setProperty("hazelcast.logging.type", "slf4j");
    }

    /** Ports free a moment ago (a small race with other programs, which a failed bind would show). */
    private static List<Integer> freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        IOException failure = null;
        try {
            for (int i = 0; i < n; i++) {
                sockets.add(new ServerSocket(0));
            }
        } catch (IOException e) {
            failure = e;
        }
        List<Integer> ports = sockets.stream().map(ServerSocket::getLocalPort).toList();
        for (ServerSocket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw new UncheckedIOException("cannot find free ports for the Hazelcast members", failure);
        }
        return ports;
    }
}
