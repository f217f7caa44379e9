package io.zkfence.bench;

import com.hazelcast.core.HazelcastInstance;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * One process of the cross-process hot-lock workload ({@link HotLockProcessesBench}), run in a JVM
 * of its own: like a service instance, it has one lock client (one ZooKeeper session), one Curator
 * session and one Hazelcast client, and a number of request threads that all want one lock.
 *
 * <p>It talks to the harness over stdin and stdout, one line each way per step: it prints
 * {@code READY <nanoTime>} once connected; for each {@code ROUND <impl> <startNanos> <durationNanos>}
 * it runs its threads on that implementation's lock from the common start and prints a
 * {@link RoundReport}; {@code QUIT} or the end of stdin closes everything and exits. A failure is
 * printed as {@code FAILED <what>} (the stack trace goes to stderr) and ends the process with
 * status 1. Every critical section goes through the {@link SharedExclusion} file all the
 * processes map.
 *
 * <p>Arguments: process-index threads zookeeper-connect-string hazelcast-cluster
 * hazelcast-addresses exclusion-file
 */
public final class HotLockWorker {

    /** The implementations, in the report's order. */
    static final List<String> IMPLS = List.of("zkfence-cohort", "zkfence", "curator", "hazelcast");

    static final String READY = "READY ";
    static final String FAILED = "FAILED ";
    static final String ROUND = "ROUND ";
    static final String QUIT = "QUIT";

    private HotLockWorker() {}

    public static void main(String[] args) {
        if (args.length != 6) {
            System.err.println(
                    "usage: HotLockWorker process-index threads zk-connect hz-cluster hz-addresses exclusion-file");
            System.exit(2);
            return;
        }
        PrintStream out = System.out;
        int status = 0;
        try {
            run(Integer.parseInt(args[0]), Integer.parseInt(args[1]), args[2], args[3], args[4], Path.of(args[5]), out);
        } catch (RuntimeException | IOException e) {
            out.println(FAILED + e);
            out.flush();
            e.printStackTrace(System.err);
            status = 1;
        }
        // Explicitly: client libraries may leave non-daemon threads behind after closing.
        System.exit(status);
    }

    private static void run(
            int process,
            int threads,
            String connect,
            String hzCluster,
            String hzAddresses,
            Path exclusionFile,
            PrintStream out)
            throws IOException {
        String owner = "bench-hot-process-" + process;
        try (Closer closer = new Closer()) {
            SharedExclusion exclusion = closer.add(SharedExclusion.open(exclusionFile));
            CuratorFramework session = closer.add(ZkCluster.curator(connect));
            LockClient client = closer.add(LockClient.create(
                    session,
                    LockClientConfig.builder()
                            .rootPath("/bench/zkfence")
                            .ownerId(owner)
                            .build()));
            FencedLock cohort = client.lock("hot-processes-cohort").withCohort();
            FencedLock plain = client.lock("hot-processes-plain");
            CuratorFramework curatorSession = closer.add(ZkCluster.curator(connect));
            HazelcastInstance hz = HazelcastCp.client(hzCluster, hzAddresses, owner);
            AutoCloseable hzShutdown = hz::shutdown;
            closer.add(hzShutdown);
            com.hazelcast.cp.lock.FencedLock hzLock = hz.getCPSubsystem().getLock("hot-processes");

            Map<String, List<Mutex>> impls = new LinkedHashMap<>();
            IMPLS.forEach(impl -> impls.put(impl, new ArrayList<>()));
            for (int t = 0; t < threads; t++) {
                impls.get("zkfence-cohort").add(Mutex.of(cohort));
                impls.get("zkfence").add(Mutex.of(plain));
                impls.get("curator")
                        .add(Mutex.of(new InterProcessMutex(curatorSession, "/bench/curator/hot-processes")));
                impls.get("hazelcast").add(Mutex.of(hzLock));
            }
            Runnable criticalSection = () -> exclusion.criticalSection(
                    SharedExclusion.holderId(process, Thread.currentThread().threadId()));

            out.println(READY + System.nanoTime());
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals(QUIT); line = in.readLine()) {
                String[] cmd = line.split(" ");
                if (!line.startsWith(ROUND) || cmd.length != 4 || !impls.containsKey(cmd[1])) {
                    throw new IllegalArgumentException("unknown command from the harness: " + line);
                }
                LockRound.Result r = LockRound.run(
                        List.of(impls.get(cmd[1])), Long.parseLong(cmd[2]), Long.parseLong(cmd[3]), criticalSection);
                out.println(new RoundReport(cmd[1], r.grants()[0], r.nanos(), r.waits()[0]).line());
                out.flush();
            }
        }
    }
}
