package io.zkfence.server;

import io.zkfence.testing.Signals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * {@link ServerCommand} in a JVM of its own, as {@code ./zkfence-server} runs it, on this test's
 * classpath: started with some JVM options and flags, and stopped with SIGTERM.
 */
final class ReplicaProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("zkfence-server: listening \\(HTTP\\) on [^:]+:(\\d+)");

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private final int port;

    /**
     * Starts a replica listening on a free port of 127.0.0.1 and waits until it says it listens.
     *
     * @throws AssertionError if it exits or does not listen within 60 s (with what it wrote)
     */
    ReplicaProcess(List<String> jvmOptions, String... flags) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--bind", "127.0.0.1"));
        args.addAll(List.of(flags));
        List<String> command = commandLine(jvmOptions, args);
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
        reader = Thread.ofPlatform().daemon().start(this::collect);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> listening() != null || !process.isAlive());
        Matcher listening = listening();
        if (listening == null) {
            close();
            throw new AssertionError("the replica did not start listening: " + output);
        }
        port = Integer.parseInt(listening.group(1));
    }

    /** {@link ServerCommand} with {@code args} in a new JVM: this one's java, {@code jvmOptions}, this class path. */
    static List<String> commandLine(List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServerCommand.class.getName()));
        command.addAll(args);
        return command;
    }

    int port() {
        return port;
    }

    /** SIGSTOP: the replica freezes (its sockets stay open, the kernel queues what arrives). */
    void pause() {
        if (!Signals.stop(process)) {
            throw new IllegalStateException("the replica (pid " + process.pid() + ") is not running: " + output);
        }
    }

    /** SIGCONT after {@link #pause()}; nothing if the replica is no longer running. */
    void resume() {
        Signals.resume(process);
    }

    /** SIGKILL: the replica dies at once; its ZooKeeper session ends only when the ensemble expires it. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing the replica", e);
        }
    }

    /** Every line the replica wrote so far (standard output and error). */
    List<String> output() {
        return List.copyOf(output);
    }

    private Matcher listening() {
        return output.stream()
                .map(LISTENING::matcher)
                .filter(Matcher::find)
                .findFirst()
                .orElse(null);
    }

    private void collect() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                output.add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGTERM, so that the graceful shutdown hook runs; forcibly after 30 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the replica", e);
        }
    }
}
