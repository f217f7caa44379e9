package io.zkfence.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A ZooKeeper server that only speaks TLS (secureClientPort, client certificates required), in a
 * JVM of its own: its TLS settings are JVM-wide system properties, which must not leak into the
 * test JVM's clients. The key pair and its self-signed certificate are made with the JDK's keytool.
 */
public final class TlsZooKeeperServer implements AutoCloseable {

    /** The password of every key and trust store made here. */
    public static final String PASSWORD = "changeit";

    /**
     * A key store with a key pair and its certificate, and a trust store holding only that certificate.
     *
     * @param keyStore   PKCS#12, the key pair under alias {@code zk}
     * @param trustStore PKCS#12, the certificate as a trusted entry
     */
    public record Stores(Path keyStore, Path trustStore) {}

    private final Process process;
    private final int port;
    private final Stores stores;

    private TlsZooKeeperServer(Process process, int port, Stores stores) {
        this.process = process;
        this.port = port;
        this.stores = stores;
    }

    /**
     * Starts a standalone server with a fresh key pair ({@link #stores()}) on a free port, its data,
     * configuration and log ({@code server.log}) under {@code dir}. It may take a few seconds to
     * accept connections: clients wait for theirs.
     *
     * @throws UncheckedIOException if the files cannot be written or the JVM not started
     */
    public static TlsZooKeeperServer start(Path dir) {
        try {
            return startIn(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a TLS ZooKeeper server in " + dir, e);
        }
    }

    private static TlsZooKeeperServer startIn(Path dir) throws IOException {
        Stores stores = keyPair(dir, "server", "localhost");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = Files.createDirectories(dir.resolve("data"));
        Path config = Files.writeString(
                dir.resolve("zoo.cfg"), "tickTime=1000\ndataDir=" + data + "\nsecureClientPort=" + port + "\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-Dzookeeper.serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
                        "-Dzookeeper.ssl.keyStore.location=" + stores.keyStore(),
                        "-Dzookeeper.ssl.keyStore.password=" + PASSWORD,
                        "-Dzookeeper.ssl.trustStore.location=" + stores.trustStore(),
                        "-Dzookeeper.ssl.trustStore.password=" + PASSWORD,
                        "-Dzookeeper.admin.enableServer=false",
                        "org.apache.zookeeper.server.ZooKeeperServerMain",
                        config.toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile())
                .start();
        return new TlsZooKeeperServer(p, port, stores);
    }

    /**
     * A PKCS12 key store with a fresh RSA key pair and a self-signed certificate for {@code host}
     * and 127.0.0.1, and a trust store with that certificate as a trusted entry (ZooKeeper's trust
     * manager only takes trusted-certificate entries as anchors), as {@code name-key.p12} and
     * {@code name-trust.p12} under {@code dir}.
     *
     * @throws IllegalStateException if keytool fails
     */
    public static Stores keyPair(Path dir, String name, String host) {
        Path keyStore = dir.resolve(name + "-key.p12");
        Path certificate = dir.resolve(name + ".pem");
        Path trustStore = dir.resolve(name + "-trust.p12");
        Keytool.selfSigned(keyStore, "zk", "RSA", host, PASSWORD);
        Keytool.run(
                "-exportcert",
                "-alias",
                "zk",
                "-rfc",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                certificate.toString());
        Keytool.run(
                "-importcert",
                "-alias",
                "zk",
                "-file",
                certificate.toString(),
                "-storetype",
                "PKCS12",
                "-keystore",
                trustStore.toString(),
                "-storepass",
                PASSWORD);
        return new Stores(keyStore, trustStore);
    }

    /** The server's {@code 127.0.0.1:port}, TLS only. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /** The server's key pair and a trust store with its certificate (self-signed: also what clients trust). */
    public Stores stores() {
        return stores;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while stopping the TLS ZooKeeper server", e));
        }
    }
}
