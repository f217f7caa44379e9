package io.zkfence.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Azurite's Blob service (the Azure Storage emulator, npm package {@code azurite} {@value
 * #VERSION}) in a child process, in memory, on a free loopback port: {@link #shared()} once per test
 * JVM, stopped when it exits, or {@link #start()} for a server of the caller's own.
 *
 * <p>The package is installed with {@code npm} into a cache folder the first time (about a minute
 * and 360 MB; {@code $ZKFENCE_TOOLS}, else {@code ~/.cache/zkfence}, as
 * {@code azurite-<version>/}), under a file lock so that concurrent builds install it once. Without
 * {@code node} and {@code npm} on the {@code PATH} the start fails, naming them: nothing is
 * skipped.
 *
 * <p>It serves the emulator's well-known account {@value #ACCOUNT}; {@link #connectionString()}
 * is what the Azure SDK's builders take.
 */
public final class AzuriteServer implements AutoCloseable {

    /** The npm package version the tests run against. */
    public static final String VERSION = "3.37.0";

    /** The emulator's account name. */
    public static final String ACCOUNT = "devstoreaccount1";

    /** The emulator's well-known account key (public: it is in Microsoft's documentation). */
    public static final String ACCOUNT_KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);
    private static final Duration INSTALL_WAIT = Duration.ofMinutes(10);
    private static final Pattern LISTENING = Pattern.compile("successfully listens on http://127\\.0\\.0\\.1:(\\d+)");

    private static AzuriteServer shared;

    private final Process process;
    private final Path dir;
    private final int port;
    private final List<String> output;

    private AzuriteServer(Process process, Path dir, int port, List<String> output) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.output = output;
    }

    /** The test JVM's one server, started on first use and stopped when the JVM exits. */
    public static synchronized AzuriteServer shared() {
        if (shared == null) {
            AzuriteServer s = start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "stop-azurite"));
            shared = s;
        }
        return shared;
    }

    /** A server of the caller's own, installing the package first if needed; close it when done. */
    public static AzuriteServer start() {
        Path blob = install().resolve("node_modules/.bin/azurite-blob");
        Path dir;
        try {
            dir = Files.createTempDirectory("zkfence-azurite");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = List.of(
                blob.toString(),
                "--inMemoryPersistence",
                "--blobHost",
                "127.0.0.1",
                "--blobPort",
                "0", // Azurite binds a free port and prints it
                "--skipApiVersionCheck"); // in memory: the working folder (dir) gets only its debug log, if any
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + blob, e);
        }
        List<String> output = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            output.add(line);
                            Matcher m = LISTENING.matcher(line);
                            if (m.find()) {
                                listening.complete(Integer.parseInt(m.group(1)));
                            }
                        }
                    } catch (IOException e) {
                        listening.completeExceptionally(e);
                    }
                    listening.completeExceptionally(
                            new IllegalStateException("azurite-blob ended its output before listening: " + output));
                },
                "azurite-output");
        reader.setDaemon(true);
        reader.start();
        try {
            int port = listening.get(STARTUP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return new AzuriteServer(process, dir, port, output);
        } catch (ExecutionException e) {
            process.destroyForcibly();
            throw new IllegalStateException("azurite-blob exited before it listened: " + output, e);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("azurite-blob did not start within " + STARTUP_WAIT + ": " + output, e);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while azurite-blob started", e);
        }
    }

    /** The loopback port the Blob service listens on. */
    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>/devstoreaccount1}, the account's Blob endpoint (path style). */
    public String blobEndpoint() {
        return "http://127.0.0.1:" + port + "/" + ACCOUNT;
    }

    /** The connection string the Azure SDK's client builders take. */
    public String connectionString() {
        return connectionString(blobEndpoint());
    }

    /** A connection string for the emulator's account at another endpoint (a proxy in front of it). */
    public static String connectionString(String blobEndpoint) {
        return "DefaultEndpointsProtocol=http;AccountName=" + ACCOUNT + ";AccountKey=" + ACCOUNT_KEY + ";BlobEndpoint="
                + blobEndpoint + ";";
    }

    /** What the process printed so far. */
    public List<String> output() {
        return List.copyOf(output);
    }

    @Override
    public void close() {
        // Azurite waits for open keep-alive connections on SIGTERM; it holds nothing worth saving.
        process.destroyForcibly();
        try {
            process.waitFor(STARTUP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteTree(dir);
    }

    /** The installed package's folder, installing it first when missing. */
    static Path install() {
        Path tools = toolsFolder();
        Path target = tools.resolve("azurite-" + VERSION);
        if (Files.isExecutable(target.resolve("node_modules/.bin/azurite-blob"))) {
            return target;
        }
        try {
            Files.createDirectories(tools);
            try (FileChannel lockFile = FileChannel.open(
                            tools.resolve("azurite-" + VERSION + ".lock"),
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE);
                    FileLock lock = lockFile.lock()) {
                if (Files.isExecutable(target.resolve("node_modules/.bin/azurite-blob"))) {
                    return target; // another build installed it while this one waited
                }
                Path staging = Files.createTempDirectory(tools, "azurite-" + VERSION + "-installing-");
                npmInstall(staging);
                deleteTree(target);
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                return target;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install azurite " + VERSION + " into " + target, e);
        }
    }

    private static void npmInstall(Path into) throws IOException {
        List<String> command = new ArrayList<>(
                List.of("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", into.toString()));
        command.add("azurite@" + VERSION);
        Process npm;
        try {
            npm = new ProcessBuilder(command)
                    .directory(into.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "npm is not installed: the Azure Blob tests run Azurite, the npm package azurite " + VERSION
                            + ", and need Node.js 20+ with npm on the PATH",
                    e);
        }
        npm.getOutputStream().close();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            if (!npm.waitFor(INSTALL_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                npm.destroyForcibly();
                throw new IllegalStateException("npm install azurite@" + VERSION + " took longer than " + INSTALL_WAIT);
            }
            if (npm.exitValue() != 0) {
                throw new IllegalStateException(
                        "npm install azurite@" + VERSION + " failed (exit " + npm.exitValue() + "): " + output.join());
            }
        } catch (InterruptedException e) {
            npm.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while npm installed azurite", e);
        }
    }

    private static Path toolsFolder() {
        String configured = System.getenv("ZKFENCE_TOOLS");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "zkfence");
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
