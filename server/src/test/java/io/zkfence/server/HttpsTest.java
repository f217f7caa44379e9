package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP side over TLS, from a key store or from PEM files; plain HTTP is not served then. */
class HttpsTest {

    private static final String PASSWORD = "changeit-0123";

    @TempDir
    static Path dir;

    private static Path keyStore;
    private static EmbeddedEnsemble ensemble;

    @BeforeAll
    static void certificateAndEnsemble() throws Exception {
        keyStore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
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
        Path cert = Files.writeString(dir.resolve("server.crt"), pem("CERTIFICATE", store.getCertificate("server").getEncoded()));
        Path key = Files.writeString(dir.resolve("server.key"),
                pem("PRIVATE KEY", store.getKey("server", PASSWORD.toCharArray()).getEncoded()));
        assertServesHttpsOnly(HttpTls.fromPem(cert, key));
    }

    @Test
    void aWrongPasswordOrKeyFileStopsTheServerNamingTheFile() throws Exception {
        assertThat(assertThrows(IllegalArgumentException.class, () -> HttpTls.fromKeyStore(keyStore, "wrong"))
                .getMessage()).contains(keyStore.toString(), "password");
        assertThat(assertThrows(IllegalArgumentException.class, () -> HttpTls.fromKeyStore(keyStore, null))
                .getMessage()).contains("needs its password");
        Path notPkcs8 = Files.writeString(dir.resolve("rsa.key"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        KeyStore store = KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
        Path cert = Files.writeString(dir.resolve("only.crt"), pem("CERTIFICATE", storeCert(store)));
        assertThat(assertThrows(IllegalArgumentException.class, () -> HttpTls.fromPem(cert, notPkcs8)).getMessage())
                .contains("PKCS#8", notPkcs8.toString());
    }

    private static byte[] storeCert(KeyStore store) throws Exception {
        return store.getCertificate("server").getEncoded();
    }

    private static void assertServesHttpsOnly(HttpTls tls) throws Exception {
        try (CuratorFramework zk = CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3))) {
            zk.start();
            LockHttpServer server = new LockHttpServer(new LeaseStore(zk, "/https-" + java.util.UUID.randomUUID(), Clock.systemUTC(), 10),
                    ServerSettings.local(ApiKeys.open()).withTls(tls), () -> zk.getZookeeperClient().isConnected());
            server.start();
            try {
                HttpClient client = HttpClient.newBuilder().sslContext(trusting(keyStore)).build();
                HttpResponse<String> acquire = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port()
                                + "/v1/locks/tls:one/acquire")).POST(HttpRequest.BodyPublishers.ofString(
                                "{\"ownerId\":\"p\",\"ttlMillis\":10000}")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(acquire.statusCode()).as(acquire.body()).isEqualTo(200);
                assertThat(acquire.body()).contains("\"fencingToken\"");
                HttpClient plain = HttpClient.newHttpClient();
                HttpRequest overHttp = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health/live")).build();
                try {
                    HttpResponse<String> r = plain.send(overHttp, HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as("plain HTTP on the HTTPS port").isEqualTo(400); // Jetty: "not a TLS handshake"
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
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
