package io.zkfence.server.dist;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * {@code bin/zkfence-server} of an unpacked distribution run as a separate process, with an
 * environment of the test's choosing (nothing {@code ZKFENCE_*} inherited), its standard output and
 * error collected line by line.
 */
final class ScriptProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("zkfence-server: listening \\(HTTP\\) on [^ ]+:(\\d+),");

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private ScriptProcess(Process process) {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().start(this::collect);
    }

    /**
     * Starts {@code script} with {@code args}; {@code environment} is applied over this JVM's
     * environment without its {@code ZKFENCE_*} variables (a null value removes a variable).
     */
    static ScriptProcess start(Path script, Map<String, String> environment, String... args) {
        List<String> command = new ArrayList<>();
        command.add(script.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("ZKFENCE_"));
        environment.forEach((name, value) -> {
            if (value == null) {
                env.remove(name);
            } else {
                env.put(name, value);
            }
        });
        try {
            return new ScriptProcess(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
    }

    /** The environment that runs the script on this test's own Java (21+): JAVA_HOME set to it. */
    static Map<String, String> onThisJava() {
        return Map.of("JAVA_HOME", System.getProperty("java.home"));
    }

    /**
     * Waits until the replica says it listens and returns its port.
     *
     * @throws AssertionError with everything it wrote if it exits first or takes over 60 s
     */
    int awaitListening() {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> listening() != null || !process.isAlive());
        Matcher m = listening();
        if (m == null) {
            throw new AssertionError("bin/zkfence-server did not start listening; it wrote: " + output());
        }
        return Integer.parseInt(m.group(1));
    }

    /**
     * Waits for the process to end by itself.
     *
     * @return its exit code
     * @throws AssertionError if it is still running after {@code within}
     */
    int awaitExit(Duration within) {
        try {
            if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("still running after " + within + "; it wrote: " + output());
            }
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return process.exitValue();
    }

    /** Sends SIGTERM, as systemd and Kubernetes stop it, and waits up to 30 s for the exit code. */
    int terminate() {
        process.destroy();
        return awaitExit(Duration.ofSeconds(30));
    }

    /** The running process's command line as the kernel reports it (the script execs java). */
    List<String> commandLine() {
        List<String> line = new ArrayList<>();
        process.info().command().ifPresent(line::add);
        process.info().arguments().ifPresent(a -> line.addAll(List.of(a)));
        return line;
    }

    /** Every line written so far. */
    List<String> output() {
        return List.copyOf(output);
    }

    private Matcher listening() {
        for (String line : output) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                return m;
            }
        }
        return null;
    }

    private void collect() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                output.add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops it forcibly if a test left it running. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
