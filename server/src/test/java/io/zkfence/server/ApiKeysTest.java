package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.server.ReplicaFixture.Reply;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bearer API keys: each reaches its own namespaces only; admin keys force-release and read the audit trail. */
class ApiKeysTest {

    private static final String INVENTORY_KEY = "inventory-secret-0123456789";
    private static final String ADMIN_KEY = "admin-secret-0123456789abcdef";

    @TempDir
    Path dir;

    private ApiKeys keys() throws IOException {
        Path file = dir.resolve("keys.json");
        Files.writeString(file, """
                {"keys": [
                  {"name": "inventory", "key": "%s", "namespaces": ["inventory"]},
                  {"name": "ops", "key": "%s", "admin": true}
                ]}""".formatted(INVENTORY_KEY, ADMIN_KEY));
        return ApiKeys.load(file);
    }

    @Test
    void aKeyReachesItsOwnNamespacesOnlyAndOnlyAdminsForceRelease() throws Exception {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                ReplicaFixture server = new ReplicaFixture(ensemble.connectString(), "/keys", keys(), INVENTORY_KEY)) {
            String acquire = "{\"ownerId\":\"pod\",\"ttlMillis\":10000}";
            assertThat(server.post("inventory:sku-1", "acquire", acquire).status())
                    .isEqualTo(200);
            assertThat(server.path("/v1/locks?namespace=inventory").body().get("locks"))
                    .hasSize(1);

            Reply otherNamespace = server.post("payments:tx-1", "acquire", acquire);
            assertThat(otherNamespace.status()).isEqualTo(403);
            assertThat(otherNamespace.body().get("error").asText()).isEqualTo("NAMESPACE_FORBIDDEN");
            assertThat(server.path("/v1/locks?namespace=payments").status()).isEqualTo(403);
            assertThat(server.get("payments:tx-1").status()).isEqualTo(403);

            Reply notAdmin = server.post("inventory:sku-1", "force-release", "{\"reason\":\"x\"}");
            assertThat(notAdmin.status()).isEqualTo(403);
            assertThat(notAdmin.body().get("error").asText()).isEqualTo("ADMIN_REQUIRED");
            assertThat(server.path("/v1/audit").status()).isEqualTo(403);

            ReplicaFixture admin = server.as(ADMIN_KEY);
            assertThat(admin.post("inventory:sku-1", "force-release", "{\"reason\":\"x\"}")
                            .body()
                            .get("status")
                            .asText())
                    .isEqualTo("FORCE_RELEASED");
            assertThat(admin.path("/v1/audit")
                            .body()
                            .get("entries")
                            .get(0)
                            .get("by")
                            .asText())
                    .isEqualTo("ops");

            Reply none = server.as(null).post("inventory:sku-2", "acquire", acquire);
            assertThat(none.status()).isEqualTo(401);
            assertThat(none.body().get("error").asText()).isEqualTo("UNAUTHORIZED");
            assertThat(server.as("not-a-configured-key-at-all")
                            .get("inventory:sku-2")
                            .status())
                    .isEqualTo(401);
            assertThat(server.as(null).path("/health/ready").status()).isEqualTo(200); // probes need no key
            assertThat(server.as(null).get("inventory:sku-2").status()).isEqualTo(401);
        }
    }

    @Test
    void aKeyFileThatIsWrongIsRefusedNamingTheEntry() throws IOException {
        assertThat(refused("{\"keys\": []}")).contains("at least one key");
        assertThat(refused("{\"keys\": [{\"name\": \"a\", \"key\": \"short\", \"namespaces\": [\"x\"]}]}"))
                .contains("keys[0]", "at least 16");
        assertThat(refused("{\"keys\": [{\"name\": \"a\", \"key\": \"0123456789abcdef0\"}]}"))
                .contains("keys[0]", "namespace");
        assertThat(
                        refused(
                                "{\"keys\": [{\"name\": \"a\", \"key\": \"0123456789abcdef0\", \"namespaces\": [\"bad ns\"]}]}"))
                .contains("keys[0]", "bad ns");
        assertThat(refused("{\"keys\": [{\"name\": \"a\", \"key\": \"0123456789abcdef0\", \"admin\": true},"
                        + " {\"name\": \"a\", \"key\": \"0123456789abcdef1\", \"admin\": true}]}"))
                .contains("keys[1]", "twice");
        assertThat(refused("not json")).contains("JSON");
    }

    private String refused(String content) throws IOException {
        Path file = Files.writeString(dir.resolve("bad.json"), content);
        return assertThrows(IllegalArgumentException.class, () -> ApiKeys.load(file))
                .getMessage();
    }
}
