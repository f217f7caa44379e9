package io.zkfence.testkit.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.curator.test.InstanceSpec;

/**
 * Ports for servers that are killed and started again on the same port. Picked below the
 * operating system's ephemeral range where it says what that is (Linux): a port in that range,
 * once its server is killed, can be taken by any outgoing connection on the machine as its local
 * port (a ZooKeeper client reconnecting, say) and stay taken as long as that connection lives, so
 * the server could not bind it again. Elsewhere, a free port anywhere (curator-test's pick).
 *
 * <p>Not API (a package named {@code internal}): zkfence's own fixtures that restart a server on its
 * port (the ensemble here, the fault campaigns' lock-service replicas) share it.
 */
public final class ListenPorts {

    /** The lowest port picked: well above the registered services most machines run. */
    public static final int LOWEST = 10_000;

    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int ATTEMPTS = 1_000;

    private ListenPorts() {}

    /**
     * A port nobody listens on now, not in {@code taken}.
     *
     * @param taken ports picked already for the same servers
     * @return the port
     */
    public static int pick(Set<Integer> taken) {
        int ceiling = ephemeralLow();
        if (ceiling - LOWEST >= ATTEMPTS) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                int port = LOWEST + random.nextInt(ceiling - LOWEST);
                if (!taken.contains(port) && free(port)) {
                    return port;
                }
            }
        }
        while (true) {
            int port = InstanceSpec.getRandomPort();
            if (!taken.contains(port)) {
                return port;
            }
        }
    }

    /**
     * The first port of the ephemeral range, or -1 where the system does not say.
     *
     * @return the port
     */
    public static int ephemeralLow() {
        // One line read, not Files.readString: procfs reports a size of 0, and readString then
        // returned a single byte of the file on JDK 25.
        try (BufferedReader in = Files.newBufferedReader(EPHEMERAL_RANGE)) {
            String[] range = in.readLine().trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException unknown) {
            // Not Linux, or a file of another shape: pick as curator-test does.
            return -1;
        }
    }

    /**
     * True if nothing listens on {@code port}: it could be bound (and was released at once).
     *
     * @param port the port
     * @return whether it is free
     */
    public static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket(port)) {
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }
}
