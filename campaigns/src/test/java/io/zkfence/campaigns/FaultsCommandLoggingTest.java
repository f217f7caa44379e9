package io.zkfence.campaigns;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.CommandRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./faults} as a user runs it: {@link FaultsCommand} in a JVM of its own, with no logging
 * configuration given, for the shortest campaign it accepts. It prints its own lines; the embedded
 * S3Mock's Spring Boot and Tomcat lines used to surround them.
 */
class FaultsCommandLoggingTest {

    @TempDir
    Path out;

    @Test
    void aCampaignPrintsItsOwnLinesAndLogsNothingBelowWarn() {
        CommandRun run = CommandRun.of(
                FaultsCommand.class,
                List.of(),
                Duration.ofMinutes(5),
                "--seconds=5",
                "--seed=7",
                "--workers=1",
                "--threads=1",
                "--locks=1",
                "--injectors=1",
                "--out=" + out);

        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.out()).as("%s", run).anyMatch(l -> l.startsWith("faults: seed 7, "));
        for (String level : List.of("DEBUG", "INFO", "WARN", "ERROR")) {
            assertThat(run.outAt(level))
                    .as("log lines at %s on standard output: %s", level, run)
                    .isEmpty();
        }
        assertThat(run.errAt("DEBUG")).as("%s", run).isEmpty();
        assertThat(run.errAt("INFO")).as("%s", run).isEmpty();
        assertThat(run.err())
                .as("Spring Boot's or Tomcat's lines: %s", run)
                .noneMatch(l -> l.contains("springframework") || l.contains("Tomcat") || l.contains("catalina"));
    }
}
