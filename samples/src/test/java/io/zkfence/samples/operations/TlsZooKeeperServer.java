package io.zkfence.samples.operations;

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
final class TlsZooKeeperServer implements AutoCloseable {

    static final String PASSWORD = "changeit";

    /** A key store with a key pair and its certificate, and a trust store holding only that certificate. */
    record Stores(Path keyStore, Path trustStore) {}

    private final Process process;
    private final int port;
    private final Stores stores;

    private TlsZooKeeperServer(Process process, int port, Stores stores) {
        this.process = process;
        this.port = port;
        this.stores = stores;
    }

    static TlsZooKeeperServer start(Path dir) throws IOException, InterruptedException {
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
     * manager only takes trusted-certificate entries as anchors).
     */
    static Stores keyPair(Path dir, String name, String host) throws IOException, InterruptedException {
        Path keyStore = dir.resolve(name + "-key.p12");
        Path certificate = dir.resolve(name + ".pem");
        Path trustStore = dir.resolve(name + "-trust.p12");
        keytool(
                "-genkeypair",
                "-alias",
                "zk",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=" + host,
                "-ext",
                "SAN=dns:" + host + ",ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD);
        keytool(
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
        keytool(
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

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.add("-noprompt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
        }
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    /** The server's key pair and a trust store with its certificate (self-signed: also what clients trust). */
    Stores stores() {
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
