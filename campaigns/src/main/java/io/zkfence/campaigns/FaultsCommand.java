package io.zkfence.campaigns;

import io.zkfence.command.CommandLogging;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./faults}: runs a fault campaign and prints where its report is. Exit code 1 if the checker found a violation. */
@Command(
        name = "faults",
        mixinStandardHelpOptions = true,
        description = "Worker JVMs, random faults (pauses, partitions, ZooKeeper kills, worker kills), and an"
                + " independent checker at the resources.")
public final class FaultsCommand implements Callable<Integer> {

    @Option(
            names = "--seconds",
            defaultValue = "60",
            description = "How long faults are injected. Default: ${DEFAULT-VALUE}")
    long seconds;

    @Option(names = "--seed", description = "Replay this seed (default: a new one, printed in the report)")
    Long seed;

    @Option(names = "--workers", defaultValue = "4", description = "Worker JVMs. Default: ${DEFAULT-VALUE}")
    int workers;

    @Option(names = "--threads", defaultValue = "3", description = "Threads per worker. Default: ${DEFAULT-VALUE}")
    int threads;

    @Option(
            names = "--locks",
            defaultValue = "3",
            description = "Locks shared by the workers. Default: ${DEFAULT-VALUE}")
    int locks;

    @Option(
            names = "--injectors",
            defaultValue = "3",
            description = "Fault injectors at once (faults overlap)." + " Default: ${DEFAULT-VALUE}")
    int injectors;

    @Option(names = "--out", defaultValue = "target/faults", description = "Logs and report. Default: ${DEFAULT-VALUE}")
    Path out;

    @Option(
            names = "--cohort",
            description = "Cohort mode: each worker's threads take the locks through one cohort per lock and"
                    + " process (FencedLock.withCohort()), half of their acquires on one hot lock")
    boolean cohort;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(CommandLogging.execute(() -> new CommandLine(new FaultsCommand()), args));
    }

    @Override
    public Integer call() {
        if (seconds < 5 || workers < 1 || threads < 1 || locks < 1 || locks > 64 || injectors < 1) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "need --seconds >= 5, --workers >= 1, --threads >= 1, 1 <= --locks <= 64 and --injectors >= 1");
        }
        long s = seed != null ? seed : System.nanoTime();
        FaultCampaign.Outcome o = FaultCampaign.run(new FaultCampaign.Settings(
                Duration.ofSeconds(seconds), s, workers, threads, locks, injectors, out, cohort ? workers : 0));
        System.out.println("faults: seed " + s + ", " + o.faults() + ", "
                + o.check().rows() + " committed writes, "
                + o.check().overlaps() + " overlaps, " + o.check().violations().size() + " violations, stalled workers "
                + o.check().stalled() + ", leftover queue nodes " + o.leftoverQueueNodes() + "; report: "
                + o.report().toAbsolutePath());
        boolean ok = o.check().violations().isEmpty() && o.check().stalled().isEmpty() && o.leftoverQueueNodes() == 0;
        return ok ? 0 : 1;
    }
}
