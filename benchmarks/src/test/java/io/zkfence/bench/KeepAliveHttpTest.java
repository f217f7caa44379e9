package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's HTTP client against a scripted server that answers each request with the next
 * of its answers and records what it received, per connection.
 */
class KeepAliveHttpTest {

    private static final String OK =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"UP\"}";

    @Test
    void requestsShareOneConnectionAndBodiesArriveWhole() throws Exception {
        try (Scripted server = new Scripted(OK, "HTTP/1.1 409 Conflict\r\nContent-Length: 2\r\n\r\n{}", OK);
                KeepAliveHttp http = new KeepAliveHttp("127.0.0.1", server.port(), Duration.ofSeconds(10))) {
            assertThat(http.get("/health/live").status()).isEqualTo(200);
            KeepAliveHttp.Answer conflict = http.post("/v1/locks/a:b/acquire", "{\"ownerId\":\"é\"}");
            assertThat(conflict.status()).isEqualTo(409);
            assertThat(new String(conflict.body(), StandardCharsets.UTF_8)).isEqualTo("{}");
            assertThat(new String(http.get("/health/live").body(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"status\":\"UP\"}");

            assertThat(http.connections()).isEqualTo(1);
            assertThat(server.requests()).hasSize(3);
            assertThat(server.requests().get(1))
                    .startsWith("POST /v1/locks/a:b/acquire HTTP/1.1\r\n")
                    .contains("Content-Length: 16\r\n")
                    .endsWith("\r\n\r\n{\"ownerId\":\"é\"}");
        }
    }

    @Test
    void anAnswerWithConnectionCloseMakesTheNextRequestOpenANewConnection() throws Exception {
        try (Scripted server = new Scripted("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", OK);
                KeepAliveHttp http = new KeepAliveHttp("127.0.0.1", server.port(), Duration.ofSeconds(10))) {
            assertThat(http.get("/first").status()).isEqualTo(200);
            assertThat(http.get("/second").status()).isEqualTo(200);
            assertThat(http.connections()).isEqualTo(2);
        }
    }

    @Test
    void aChunkedAnswerIsRefusedAndTheConnectionIsNotReused() throws Exception {
        try (Scripted server =
                        new Scripted("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", OK);
                KeepAliveHttp http = new KeepAliveHttp("127.0.0.1", server.port(), Duration.ofSeconds(10))) {
            IOException refused = assertThrows(IOException.class, () -> http.get("/chunked"));
            assertThat(refused.getMessage()).contains("chunked");
            assertThat(http.get("/health/live").status()).isEqualTo(200);
            assertThat(http.connections()).isEqualTo(2);
        }
    }

    @Test
    void aConnectionTheServerClosedWhileIdleIsReplacedBeforeTheNextRequest() throws Exception {
        try (Scripted server = new Scripted(OK + CLOSE_AFTER, OK);
                KeepAliveHttp http =
                        new KeepAliveHttp("127.0.0.1", server.port(), Duration.ofSeconds(10), Duration.ZERO)) {
            assertThat(http.get("/first").status()).isEqualTo(200);
            assertThat(server.closedQuietly.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(http.get("/second").status()).isEqualTo(200);
            assertThat(http.connections()).isEqualTo(2);
            assertThat(server.requests()).hasSize(2);
        }
    }

    /** Appended to an answer: the server closes the connection after it without saying so (an idle timeout). */
    private static final String CLOSE_AFTER = "<close-quietly>";

    /** A server on a free port that answers requests in order with {@code answers}, one thread per connection. */
    private static final class Scripted implements AutoCloseable {

        private static final Pattern LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");

        private final ServerSocket socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        private final Queue<String> answers;
        private final List<String> requests = new CopyOnWriteArrayList<>();
        private final Thread acceptor;
        final CountDownLatch closedQuietly = new CountDownLatch(1);

        Scripted(String... answers) throws IOException {
            this.answers = new ArrayDeque<>(List.of(answers));
            acceptor = Thread.ofPlatform().daemon().start(this::accept);
        }

        int port() {
            return socket.getLocalPort();
        }

        List<String> requests() {
            return requests;
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    Thread.ofPlatform().daemon().start(() -> serve(connection));
                } catch (IOException closed) {
                    return; // close() ends the test's server
                }
            }
        }

        private void serve(Socket connection) {
            try (connection) {
                InputStream in = new BufferedInputStream(connection.getInputStream());
                while (true) {
                    String request = readRequest(in);
                    if (request == null) {
                        return;
                    }
                    requests.add(request);
                    String answer;
                    synchronized (answers) {
                        answer = answers.remove();
                    }
                    boolean quietly = answer.endsWith(CLOSE_AFTER);
                    answer = quietly ? answer.substring(0, answer.length() - CLOSE_AFTER.length()) : answer;
                    connection.getOutputStream().write(answer.getBytes(StandardCharsets.UTF_8));
                    connection.getOutputStream().flush();
                    if (quietly) {
                        connection.close();
                        closedQuietly.countDown();
                        return;
                    }
                    if (answer.contains("Connection: close")) {
                        return;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** One request, head and body, as text; null at the end of the stream. */
        private static String readRequest(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.UTF_8).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
            }
            Matcher length = LENGTH.matcher(head.toString(StandardCharsets.UTF_8));
            byte[] body = length.find() ? in.readNBytes(Integer.parseInt(length.group(1))) : new byte[0];
            return head.toString(StandardCharsets.UTF_8) + new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws Exception {
            socket.close();
            acceptor.join(10_000);
        }
    }
}
