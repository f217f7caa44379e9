package io.zkfence.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.CommandRun;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A command in a JVM of its own, with no logging configuration given, as a user runs it. */
class CommandLoggingTest {

    @Test
    void theAnswerGoesToStandardOutputAndOnlyWarningsToStandardError() {
        CommandRun run = run("sub");

        assertThat(run.out()).as("%s", run).containsExactly("sub: the answer");
        assertThat(run.err()).as("%s", run).hasSize(2);
        assertThat(run.errAt("WARN"))
                .as("%s", run)
                .anyMatch(l -> l.contains("sub: warning from com.example.library"))
                .anyMatch(l -> l.contains("sub: warning through java.util.logging"));
    }

    @Test
    void verboseLogsEverythingAtDebugToStandardErrorWhereverTheFlagStands() {
        for (List<String> args : List.of(List.of("--verbose", "sub"), List.of("sub", "--verbose"))) {
            CommandRun run = run(args.toArray(String[]::new));

            assertThat(run.out()).as("%s", run).containsExactly("sub: the answer");
            assertThat(run.errAt("DEBUG"))
                    .as("%s", run)
                    .anyMatch(l -> l.contains("sub: debug from com.example.library"))
                    .anyMatch(l -> l.contains("sub: debug from org.apache.zookeeper.server.quorum.Learner"))
                    .anyMatch(l -> l.contains("sub: debug through java.util.logging"));
        }
    }

    @Test
    void theHelpListsTheVerboseFlag() {
        assertThat(String.join("\n", run("--help").out())).contains("--verbose");
    }

    private static CommandRun run(String... args) {
        CommandRun run = CommandRun.of(LoggingProbe.class, List.of(), Duration.ofMinutes(1), args);
        assertThat(run.exitCode()).as("%s", run).isZero();
        return run;
    }
}
