package io.zkfence.bench;

import io.zkfence.command.CommandLogging;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The benchmark harness's command line. {@code ./bench} at the repository root builds the project
 * and runs this with the full counts, writing docs/benchmarks.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Measures zkfence's lock and fencing cost against the ZooKeeper floor, Curator and Hazelcast's "
                + "CP FencedLock, and writes README.md, results.json and PNG plots into the output folder.")
public final class Bench implements Callable<Integer> {

    @Option(
            names = "--smoke",
            description = "Tiny counts, seconds: proves the harness works (CI). Figures mean nothing.")
    boolean smoke;

    @Option(
            names = "--out",
            defaultValue = "docs/benchmarks",
            description = "Output folder (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(
            names = "--only",
            split = ",",
            paramLabel = "WORKLOAD",
            description =
                    "Run only these workloads: uncontended, contended, handoff, many-locks, cache-rebuild, hot-lock, hot-lock-processes, aggregate, file-processing, server, fencing-jdbc, fencing-s3, fencing-redis, fencing-azure-blob; and service-scale, which runs only when named here (minutes: the lock service at 1k, 10k and 50k leases, waiters, etcd's keep-alives).")
    List<String> only = List.of();

    @Option(
            names = "--zk-fsync",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "ZooKeeper servers fsync their transaction log (zookeeper.forceSync; default on, as in "
                    + "production). --no-zk-fsync turns it off.")
    boolean fsync;

    String command = "./bench";

    @Override
    public Integer call() {
        Set<String> known = Harness.all().stream().map(Workload::name).collect(Collectors.toSet());
        Set<String> selected = new HashSet<>(only);
        selected.removeAll(known);
        if (!selected.isEmpty()) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "unknown workload(s) " + selected + "; known: " + known);
        }
        new Harness(smoke ? Settings.smokeRun() : Settings.fullRun(), out, fsync, Set.copyOf(only), command).run();
        return 0;
    }

    public static void main(String[] args) {
        // Exits explicitly: the embedded servers leave non-daemon threads behind.
        System.exit(CommandLogging.execute(() -> commandLine(args), args));
    }

    private static CommandLine commandLine(String... args) {
        System.setProperty("java.awt.headless", "true");
        Bench bench = new Bench();
        bench.command = args.length == 0 ? "./bench" : "./bench " + String.join(" ", args);
        return new CommandLine(bench);
    }
}
