package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * samples/python's command line, which runs the zkfence Python package (clients/python), run with
 * python3 against a real replica with API keys; the package's own suite covers the rest
 * (clients/conformance.json). Fails loudly if python3 is missing.
 */
class PythonClientTest {

    private static final String KEY = "python-client-key-0123456789";
    private static final Path SCRIPT = Path.of("..", "samples", "python", "zkfence_client.py")
            .toAbsolutePath()
            .normalize();
    private static final Pattern TOKEN = Pattern.compile("acquired \\S+ fencingToken=(\\d+)");

    @TempDir
    Path dir;

    private EmbeddedEnsemble zk;
    private ReplicaFixture replica;

    @BeforeEach
    void replicaWithKeys() throws IOException {
        Path keys = Files.writeString(
                dir.resolve("keys.json"),
                "{\"keys\": [{\"name\": \"python\", \"key\": \"" + KEY + "\", \"namespaces\": [\"inventory\"]}]}");
        zk = EmbeddedEnsemble.builder().servers(1).start();
        replica = new ReplicaFixture(zk.connectString(), "/py-" + UUID.randomUUID(), ApiKeys.load(keys), KEY);
    }

    @AfterEach
    void stop() {
        replica.close();
        zk.close();
    }

    private Process python(String owner, String... more) {
        List<String> command = new ArrayList<>(List.of(
                "python3",
                SCRIPT.toString(),
                "--base",
                "http://127.0.0.1:" + replica.server.port(),
                "--key",
                "inventory:sku-42",
                "--owner",
                owner,
                "--api-key",
                KEY));
        command.addAll(List.of(more));
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("python3 is needed for this test and could not be started: " + e, e);
        }
    }

    private static String output(Process p) throws Exception {
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("python client finished").isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static long token(String out) {
        Matcher m = TOKEN.matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void thePythonClientAcquiresRenewsPastItsTtlAndReleases() throws Exception {
        assertThat(SCRIPT).exists();
        Process python = python("py-pod", "--ttl-ms", "900", "--hold-ms", "2500");
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> replica.get("inventory:sku-42").status() == 200);
        assertThat(replica.get("inventory:sku-42").body().get("ownerId").asText())
                .isEqualTo("py-pod");
        String out = output(python);
        assertThat(python.exitValue()).as(out).isZero();
        assertThat(out)
                .contains("acquired inventory:sku-42 fencingToken=")
                .contains("released inventory:sku-42 (RELEASED, wasHeld=True)");
        assertThat(replica.get("inventory:sku-42").status()).isEqualTo(404);
    }

    @Test
    void aPythonClientThatStopsRenewingLosesTheLockAndItsTokenIsRejectedByTheFence() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:python-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcFence fence = JdbcFence.create(ds, FenceConfig.defaults(FenceDialect.H2));
        fence.createIfMissing();

        // A: a client that pauses (never renews) while it still holds on to its work for 4 s.
        Process paused = python("py-paused", "--ttl-ms", "800", "--hold-ms", "4000", "--no-renew");
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> replica.get("inventory:sku-42").status() == 200);
        // B: waits, and is granted once A's lease has expired.
        Process next = python("py-next", "--ttl-ms", "5000", "--hold-ms", "200");
        String nextOut = output(next);
        long nextToken = token(nextOut);
        fence.inTransaction("inventory:sku-42", nextToken, c -> 1); // B writes first

        String pausedOut = output(paused);
        long pausedToken = token(pausedOut);
        assertThat(nextToken).as(pausedOut + nextOut).isGreaterThan(pausedToken);
        assertThat(pausedOut)
                .contains("writing inventory:sku-42 with fencingToken=" + pausedToken)
                .contains("wasHeld=False"); // its lease was gone before it released
        // A wakes up and writes with the token it holds: the fence refuses it.
        JdbcStaleTokenException stale = assertThrows(
                JdbcStaleTokenException.class, () -> fence.inTransaction("inventory:sku-42", pausedToken, c -> 1));
        assertThat(stale.storedToken()).isEqualTo(nextToken);
    }
}
