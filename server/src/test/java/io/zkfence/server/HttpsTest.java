package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.testing.Keytool;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The HTTP side over TLS, from a key store or from PEM files; plain HTTP is not served then. A
 * waiting caller that closes its TLS connection is noticed through the decrypting layer.
 */
class HttpsTest {

    private static final String PASSWORD = "changeit-0123";

    @TempDir
    static Path dir;

    private static Path keyStore;
    private static EmbeddedEnsemble ensemble;

    @BeforeAll
    static void certificateAndEnsemble() throws Exception {
        keyStore = dir.resolve("server.p12");
        Keytool.selfSigned(keyStore, "server", "EC", "localhost", PASSWORD);
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    @Test
    void aKeyStoreServesHttpsAndNoPlainHttp() throws Exception {
        assertServesHttpsOnly(HttpTls.fromKeyStore(keyStore, PASSWORD));
    }

    @Test
    void pemFilesServeHttps() throws Exception {
        KeyStore store = KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
        Path cert = Files.writeString(
                dir.resolve("server.crt"),
                pem("CERTIFICATE", store.getCertificate("server").getEncoded()));
        Path key = Files.writeString(
                dir.resolve("server.key"),
                pem(
                        "PRIVATE KEY",
                        store.getKey("server", PASSWORD.toCharArray()).getEncoded()));
        assertServesHttpsOnly(HttpTls.fromPem(cert, key));
    }

    @Test
    void aWrongPasswordOrKeyFileStopsTheServerNamingTheFile() throws Exception {
        assertThat(assertThrows(IllegalArgumentException.class, () -> HttpTls.fromKeyStore(keyStore, "wrong"))
                        .getMessage())
                .contains(keyStore.toString(), "password");
        assertThat(assertThrows(IllegalArgumentException.class, () -> HttpTls.fromKeyStore(keyStore, null))
                        .getMessage())
                .contains("needs its password");
        Path notPkcs8 = Files.writeString(
                dir.resolve("rsa.key"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        KeyStore store = KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
        Path cert = Files.writeString(dir.resolve("only.crt"), pem("CERTIFICATE", storeCert(store)));
        assertThat(assertThrows(IllegalArgumentException.class, () -> HttpTls.fromPem(cert, notPkcs8))
                        .getMessage())
                .contains("PKCS#8", notPkcs8.toString());
    }

    /** How a TLS caller leaves. */
    enum TlsLeaving {
        /** SSLSocket.close(): a close_notify alert, then FIN. */
        CLOSE_NOTIFY,
        /** The TCP socket under it closed: FIN without close_notify. */
        BARE_FIN
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TlsLeaving.class)
    void aWaiterWhoseTlsConnectionClosesLeavesTheQueueAtOnce(TlsLeaving how) throws Exception {
        try (CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3))) {
            zk.start();
            LockHttpServer server = new LockHttpServer(
                    new StoreUnderTest(zk, "/https-" + UUID.randomUUID()).service,
                    ServerSettings.local(ApiKeys.open()).withTls(HttpTls.fromKeyStore(keyStore, PASSWORD)),
                    () -> zk.getZookeeperClient().isConnected());
            server.start();
            try {
                SSLContext tls = trusting(keyStore);
                HttpClient client = HttpClient.newBuilder().sslContext(tls).build();
                String base = "https://127.0.0.1:" + server.port();
                String lock = base + "/v1/locks/tls:waited";
                HttpResponse<String> holder =
                        send(client, lock + "/acquire", "{\"ownerId\":\"holder\",\"ttlMillis\":60000}");
                assertThat(holder.statusCode()).isEqualTo(200);

                Socket tcp = new Socket("127.0.0.1", server.port());
                SSLSocket leaving =
                        (SSLSocket) tls.getSocketFactory().createSocket(tcp, "127.0.0.1", server.port(), true);
                RawHttp.send(leaving, RawHttp.post("/v1/locks/tls:waited/acquire", waitBody("leaving")));
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> send(client, lock, null).body().contains("leaving"));
                SSLSocket next = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", server.port());
                next.setSoTimeout(30_000);
                RawHttp.send(next, RawHttp.post("/v1/locks/tls:waited/acquire", waitBody("next")));
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> send(client, lock, null).body().contains("next"));

                if (how == TlsLeaving.CLOSE_NOTIFY) {
                    leaving.close();
                } else {
                    tcp.close();
                }

                // The wait asked for two minutes: an entry gone within this bound went because its caller left.
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> !send(client, lock, null).body().contains("leaving"));
                assertThat(ReplicaFixture.meter(
                                send(client, base + "/metrics", null).body(), "zkfence_service_waits_abandoned_total"))
                        .isEqualTo(1.0);
                leaving.close();

                String lockToken = new ObjectMapper()
                        .readTree(holder.body())
                        .get("lockToken")
                        .asText();
                assertThat(send(
                                        client,
                                        lock + "/release",
                                        "{\"ownerId\":\"holder\",\"lockToken\":\"" + lockToken + "\"}")
                                .statusCode())
                        .isEqualTo(200);
                assertThat(RawHttp.readResponse(next))
                        .startsWith("HTTP/1.1 200")
                        .contains("\"ownerId\":\"next\"");
                // The TLS connection that waited (and was watched) serves its next request as usual.
                RawHttp.send(next, RawHttp.getThenClose("/health/live"));
                assertThat(RawHttp.readToEnd(next)).startsWith("HTTP/1.1 200").contains("\"status\":\"UP\"");
                next.close();
            } finally {
                server.close();
            }
        }
    }

    private static String waitBody(String owner) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":60000,\"wait\":true,\"waitMillis\":120000}";
    }

    /** A POST with {@code json}, or a GET when it is null. */
    private static HttpResponse<String> send(HttpClient client, String uri, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri));
        if (json != null) {
            request.POST(HttpRequest.BodyPublishers.ofString(json));
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] storeCert(KeyStore store) throws Exception {
        return store.getCertificate("server").getEncoded();
    }

    private static void assertServesHttpsOnly(HttpTls tls) throws Exception {
        try (CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3))) {
            zk.start();
            LockHttpServer server = new LockHttpServer(
                    new StoreUnderTest(zk, "/https-" + UUID.randomUUID()).service,
                    ServerSettings.local(ApiKeys.open()).withTls(tls),
                    () -> zk.getZookeeperClient().isConnected());
            server.start();
            try {
                HttpClient client =
                        HttpClient.newBuilder().sslContext(trusting(keyStore)).build();
                HttpResponse<String> acquire = client.send(
                        HttpRequest.newBuilder(
                                        URI.create("https://127.0.0.1:" + server.port() + "/v1/locks/tls:one/acquire"))
                                .POST(HttpRequest.BodyPublishers.ofString("{\"ownerId\":\"p\",\"ttlMillis\":10000}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(acquire.statusCode()).as(acquire.body()).isEqualTo(200);
                assertThat(acquire.body()).contains("\"fencingToken\"");
                HttpClient plain = HttpClient.newHttpClient();
                HttpRequest overHttp = HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + server.port() + "/health/live"))
                        .build();
                try {
                    HttpResponse<String> r = plain.send(overHttp, HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode())
                            .as("plain HTTP on the HTTPS port")
                            .isEqualTo(400); // Jetty: "not a TLS handshake"
                } catch (IOException refused) {
                    assertThat(refused).isNotNull(); // the connection was closed: no plain HTTP either
                }
            } finally {
                server.close();
            }
        }
    }

    private static SSLContext trusting(Path store) throws Exception {
        KeyStore trust = KeyStore.getInstance(store.toFile(), PASSWORD.toCharArray());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
