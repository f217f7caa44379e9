package io.zkfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeytoolTest {

    @TempDir
    Path dir;

    @Test
    void aSelfSignedKeyStoreHoldsTheKeyAndACertificateForTheHostAndLoopback() throws Exception {
        Path store = dir.resolve("server.p12");

        Keytool.selfSigned(store, "server", "EC", "localhost", "changeit-1");

        KeyStore keys = KeyStore.getInstance(store.toFile(), "changeit-1".toCharArray());
        assertThat(keys.isKeyEntry("server")).isTrue();
        assertThat(keys.getKey("server", "changeit-1".toCharArray()).getAlgorithm())
                .isEqualTo("EC");
        X509Certificate cert = (X509Certificate) keys.getCertificate("server");
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
        assertThat(cert.getIssuerX500Principal()).isEqualTo(cert.getSubjectX500Principal());
        assertThat(cert.getSubjectAlternativeNames())
                .containsExactlyInAnyOrder(List.of(2, "localhost"), List.of(7, "127.0.0.1"));
    }

    @Test
    void anUnknownKeyAlgorithmIsRefusedAndWritesNothing() {
        Path store = dir.resolve("server.p12");

        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> Keytool.selfSigned(store, "server", "DSA", "localhost", "pw-123"));

        assertThat(refused).hasMessageContaining("'DSA'");
        assertThat(Files.exists(store)).isFalse();
    }

    @Test
    void aFailingCommandReportsKeytoolsOutput() {
        IllegalStateException failed =
                assertThrows(IllegalStateException.class, () -> Keytool.run("-list", "-keystore", "no-such.p12"));

        assertThat(failed).hasMessageContaining("keytool -list").hasMessageContaining("no-such.p12");
    }
}
