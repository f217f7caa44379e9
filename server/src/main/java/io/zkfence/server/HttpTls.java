package io.zkfence.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The HTTP side's TLS identity: a key store (PKCS#12 or JKS) or a PEM certificate chain with its
 * PKCS#8 private key (RSA or EC), checked when the server starts so that a wrong file or password
 * stops it with a message naming the file.
 */
final class HttpTls {

    private static final char[] IN_MEMORY_PASSWORD = "zkfence-in-memory".toCharArray();

    private final KeyStore keyStore;
    private final char[] password;

    private HttpTls(KeyStore keyStore, char[] password) {
        this.keyStore = keyStore;
        this.password = password.clone();
    }

    /** A PKCS#12 or JKS key store holding the server's key and certificate chain. */
    static HttpTls fromKeyStore(Path file, String password) {
        if (password == null) {
            throw new IllegalArgumentException("TLS key store " + file + " needs its password (--tls-keystore-password"
                    + " or ZKFENCE_TLS_KEYSTORE_PASSWORD)");
        }
        try {
            return new HttpTls(KeyStore.getInstance(file.toFile(), password.toCharArray()), password.toCharArray());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "TLS key store " + file + " cannot be opened (wrong password or not a" + " PKCS#12/JKS file): "
                            + e.getMessage(),
                    e);
        }
    }

    /** A PEM certificate chain (server certificate first) and its PEM PKCS#8 private key ({@code BEGIN PRIVATE KEY}). */
    static HttpTls fromPem(Path certificateChain, Path privateKey) {
        try {
            List<? extends Certificate> chain;
            try (InputStream in = Files.newInputStream(certificateChain)) {
                chain = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
            }
            if (chain.isEmpty()) {
                throw new IllegalArgumentException(
                        "TLS certificate file " + certificateChain + " holds no certificate");
            }
            PrivateKey key = privateKey(privateKey, chain.get(0).getPublicKey().getAlgorithm());
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("server", key, IN_MEMORY_PASSWORD, chain.toArray(Certificate[]::new));
            return new HttpTls(store, IN_MEMORY_PASSWORD);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "TLS certificate " + certificateChain + " or key " + privateKey + " cannot be read: "
                            + e.getMessage(),
                    e);
        }
    }

    private static PrivateKey privateKey(Path file, String algorithm) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(
                    "TLS key " + file + " must be a PEM PKCS#8 key (-----BEGIN PRIVATE KEY-----);"
                            + " convert others with: openssl pkcs8 -topk8 -nocrypt");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    /**
     * A client context that trusts exactly this identity's certificates (no others): for the
     * replica's warm-up calls to its own port. Host names are not checked by the sockets it makes.
     */
    SSLContext selfTrusting() {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            int n = 0;
            for (String alias : Collections.list(keyStore.aliases())) {
                Certificate[] chain = keyStore.getCertificateChain(alias);
                for (Certificate c : chain == null ? new Certificate[] {keyStore.getCertificate(alias)} : chain) {
                    if (c != null) {
                        trusted.setCertificateEntry("own-" + n++, c);
                    }
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot trust the server's own certificate for its warm-up", e);
        }
    }

    /** Jetty's server-side TLS configuration for this identity. */
    SslContextFactory.Server sslContextFactory() {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(keyStore);
        ssl.setKeyStorePassword(new String(password));
        return ssl;
    }
}
