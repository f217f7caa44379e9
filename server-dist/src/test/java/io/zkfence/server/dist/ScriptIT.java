package io.zkfence.server.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/zkfence-server}'s own behaviour, before any server starts: the server's exit code 2 for
 * a bad flag, its exit code 3 and message without a Java 21+, the shipped argument file accepted.
 */
class ScriptIT {

    @TempDir
    static Path emptyFolder;

    private static UnpackedDistribution dist;

    @BeforeAll
    static void unpack() {
        dist = UnpackedDistribution.unpack(emptyFolder);
    }

    @Test
    void aBadFlagExitsWithCode2AndTheServerNamesIt() {
        try (ScriptProcess run =
                ScriptProcess.start(dist.script(), ScriptProcess.onThisJava(), "--no-auth", "--no-such-flag")) {
            assertThat(run.awaitExit(Duration.ofSeconds(60))).isEqualTo(2);
            assertThat(run.output()).anyMatch(l -> l.contains("Unknown option: '--no-such-flag'"));
        }
    }

    @Test
    void aBadValueFromTheEnvironmentExitsWithCode2NamingTheVariable() {
        Map<String, String> env = new HashMap<>(ScriptProcess.onThisJava());
        env.put("ZKFENCE_AUDIT_RETENTION", "0");
        try (ScriptProcess run = ScriptProcess.start(dist.script(), env, "--no-auth")) {
            assertThat(run.awaitExit(Duration.ofSeconds(60))).isEqualTo(2);
            assertThat(run.output()).anyMatch(l -> l.contains("ZKFENCE_AUDIT_RETENTION"));
        }
    }

    @Test
    void theShippedArgumentFileIsAcceptedByTheServer() {
        // --help after the file: picocli reads every flag in it (an unknown or malformed one is exit
        // 2) and then prints the usage instead of starting.
        try (ScriptProcess run = ScriptProcess.start(
                dist.script(), ScriptProcess.onThisJava(), "@" + dist.resolve("conf/server.args"), "--help")) {
            assertThat(run.awaitExit(Duration.ofSeconds(60)))
                    .as("%s", run.output())
                    .isZero();
            assertThat(run.output()).anyMatch(l -> l.startsWith("Usage: zkfence-server"));
        }
    }

    @Test
    void withoutAJava21TheScriptExitsWithCode3AndSaysWhatItFound(@TempDir Path pathWithoutJava) throws IOException {
        // A PATH with bash on it and no java; JAVA_HOME pointing at nothing.
        Files.createSymbolicLink(pathWithoutJava.resolve("bash"), bash());
        Map<String, String> env = new HashMap<>();
        env.put("PATH", pathWithoutJava.toString());
        env.put("JAVA_HOME", "/nonexistent/jdk");
        try (ScriptProcess run = ScriptProcess.start(dist.script(), env, "--no-auth")) {
            assertThat(run.awaitExit(Duration.ofSeconds(60))).isEqualTo(3);
            assertThat(String.join("\n", run.output()))
                    .contains("zkfence-server: needs Java 21 or newer")
                    .contains("/nonexistent/jdk/bin/java (does not run)")
                    .contains("set JAVA_HOME");
        }
    }

    private static Path bash() {
        for (String dir : System.getenv("PATH").split(":")) {
            Path candidate = Path.of(dir, "bash");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("no bash on PATH: bin/zkfence-server is a bash script");
    }
}
