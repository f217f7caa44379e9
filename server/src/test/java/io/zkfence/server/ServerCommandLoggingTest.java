package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ./zkfence-server} as operators run it: {@link ServerCommand} in a JVM of its own, with
 * no logging configuration given. Logback's fallback would log at DEBUG to the console (Jetty
 * alone wrote about 200 lines per request), so the command brings its own.
 */
class ServerCommandLoggingTest {

    @Test
    void aReplicaStartedFromTheCommandLineLogsNothingPerRequest() throws Exception {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                ReplicaProcess replica =
                        new ReplicaProcess(List.of(), "--no-auth", "--zookeeper", ensemble.connectString())) {
            int linesBefore = replica.output().size();

            try (Socket connection = new Socket("127.0.0.1", replica.port())) {
                connection.setSoTimeout(30_000);
                for (int i = 0; i < 20; i++) {
                    RawHttp.send(
                            connection,
                            ("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
                    assertThat(RawHttp.readResponse(connection)).startsWith("HTTP/1.1 200");
                }
            }

            List<String> output = replica.output();
            assertThat(output.subList(linesBefore, output.size()))
                    .as("lines written while serving 20 requests")
                    .isEmpty();
            assertThat(output).as("everything the replica wrote").noneMatch(l -> l.contains("DEBUG"));
        }
    }

    /**
     * {@code ./zkfence-server --no-auth}, a new user's first try: the embedded ensemble's elections,
     * and its followers losing their leader as it stops, used to greet them as warnings and a
     * {@code SocketException} stack trace.
     */
    @Test
    void aReplicaOnItsEmbeddedEnsembleSaysOnlyItsOwnLinesFromStartToStop() {
        ReplicaProcess replica = new ReplicaProcess(List.of(), "--no-auth");
        replica.close();

        assertThat(replica.output())
                .as("everything the replica wrote, standard output and error")
                .isNotEmpty()
                .allMatch(l -> l.startsWith("zkfence-server: "));
    }
}
