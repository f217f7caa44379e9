package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code ./server} as operators run it: {@link ServerCommand} in a JVM of its own, with
 * no logging configuration given. Logback's fallback would log at DEBUG to the console (Jetty
 * alone wrote about 200 lines per request), so the command brings its own.
 */
class ServerCommandLoggingTest {

    private static final Pattern LISTENING = Pattern.compile("zkfence-server: listening \\(HTTP\\) on [^:]+:(\\d+)");

    @Test
    void aReplicaStartedFromTheCommandLineLogsNothingPerRequest() throws Exception {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start()) {
            String java = ProcessHandle.current().info().command().orElseThrow();
            Process replica = new ProcessBuilder(
                            java,
                            "-cp",
                            System.getProperty("java.class.path"),
                            ServerCommand.class.getName(),
                            "--no-auth",
                            "--port",
                            "0",
                            "--bind",
                            "127.0.0.1",
                            "--zookeeper",
                            ensemble.connectString())
                    .redirectErrorStream(true)
                    .start();
            List<String> output = new CopyOnWriteArrayList<>();
            Thread reader = Thread.ofPlatform().daemon().start(() -> collect(replica, output));
            try {
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> output.stream()
                                        .anyMatch(l -> LISTENING.matcher(l).find())
                                || !replica.isAlive());
                Matcher listening = output.stream()
                        .map(LISTENING::matcher)
                        .filter(Matcher::find)
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("the replica did not start: " + output));
                int linesBefore = output.size();

                try (Socket connection = new Socket("127.0.0.1", Integer.parseInt(listening.group(1)))) {
                    connection.setSoTimeout(30_000);
                    for (int i = 0; i < 20; i++) {
                        RawHttp.send(
                                connection,
                                ("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                        assertThat(RawHttp.readResponse(connection)).startsWith("HTTP/1.1 200");
                    }
                }

                assertThat(output.subList(linesBefore, output.size()))
                        .as("lines written while serving 20 requests")
                        .isEmpty();
                assertThat(output).as("everything the replica wrote").noneMatch(l -> l.contains("DEBUG"));
            } finally {
                replica.destroy(); // SIGTERM: the graceful shutdown hook runs
                if (!replica.waitFor(30, TimeUnit.SECONDS)) {
                    replica.destroyForcibly();
                }
                reader.join(10_000);
            }
        }
    }

    private static void collect(Process process, List<String> into) {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                into.add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
