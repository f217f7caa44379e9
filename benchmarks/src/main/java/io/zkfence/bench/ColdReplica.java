package io.zkfence.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A replica just started: {@code io.zkfence.server.ServerCommand --zookeeper <the bench ensemble>
 * --no-auth --port 0} in a fresh JVM (the harness's JDK and class path, the JVM's default flags,
 * as {@code ./zkfence-server} runs it), stopped with SIGTERM as systemd or Kubernetes stops it.
 * Ready once it prints the port it listens on and {@code GET /health/ready} answers 200.
 */
final class ColdReplica implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("zkfence-server: listening \\(HTTP\\) on [^ ]*:(\\d+),");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final int port;
    private final long readyNanos;

    private ColdReplica(Process process, int port, long readyNanos) {
        this.process = process;
        this.port = port;
        this.readyNanos = readyNanos;
    }

    /**
     * Starts the replica with {@code extraArgs} after the command's own, and waits until it is ready.
     *
     * @param root the replica's {@code --root}
     */
    static ColdReplica start(String zookeeper, String root, List<String> extraArgs) {
        return start(zookeeper, root, List.of(), extraArgs);
    }

    /** As {@link #start(String, String, List)}, with {@code jvmFlags} for the replica's JVM. */
    static ColdReplica start(String zookeeper, String root, List<String> jvmFlags, List<String> extraArgs) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.zkfence.server.ServerCommand");
        command.addAll(List.of("--zookeeper", zookeeper, "--no-auth", "--port", "0", "--bind", "127.0.0.1"));
        command.addAll(List.of("--root", root));
        command.addAll(extraArgs);
        long t0 = System.nanoTime();
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a replica: " + command, e);
        }
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("cold-replica-stdout").start(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
            port.completeExceptionally(new IllegalStateException("the replica ended its output before listening (exit "
                    + (p.isAlive() ? "?" : p.exitValue()) + "); its stderr is above"));
        });
        int listening;
        try {
            listening = port.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            p.destroyForcibly();
            throw new IllegalStateException("the replica did not start within " + START_TIMEOUT.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a replica started", e);
        }
        ColdReplica replica = new ColdReplica(p, listening, 0);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try (KeepAliveHttp probe = new KeepAliveHttp("127.0.0.1", listening, Duration.ofSeconds(30))) {
            while (probe.get("/health/ready").status() != 200) {
                if (System.nanoTime() > deadline) {
                    replica.close();
                    throw new IllegalStateException(
                            "the replica was not ready within " + START_TIMEOUT.toSeconds() + " s");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        } catch (IOException e) {
            replica.close();
            throw new UncheckedIOException("the replica's readiness could not be read", e);
        }
        return new ColdReplica(p, listening, System.nanoTime() - t0);
    }

    int port() {
        return port;
    }

    /** The replica's process id (for reading its CPU, memory and JVM from outside). */
    long pid() {
        return process.pid();
    }

    /** From the start of the JVM to the first 200 of {@code /health/ready}. */
    Duration timeToReady() {
        return Duration.ofNanos(readyNanos);
    }

    /** SIGTERM (the graceful stop), then SIGKILL if it has not exited within 30 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
