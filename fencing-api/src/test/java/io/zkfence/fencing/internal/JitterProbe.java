package io.zkfence.fencing.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A process that does what zkfence's modules do with their back-off, creating it on one thread and
 * drawing on another, and prints the pauses it would take. Run twice, it shows whether separate
 * processes draw the same jitter.
 */
final class JitterProbe {

    private JitterProbe() {}

    public static void main(String[] args) throws InterruptedException {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(500));
        StringBuilder out = new StringBuilder();
        Thread writer = Thread.ofPlatform()
                .start(() -> out.append(IntStream.rangeClosed(1, 8)
                        .mapToObj(retry -> Long.toString(backoff.delayNanos(retry)))
                        .collect(Collectors.joining(","))));
        writer.join();
        System.out.println(out);
    }

    /** Runs {@link #main} in a new JVM with this JVM's class path and returns what it printed. */
    static String runInNewJvm() throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process process = new ProcessBuilder(
                        List.of(java, "-cp", System.getProperty("java.class.path"), JitterProbe.class.getName()))
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new AssertionError("jitter probe failed: " + output);
        }
        return output;
    }
}
