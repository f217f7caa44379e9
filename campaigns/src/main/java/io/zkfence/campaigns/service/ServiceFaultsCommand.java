package io.zkfence.campaigns.service;

import io.zkfence.command.CommandLogging;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./faults --service}: runs a fault campaign against the lock service and prints where its
 * report is. Exit code 1 if a promise was broken (see docs/faults.md).
 */
@Command(
        name = "faults --service",
        mixinStandardHelpOptions = true,
        description =
                "Replicas of zkfence-server as JVMs over a 3-server ZooKeeper ensemble, Java and Python workers over"
                        + " HTTP writing to PostgreSQL under their leases, random faults (replica kills, pauses, cut-offs, clock"
                        + " skew, held and dropped requests, worker pauses and kills, ZooKeeper kills), and checks per promise.")
public final class ServiceFaultsCommand implements Callable<Integer> {

    @Option(
            names = "--seconds",
            defaultValue = "60",
            description = "How long faults are injected. Default: ${DEFAULT-VALUE}")
    long seconds;

    @Option(names = "--seed", description = "Replay this seed (default: a new one, printed in the report)")
    Long seed;

    @Option(names = "--workers", defaultValue = "3", description = "Java worker processes. Default: ${DEFAULT-VALUE}")
    int workers;

    @Option(
            names = "--python-workers",
            defaultValue = "1",
            description = "Python worker processes (/usr/bin/python3, psycopg2). Default: ${DEFAULT-VALUE}")
    int pythonWorkers;

    @Option(names = "--threads", defaultValue = "2", description = "Threads per worker. Default: ${DEFAULT-VALUE}")
    int threads;

    @Option(
            names = "--replicas",
            defaultValue = "3",
            description = "Replicas of the service (at least 3). Default: ${DEFAULT-VALUE}")
    int replicas;

    @Option(
            names = "--locks",
            defaultValue = "3",
            description = "Lock keys shared by the workers. Default: ${DEFAULT-VALUE}")
    int locks;

    @Option(
            names = "--injectors",
            defaultValue = "4",
            description = "Fault injectors at once (faults overlap). Default: ${DEFAULT-VALUE}")
    int injectors;

    @Option(
            names = "--out",
            defaultValue = "target/faults-service",
            description = "Logs and report. Default: ${DEFAULT-VALUE}")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(CommandLogging.execute(() -> new CommandLine(new ServiceFaultsCommand()), args));
    }

    @Override
    public Integer call() {
        long s = seed != null ? seed : System.nanoTime();
        ServiceCampaign.Settings settings;
        try {
            settings = new ServiceCampaign.Settings(
                    Duration.ofSeconds(seconds), s, workers, pythonWorkers, threads, replicas, locks, injectors, out);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        ServiceOutcome o = ServiceCampaign.run(settings);
        ServiceChecker.Findings f = o.findings();
        StringBuilder line = new StringBuilder("faults --service: seed " + s + ", " + o.faultCount() + " faults, "
                + f.pg().rows() + " committed writes, " + f.pg().violations().size() + " violations at PostgreSQL;");
        for (ServiceChecker.Promise p : ServiceChecker.Promise.values()) {
            line.append(" promise ")
                    .append(p.ordinal() + 1)
                    .append(": ")
                    .append(f.count(p))
                    .append(',');
        }
        line.append(" orphan leases ")
                .append(f.countedOrphans().size())
                .append(", entries left ")
                .append(f.leftover().size())
                .append("; report: ")
                .append(o.report().toAbsolutePath());
        System.out.println(line);
        return o.clean() ? 0 : 1;
    }
}
