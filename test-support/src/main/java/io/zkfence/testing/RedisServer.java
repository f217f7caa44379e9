package io.zkfence.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Redis server in a child process: Debian's {@code redis-server} (7.0 on these machines),
 * on a free loopback port, with its data directory in a fresh temporary folder, as embedded
 * PostgreSQL is. {@link #shared()} is started once per test JVM and stopped when it exits; a test
 * that restarts or kills its server makes one of its own with {@link #start(List)} and closes it.
 *
 * <p>The binary is {@code $REDIS_SERVER}, else {@code redis-server} on the {@code PATH}, else
 * {@code /usr/bin/redis-server}. When none is there the start fails, naming the package to
 * install: nothing is skipped. ({@code .ci/run} installs it on Debian.)
 *
 * <p>Persistence is off unless the arguments turn it on: no RDB snapshots ({@code --save ""}) and
 * no append-only file. {@link #kill()} ends the process with SIGKILL (a crash: nothing is saved on
 * the way out); {@link #restart()} starts it again on the same port, directory and arguments, so
 * whatever the persistence settings kept is loaded again.
 */
public final class RedisServer implements AutoCloseable {

    /** The Redis the machines have (Debian 12's redis-server 7.0.15). */
    public static final String DEBIAN_PACKAGE = "redis-server";

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(30);
    private static final int PORT_ATTEMPTS = 5;

    private static RedisServer shared;

    private final Path binary;
    private final Path dir;
    private final List<String> arguments;
    private final int port;
    private Process process;

    private RedisServer(Path binary, Path dir, List<String> arguments, int port) {
        this.binary = binary;
        this.dir = dir;
        this.arguments = List.copyOf(arguments);
        this.port = port;
    }

    /** The test JVM's one server (no persistence), started on first use and stopped when the JVM exits. */
    public static synchronized RedisServer shared() {
        if (shared == null) {
            RedisServer s = start(List.of());
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "stop-redis-server"));
            shared = s;
        }
        return shared;
    }

    /**
     * A server of the caller's own; close it when done.
     *
     * @param arguments more {@code redis-server} arguments, after the defaults (so they win), for
     *     example {@code List.of("--appendonly", "yes", "--appendfsync", "always")}
     */
    public static RedisServer start(List<String> arguments) {
        Path binary = binary();
        Path dir;
        try {
            dir = Files.createTempDirectory("zkfence-redis");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for redis-server", e);
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            RedisServer server = new RedisServer(binary, dir, arguments, freePort());
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                // Most often the free port was taken between finding and binding it: try another.
                last = e;
                server.kill();
            }
        }
        throw last;
    }

    /** The loopback port the server listens on. */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}, a URI Lettuce and Jedis take. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The server's data directory (where an RDB file or an append-only file goes). */
    public Path dataDirectory() {
        return dir;
    }

    /** Whether the process is running. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Ends the server with SIGKILL, as a crash would: nothing is written on the way out. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                if (!process.waitFor(STARTUP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("redis-server on port " + port + " did not die of SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while killing redis-server", e);
            }
            process = null;
        }
    }

    /** Starts the server again (after {@link #kill()}) on the same port, directory and arguments. */
    public synchronized void restart() {
        kill();
        launch();
    }

    @Override
    public synchronized void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete redis-server's directory " + dir, e);
        }
    }

    @Override
    public String toString() {
        return "redis-server " + uri() + " (dir " + dir + ", arguments " + arguments + ")";
    }

    private synchronized void launch() {
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--protected-mode",
                "no",
                "--daemonize",
                "no",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--logfile",
                ""));
        command.addAll(arguments);
        Path log = dir.resolve("redis-" + port + ".log");
        try {
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "redis-server exited with " + process.exitValue() + " on port " + port + ": " + tail(log));
            }
            if (answersPing()) {
                return;
            }
            try {
                Thread.sleep(20); // polling a child process's port: no event to wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while redis-server started", e);
            }
        }
        throw new IllegalStateException(
                "redis-server did not answer PING on port " + port + " within " + STARTUP_WAIT + ": " + tail(log));
    }

    /**
     * True once the server answers PING with PONG: loading a data set, it answers LOADING
     * instead.
     */
    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
            socket.setSoTimeout(1_000);
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            int n = in.readNBytes(reply, 0, reply.length);
            return new String(reply, 0, n, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static Path binary() {
        return binary(System.getenv(), Path.of("/usr/bin/redis-server"));
    }

    /** The binary {@code env} points at, else {@code debian}; fails naming the package when there is none. */
    static Path binary(Map<String, String> env, Path debian) {
        String configured = env.get("REDIS_SERVER");
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured);
            if (Files.isExecutable(p)) {
                return p;
            }
            throw new IllegalStateException("REDIS_SERVER=" + configured + " is not an executable file");
        }
        String path = env.getOrDefault("PATH", "");
        for (String entry : path.split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty()) {
                Path p = Path.of(entry, "redis-server");
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        if (Files.isExecutable(debian)) {
            return debian;
        }
        throw new IllegalStateException("redis-server is not installed: the fencing-redis tests start a real Redis"
                + " and need Debian's '" + DEBIAN_PACKAGE + "' package (apt-get install -y " + DEBIAN_PACKAGE
                + "; .ci/run installs it), or $REDIS_SERVER pointing at a redis-server binary");
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port", e);
        }
    }
}
