package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.testing.Keytool;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's warm-up before readiness ({@code --warm-up-cycles}): its cycles go through the
 * replica's own port, readiness waits for them, and they leave nothing behind — no lease, no
 * queue entry, no count in the metrics — with API keys on and over HTTPS.
 */
class WarmUpTest {

    private static final String PASSWORD = "changeit-0123";
    private static final String ADMIN_KEY = "admin-secret-0123456789abcdef";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static EmbeddedEnsemble ensemble;

    @BeforeAll
    static void ensemble() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    @Test
    void readinessWaitsForTheWarmUpWhoseCyclesLeaveNoLeaseAndNoCount() throws Exception {
        Path keys = Files.writeString(
                dir.resolve("keys.json"),
                "{\"keys\": [{\"name\": \"ops\", \"key\": \"" + ADMIN_KEY + "\", \"admin\": true}]}");
        String root = "/warm-up-" + UUID.randomUUID().toString().substring(0, 8);
        try (CuratorFramework zk = client()) {
            LockHttpServer server = new LockHttpServer(
                    new StoreUnderTest(zk, root).service,
                    ServerSettings.local(ApiKeys.load(keys)).withWarmUp(30),
                    () -> zk.getZookeeperClient().isConnected());
            server.start();
            try {
                HttpClient http = HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + server.port();
                HttpResponse<String> before = get(http, base + "/health/ready");
                assertThat(before.statusCode()).isEqualTo(503);
                assertThat(JSON.readTree(before.body()).get("warmUp").asText()).isEqualTo("running");
                assertThat(get(http, base + "/health/live").statusCode()).isEqualTo(200);

                assertThat(server.warmUp()).as("cycles run").isEqualTo(30);

                HttpResponse<String> after = get(http, base + "/health/ready");
                assertThat(after.statusCode()).isEqualTo(200);
                assertThat(JSON.readTree(after.body()).get("warmUp").asText()).isEqualTo("done");
                assertThat(leftovers(zk, root))
                        .as("znodes left under the warm-up's namespace")
                        .isEmpty();
                String metrics = get(http, base + "/metrics").body();
                assertThat(ReplicaFixture.meter(metrics, "zkfence_service_grants_total"))
                        .isZero();
                assertThat(ReplicaFixture.meter(metrics, "zkfence_service_acquire_seconds_count{outcome=\"granted\"}"))
                        .isZero();
                JsonNode listed = JSON.readTree(http.send(
                                HttpRequest.newBuilder(URI.create(base + "/v1/locks?namespace=" + WarmUp.NAMESPACE))
                                        .header("Authorization", "Bearer " + ADMIN_KEY)
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body());
                assertThat(listed.get("locks")).isEmpty();
            } finally {
                server.close();
            }
        }
    }

    @Test
    void overHttpsTheWarmUpTrustsTheReplicasOwnCertificate() throws Exception {
        Path keyStore = dir.resolve("server.p12");
        Keytool.selfSigned(keyStore, "server", "EC", "localhost", PASSWORD);
        String root = "/warm-up-tls-" + UUID.randomUUID().toString().substring(0, 8);
        try (CuratorFramework zk = client()) {
            LockHttpServer server = new LockHttpServer(
                    new StoreUnderTest(zk, root).service,
                    ServerSettings.local(ApiKeys.open())
                            .withTls(HttpTls.fromKeyStore(keyStore, PASSWORD))
                            .withWarmUp(9),
                    () -> zk.getZookeeperClient().isConnected());
            server.start();
            try {
                assertThat(server.warmUp()).as("cycles run over HTTPS").isEqualTo(9);
                HttpClient https =
                        HttpClient.newBuilder().sslContext(trusting(keyStore)).build();
                assertThat(get(https, "https://127.0.0.1:" + server.port() + "/health/ready")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(leftovers(zk, root)).isEmpty();
            } finally {
                server.close();
            }
        }
    }

    @Test
    void aWarmUpOutOfRangeIsRefusedNamingTheFlag() {
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(
                                IllegalArgumentException.class,
                                () -> ServerSettings.local(ApiKeys.open()).withWarmUp(-1))
                        .getMessage())
                .contains("--warm-up-cycles (ZKFENCE_WARM_UP_CYCLES)");
    }

    /** Entries and request companions left in any lock of the warm-up's namespace. */
    private static List<String> leftovers(CuratorFramework zk, String root) throws Exception {
        String namespace = root + "/" + WarmUp.NAMESPACE;
        List<String> left = new ArrayList<>();
        if (zk.checkExists().forPath(namespace) == null) {
            return left;
        }
        for (String lock : zk.getChildren().forPath(namespace)) {
            for (String child : zk.getChildren().forPath(namespace + "/" + lock)) {
                left.add(lock + "/" + child);
            }
        }
        return left;
    }

    private static CuratorFramework client() {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }

    private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static SSLContext trusting(Path keyStore) throws Exception {
        java.security.KeyStore store = java.security.KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", store.getCertificate("server"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
