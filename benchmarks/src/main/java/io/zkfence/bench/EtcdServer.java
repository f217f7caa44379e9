package io.zkfence.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * One etcd member (the peer row of the lock service's workload), a process of its own started from
 * the {@code etcd} binary on this machine (Debian's {@code etcd-server} package), on free loopback
 * ports with a data directory of its own under {@code java.io.tmpdir} — the same file system as the
 * ZooKeeper servers' transaction logs. etcd's defaults otherwise: its WAL is fsynced before a write
 * is acknowledged.
 */
final class EtcdServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path dataDir;
    private final String endpoint;
    private final String version;

    private EtcdServer(Process process, Path dataDir, String endpoint, String version) {
        this.process = process;
        this.dataDir = dataDir;
        this.endpoint = endpoint;
        this.version = version;
    }

    /** The etcd binary on this machine: {@code ETCD_BIN}, else the first {@code etcd} on {@code PATH}. */
    static Optional<Path> binary() {
        String explicit = System.getenv("ETCD_BIN");
        if (explicit != null && !explicit.isBlank()) {
            Path p = Path.of(explicit);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        List<String> dirs = new ArrayList<>(List.of(path.split(":")));
        dirs.add("/usr/bin");
        return dirs.stream()
                .filter(d -> !d.isBlank())
                .map(d -> Path.of(d, "etcd"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Starts a one-member cluster and waits until it answers {@code /health}. */
    static EtcdServer start(Path binary) {
        Path dataDir;
        try {
            dataDir = Files.createTempDirectory("zkfence-bench-etcd");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make etcd's data directory", e);
        }
        int client = freePort();
        int peer = freePort();
        String clientUrl = "http://127.0.0.1:" + client;
        String peerUrl = "http://127.0.0.1:" + peer;
        List<String> command = List.of(
                binary.toString(),
                "--name",
                "bench",
                "--data-dir",
                dataDir.toString(),
                "--listen-client-urls",
                clientUrl,
                "--advertise-client-urls",
                clientUrl,
                "--listen-peer-urls",
                peerUrl,
                "--initial-advertise-peer-urls",
                peerUrl,
                "--initial-cluster",
                "bench=" + peerUrl,
                "--initial-cluster-state",
                "new",
                "--logger",
                "zap",
                "--log-level",
                "error");
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dataDir.resolve("etcd.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!p.isAlive()) {
                throw new IllegalStateException("etcd exited with " + p.exitValue() + " at start: " + log(dataDir));
            }
            String version = get(clientUrl + "/version");
            if (version != null && "true".equals(healthy(clientUrl))) {
                return new EtcdServer(p, dataDir, clientUrl, version);
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "etcd did not become healthy within " + START_TIMEOUT.toSeconds() + " s: " + log(dataDir));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** The client URL, for jetcd. */
    String endpoint() {
        return endpoint;
    }

    /** The server's own {@code /version} answer (server and cluster versions, as JSON). */
    String version() {
        return version;
    }

    Path dataDir() {
        return dataDir;
    }

    /** The member's process id (for reading its CPU and memory from outside). */
    long pid() {
        return process.pid();
    }

    private static String healthy(String url) {
        String body = get(url + "/health");
        if (body == null) {
            return null;
        }
        return body.replaceAll("\\s", "").contains("\"health\":\"true\"") ? "true" : "false";
    }

    private static String get(String url) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
            c.setConnectTimeout(1_000);
            c.setReadTimeout(2_000);
            try {
                if (c.getResponseCode() != 200) {
                    return null;
                }
                return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException notYet) {
            return null;
        }
    }

    private static String log(Path dataDir) {
        try {
            String text = Files.readString(dataDir.resolve("etcd.log"));
            return text.length() > 2_000 ? text.substring(text.length() - 2_000) : text;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind is not worth failing the run for.
        }
    }
}
