package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The command line of {@code ./zkfence-server}: every flag in the help, and bad settings (flags, the
 * environment, an argument file) refused with exit code 2 and a message naming the setting,
 * before anything starts.
 */
class ServerCommandTest {

    @TempDir
    Path dir;

    /** What the command printed to standard error, and its exit code. */
    private record Run(int exit, String err) {}

    private static Run run(String... args) {
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new ServerCommand())
                .setErr(new PrintWriter(err))
                .execute(args);
        return new Run(exit, err.toString());
    }

    @Test
    void theHelpListsEveryFlagWithItsEnvironmentVariable() {
        CommandLine command = new CommandLine(new ServerCommand());
        StringWriter out = new StringWriter();

        int exit = command.setOut(new PrintWriter(out)).execute("--help");

        assertThat(exit).isZero();
        for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
            assertThat(out.toString()).contains(option.longestName());
        }
        for (String variable : List.of(
                "ZKFENCE_ZOOKEEPER",
                "ZKFENCE_PORT",
                "ZKFENCE_API_KEYS",
                "ZKFENCE_MAX_TTL_MS",
                "ZKFENCE_MAX_WAITERS",
                "ZKFENCE_REQUEST_RETENTION_MS",
                "ZKFENCE_SESSION_TIMEOUT_MS",
                "ZKFENCE_IDLE_TIMEOUT_MS")) {
            assertThat(out.toString()).contains(variable);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--no-auth --port 70000                   | --port (ZKFENCE_PORT) must be from 0 to 65535, was 70000",
                "--no-auth --port many                    | '--port'",
                "--no-auth --max-ttl-ms 0                 | --max-ttl-ms (ZKFENCE_MAX_TTL_MS) must be at least 1, was 0",
                "--no-auth --max-wait-ms -1               | --max-wait-ms (ZKFENCE_MAX_WAIT_MS) must not be negative",
                "--no-auth --audit-retention 0            | --audit-retention (ZKFENCE_AUDIT_RETENTION) must be at least 1",
                "--no-auth --digest nopassword            | --digest (ZKFENCE_ZK_DIGEST) must be user:password",
                "--no-auth --max-waiters 0                | --max-waiters (ZKFENCE_MAX_WAITERS) must be at least 1, was 0",
                "--no-auth --request-retention-ms 10      | --request-retention-ms (ZKFENCE_REQUEST_RETENTION_MS) must be at least 1000",
                "--no-auth --session-timeout-ms 500       | --session-timeout-ms (ZKFENCE_SESSION_TIMEOUT_MS) must be from 2000 to 120000",
                "--no-auth --zookeeper-lag-bound-ms -1    | --zookeeper-lag-bound-ms (ZKFENCE_ZOOKEEPER_LAG_BOUND_MS) must be from 0 to 600000",
                "--no-auth --idle-timeout-ms 10           | --idle-timeout-ms (ZKFENCE_IDLE_TIMEOUT_MS) must be at least 1000",
                "--no-auth --tls-cert server.crt          | --tls-cert and --tls-key go together",
                "--no-auth --api-keys keys.json           | give exactly one of --api-keys FILE or --no-auth",
                "--port 8081                              | give exactly one of --api-keys FILE or --no-auth",
                "--no-auth --no-such-flag                 | --no-such-flag",
            })
    void aBadSettingIsRefusedNamingItBeforeAnythingStarts(String args, String message) {
        Run run = run(args.strip().split(" +"));

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains(message.strip());
    }

    @Test
    void anApiKeyFileThatIsMissingIsRefusedNamingTheFile() {
        Path missing = dir.resolve("keys.json");

        Run run = run("--api-keys", missing.toString());

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains(missing.toString());
    }

    @Test
    void settingsFromTheEnvironmentAndAnArgumentFileAreCheckedTheSameWay() throws Exception {
        Path args = Files.writeString(dir.resolve("server.args"), "--no-auth\n--max-ttl-ms\n0\n");

        ProcessResult fromFile = runJvm(List.of(), "@" + args);
        ProcessResult fromEnvironment = runJvm(List.of("ZKFENCE_AUDIT_RETENTION=0"), "--no-auth");

        assertThat(fromFile.exit()).isEqualTo(2);
        assertThat(fromFile.output()).contains("--max-ttl-ms (ZKFENCE_MAX_TTL_MS) must be at least 1, was 0");
        assertThat(fromEnvironment.exit()).isEqualTo(2);
        assertThat(fromEnvironment.output())
                .contains("--audit-retention (ZKFENCE_AUDIT_RETENTION) must be at least 1, was 0");
    }

    private record ProcessResult(int exit, String output) {}

    /** The command in a JVM of its own (the environment is per process), with {@code env} (NAME=value) added. */
    private static ProcessResult runJvm(List<String> env, String... args) throws Exception {
        ProcessBuilder builder =
                new ProcessBuilder(ReplicaProcess.commandLine(List.of(), List.of(args))).redirectErrorStream(true);
        for (String setting : env) {
            String[] pair = setting.split("=", 2);
            builder.environment().put(pair[0], pair[1]);
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("the command ended")
                .isTrue();
        return new ProcessResult(process.exitValue(), output);
    }
}
