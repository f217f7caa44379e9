package io.zkfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testing.CommandRun;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./zkfence} as an operator runs it: {@link ZkfenceCommand} in a JVM of its own, with no
 * logging configuration given. Without the commands' setup, logback logged about 70 lines of
 * ZooKeeper and Curator DEBUG around the one line of {@code locks list}.
 */
class ZkfenceCommandLoggingTest {

    private static EmbeddedEnsemble zk;
    private static LockClient app;
    private static Lease held;

    @BeforeAll
    static void holdALock() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
        app = LockClient.connect(
                zk.connectString(),
                LockClientConfig.builder()
                        .rootPath("/cli-logging/locks")
                        .ownerId("billing-pod-1")
                        .build());
        held = app.lock("orders:1").acquire();
    }

    @AfterAll
    static void stop() {
        held.release();
        app.close();
        zk.close();
    }

    @Test
    void locksListPrintsItsAnswerAloneOnStandardOutputAndLogsNothingBelowWarn() {
        CommandRun run = list();

        assertTheAnswerAloneOnStandardOutput(run);
        assertThat(run.errAt("DEBUG")).as("%s", run).isEmpty();
        assertThat(run.errAt("INFO")).as("%s", run).isEmpty();
    }

    @Test
    void verboseAddsTheLibrariesDebugOnStandardErrorAndLeavesTheAnswerAlone() {
        CommandRun run = list("--verbose");

        assertTheAnswerAloneOnStandardOutput(run);
        assertThat(run.errAt("DEBUG")).as("%s", run).anyMatch(l -> l.contains("org.apache.zookeeper"));
    }

    /** The one line of {@code locks list} for the held lock, and nothing else. */
    private static void assertTheAnswerAloneOnStandardOutput(CommandRun run) {
        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.out())
                .as("%s", run)
                .singleElement()
                .asString()
                .startsWith("orders:1\tbilling-pod-1 (token " + held.token() + ",");
    }

    private static CommandRun list(String... more) {
        List<String> args = new ArrayList<>(List.of(
                "locks",
                "list",
                "--zookeeper=" + zk.connectString(),
                "--root=/cli-logging/locks",
                "--connect-timeout=10"));
        args.addAll(List.of(more));
        return CommandRun.of(ZkfenceCommand.class, List.of(), Duration.ofMinutes(2), args.toArray(String[]::new));
    }
}
