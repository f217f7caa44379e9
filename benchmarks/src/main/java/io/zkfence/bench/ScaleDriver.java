package io.zkfence.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clients of the service-at-scale workload ({@link ServiceScaleBench}), a JVM of its own so
 * that its CPU is counted apart from the replicas' and the ZooKeeper servers': many leases driven
 * by a few threads. On the lock service, {@code java.net.http} (HTTP/1.1 keep-alive connections,
 * asynchronous sends, as many connections as requests in flight) calls the real API: acquires
 * ramped over a given time, then each lease renewed at a fixed rate from its grant; waiting
 * acquires that hold their connections open; releases; or each owner's leases renewed together
 * in batch calls ({@code POST /v1/leases/renew}). On etcd, its own gRPC API (jetcd's
 * generated stubs): a lease granted and a key put under it per holder, then keep-alives on a few
 * bidirectional streams, as etcd clients keep their leases alive.
 *
 * <p>It talks to the harness over stdin and stdout, one line each way per command ({@link #USAGE}).
 * A failure is printed as {@code FAILED <what>} (the stack trace goes to stderr) and ends the
 * process with status 1.
 */
public final class ScaleDriver {

    static final String READY = "READY";
    static final String FAILED = "FAILED ";
    static final String QUIT = "QUIT";

    /** The commands, one per line; each answers one line. */
    static final String USAGE = "SERVICE <port,port,...> -> OK | HOLD <prefix> <count> <ttlMs> <renewMs> <rampMs>"
            + " -> HELD <acquired> <refused> <ms> | BHOLD <prefix> <count> <ttlMs> <renewMs> <rampMs> <batchMax>"
            + " -> HELD ... | WAIT <prefix> <keys> <perKey> <waitMs> <rampMs> -> SENT <n>"
            + " | DRAIN <prefix> <keys> <timeoutMs> -> DRAINED <granted> <failed> <ms> | STOP -> STOPPED <n>"
            + " | STATS -> STATS <json> | PHASE <name> -> OK"
            + " | ETCD <host:port> -> OK | EHOLD <prefix> <count> <ttlMs> <renewMs> <rampMs> -> HELD ... | ESTATS"
            + " -> STATS <json> | QUIT";

    static final ObjectMapper JSON = new ObjectMapper();

    private ScaleDriver() {}

    public static void main(String[] args) {
        PrintStream out = System.out;
        int status = 0;
        try (Drivers drivers = new Drivers()) {
            out.println(READY);
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals(QUIT); line = in.readLine()) {
                out.println(drivers.run(line.split(" ")));
                out.flush();
            }
        } catch (RuntimeException | IOException e) {
            out.println(FAILED + e);
            out.flush();
            e.printStackTrace(System.err);
            status = 1;
        }
        // Explicitly: the HTTP and gRPC clients leave non-daemon threads behind.
        System.exit(status);
    }

    /** The driver's two fleets, made on first use. */
    private static final class Drivers implements AutoCloseable {

        private ServiceFleet service;
        private EtcdFleet etcd;

        String run(String[] cmd) {
            switch (cmd[0]) {
                case "SERVICE" -> {
                    List<Integer> ports = new ArrayList<>();
                    for (String p : cmd[1].split(",")) {
                        ports.add(Integer.parseInt(p));
                    }
                    service = new ServiceFleet(ports);
                    return "OK";
                }
                case "HOLD" -> {
                    return service()
                            .hold(
                                    cmd[1],
                                    Integer.parseInt(cmd[2]),
                                    Long.parseLong(cmd[3]),
                                    Long.parseLong(cmd[4]),
                                    Long.parseLong(cmd[5]));
                }
                case "BHOLD" -> {
                    return service()
                            .holdBatched(
                                    cmd[1],
                                    Integer.parseInt(cmd[2]),
                                    Long.parseLong(cmd[3]),
                                    Long.parseLong(cmd[4]),
                                    Long.parseLong(cmd[5]),
                                    Integer.parseInt(cmd[6]));
                }
                case "WAIT" -> {
                    return service()
                            .queueWaiters(
                                    cmd[1],
                                    Integer.parseInt(cmd[2]),
                                    Integer.parseInt(cmd[3]),
                                    Long.parseLong(cmd[4]),
                                    Long.parseLong(cmd[5]));
                }
                case "DRAIN" -> {
                    return service().drain(cmd[1], Integer.parseInt(cmd[2]), Long.parseLong(cmd[3]));
                }
                case "STOP" -> {
                    return service().stop();
                }
                case "STATS" -> {
                    return "STATS " + service().stats();
                }
                case "PHASE" -> {
                    service().phase(cmd[1]);
                    return "OK";
                }
                case "ETCD" -> {
                    etcd = new EtcdFleet(cmd[1]);
                    return "OK";
                }
                case "EHOLD" -> {
                    return etcd().hold(
                                    cmd[1],
                                    Integer.parseInt(cmd[2]),
                                    Long.parseLong(cmd[3]),
                                    Long.parseLong(cmd[4]),
                                    Long.parseLong(cmd[5]));
                }
                case "ESTATS" -> {
                    return "STATS " + etcd().stats();
                }
                default ->
                    throw new IllegalArgumentException("unknown command " + String.join(" ", cmd) + "; " + USAGE);
            }
        }

        private ServiceFleet service() {
            if (service == null) {
                throw new IllegalStateException("no SERVICE command yet");
            }
            return service;
        }

        private EtcdFleet etcd() {
            if (etcd == null) {
                throw new IllegalStateException("no ETCD command yet");
            }
            return etcd;
        }

        @Override
        public void close() {
            if (service != null) {
                service.close();
            }
            if (etcd != null) {
                etcd.close();
            }
        }
    }

    static ThreadFactory daemon(String name) {
        AtomicLong n = new AtomicLong();
        return r -> {
            Thread t = new Thread(r, "scale-driver-" + name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
