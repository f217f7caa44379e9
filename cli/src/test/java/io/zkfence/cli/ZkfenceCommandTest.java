package io.zkfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The commands run in-process against an embedded ensemble, their output and exit codes captured. */
class ZkfenceCommandTest {

    private static EmbeddedEnsemble zk;
    private String root;
    private CuratorFramework curator;
    private LockClient app;

    /** What one run printed and returned. */
    private record Run(int exit, String out, String err) {}

    @BeforeAll
    static void start() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stop() {
        zk.close();
    }

    @BeforeEach
    void application() {
        root = "/cli-" + UUID.randomUUID().toString().substring(0, 8) + "/locks";
        curator = CuratorFrameworkFactory.newClient(zk.connectString(), new ExponentialBackoffRetry(100, 3));
        curator.start();
        app = LockClient.create(
                curator,
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId("billing-pod-1")
                        .build());
    }

    @AfterEach
    void close() {
        app.close();
        curator.close();
    }

    private Run run(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = ZkfenceCommand.commandLine(new BufferedReader(new StringReader(stdin)));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] all = Arrays.copyOf(args, args.length + 4);
        all[args.length] = "--zookeeper=" + zk.connectString();
        all[args.length + 1] = "--root=" + root;
        all[args.length + 2] = "--owner=ops-alice";
        all[args.length + 3] = "--connect-timeout=10";
        int exit = cl.execute(all);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void listPrintsEveryLockWithItsHolderAndWaitersAndJsonForScripts() {
        try (Lease held = app.lock("orders:1").acquire()) {
            app.lock("orders:2").acquire().release();
            Run text = run("", "locks", "list", "--prefix", "orders:");
            assertThat(text.exit()).isZero();
            assertThat(text.out())
                    .contains("orders:1\tbilling-pod-1 (token " + held.token())
                    .contains("orders:2\tfree");
            Run json = run("", "locks", "list", "--json");
            assertThat(json.exit()).isZero();
            assertThat(json.out()).contains("\"name\":\"orders:1\"").contains("\"token\":" + held.token());
        }
    }

    @Test
    void inspectShowsTheHolderAndAnswersFourForAFreeLock() {
        try (Lease held = app.lock("sku-9").acquire()) {
            Run run = run("", "locks", "inspect", "sku-9");
            assertThat(run.exit()).isZero();
            assertThat(run.out()).contains("holder  billing-pod-1, token " + held.token());
        }
        assertThat(run("", "locks", "inspect", "sku-9").exit()).isEqualTo(ExitCodes.NOT_HELD);
    }

    @Test
    void forceReleaseAsksForConfirmationEvictsTheHolderAndIsOnTheAuditRecord() {
        Lease stuck = app.lock("stuck").acquire();
        Run declined = run("no\n", "locks", "force-release", "stuck", "--reason", "hung");
        assertThat(declined.exit()).isEqualTo(ExitCodes.NOT_CONFIRMED);
        assertThat(stuck.state()).isEqualTo(LeaseState.HELD);

        Run confirmed = run("yes\n", "locks", "force-release", "stuck", "--reason", "hung in GC, OPS-7");
        assertThat(confirmed.exit()).isZero();
        assertThat(confirmed.out()).contains("RELEASED").contains("billing-pod-1");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> stuck.state() == LeaseState.LOST);

        Run audit = run("", "audit");
        assertThat(audit.exit()).isZero();
        assertThat(audit.out()).contains("stuck").contains("by ops-alice").contains("hung in GC, OPS-7");
        assertThat(run("", "locks", "force-release", "stuck", "--reason", "again", "--yes")
                        .exit())
                .isEqualTo(ExitCodes.NOT_HELD);
    }

    @Test
    void watchPrintsEachHandOffAsItHappens() throws Exception {
        Lease first = app.lock("watched").acquire();
        StringWriter out = new StringWriter();
        CommandLine cl = ZkfenceCommand.commandLine(new BufferedReader(new StringReader("")));
        cl.setOut(new PrintWriter(out, true));
        CompletableFuture<Integer> watching = CompletableFuture.supplyAsync(() -> cl.execute(
                "locks", "watch", "watched", "--changes", "3", "--zookeeper=" + zk.connectString(), "--root=" + root));
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> out.toString().contains("token " + first.token()));
        first.release();
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> out.toString().contains("\tfree\t"));
        try (Lease second = app.lock("watched").acquire(Duration.ofSeconds(30))) {
            assertThat(watching.get(30, TimeUnit.SECONDS)).isZero();
            assertThat(out.toString().lines()).hasSize(3);
            assertThat(out.toString().lines().toList().get(2)).contains("token " + second.token());
        }
    }

    @Test
    void missingArgumentsAndAnUnreachableZooKeeperGiveDocumentedExitCodes() {
        Run noReason = run("", "locks", "force-release", "x");
        assertThat(noReason.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(noReason.err()).contains("--reason");

        StringWriter err = new StringWriter();
        CommandLine cl = ZkfenceCommand.commandLine(new BufferedReader(new StringReader("")));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        int exit = cl.execute("locks", "list", "--zookeeper=127.0.0.1:1", "--connect-timeout=1");
        assertThat(exit).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(err.toString()).contains("no connection to ZooKeeper at 127.0.0.1:1");
    }

    @Test
    void everyCommandHasHelp() {
        for (String[] cmd : new String[][] {
            {"--help"},
            {"locks", "--help"},
            {"locks", "list", "--help"},
            {"locks", "inspect", "--help"},
            {"locks", "watch", "--help"},
            {"locks", "force-release", "--help"},
            {"audit", "--help"}
        }) {
            StringWriter out = new StringWriter();
            CommandLine cl = ZkfenceCommand.commandLine(new BufferedReader(new StringReader("")));
            cl.setOut(new PrintWriter(out, true));
            assertThat(cl.execute(cmd)).as(String.join(" ", cmd)).isZero();
            assertThat(out.toString()).contains("Usage:");
        }
    }
}
