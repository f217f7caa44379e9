package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python client under samples/python, run with python3 against a real replica: it acquires,
 * holds while renewing at a third of the TTL (the hold is longer than the TTL, so renewals are
 * what keep it), and releases. Fails loudly if python3 is missing.
 */
class PythonClientTest {

    private static final String KEY = "python-client-key-0123456789";

    @TempDir
    Path dir;

    @Test
    void thePythonClientAcquiresRenewsPastItsTtlAndReleasesWithItsApiKey() throws Exception {
        Path script = Path.of("..", "samples", "python", "zkfence_client.py").toAbsolutePath().normalize();
        assertThat(script).exists();
        Path keys = Files.writeString(dir.resolve("keys.json"),
                "{\"keys\": [{\"name\": \"python\", \"key\": \"" + KEY + "\", \"namespaces\": [\"inventory\"]}]}");
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder().servers(1).start();
                ReplicaFixture replica = new ReplicaFixture(zk.connectString(), "/py-" + UUID.randomUUID(),
                        ApiKeys.load(keys), KEY)) {
            Process python;
            try {
                python = new ProcessBuilder("python3", script.toString(), "--base",
                        "http://127.0.0.1:" + replica.server.port(), "--key", "inventory:sku-42", "--owner", "py-pod",
                        "--ttl-ms", "900", "--hold-ms", "2500", "--api-key", KEY).redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new AssertionError("python3 is needed for this test and could not be started: " + e, e);
            }
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> replica.get("inventory:sku-42").status() == 200);
            assertThat(replica.get("inventory:sku-42").body().get("ownerId").asText()).isEqualTo("py-pod");
            assertThat(python.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String out = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(python.exitValue()).as(out).isZero();
            assertThat(out).contains("acquired inventory:sku-42 fencingToken=").contains("released inventory:sku-42 (RELEASED)");
            assertThat(replica.get("inventory:sku-42").status()).isEqualTo(404);
        }
    }
}
