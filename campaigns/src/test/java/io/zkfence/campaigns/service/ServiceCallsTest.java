package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The hedging workers close the copy of an acquire they no longer need: what the replica must see is
 * its caller's connection closing while the call waits, as with a client that went away.
 */
class ServiceCallsTest {

    @Test
    void cancellingAnAcquireThatIsOutClosesItsConnection() throws Exception {
        CountDownLatch requestRead = new CountDownLatch(1);
        CountDownLatch closedByCaller = new CountDownLatch(1);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // A replica that reads the acquire and never answers (a waiting acquire), then watches its connection.
            Thread replica = Thread.ofPlatform().start(() -> {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    if (readAcquire(in)) {
                        requestRead.countDown();
                    }
                    byte[] buf = new byte[4096];
                    while (in.read(buf) >= 0) {
                        // nothing more comes: the stream ends when the caller closes it
                    }
                    closedByCaller.countDown(); // end of stream: the caller closed it
                } catch (IOException reset) {
                    closedByCaller.countDown(); // a reset is the caller closing it too
                }
            });
            ServiceCalls.Pending call = acquire(server, true, 60_000, Duration.ofSeconds(90));
            assertThat(requestRead.await(30, TimeUnit.SECONDS))
                    .as("the replica read the acquire")
                    .isTrue();

            call.cancel();

            assertThat(closedByCaller.await(30, TimeUnit.SECONDS))
                    .as("the replica saw the connection close")
                    .isTrue();
            ServiceCalls.Answer answer = call.answer().get(30, TimeUnit.SECONDS);
            assertThat(answer.status()).isZero();
            assertThat(answer.code()).isEqualTo(ServiceCalls.CANCELLED);
            replica.join(Duration.ofSeconds(30));
        }
    }

    @Test
    void cancellingAnAnsweredAcquireChangesNothing() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread replica = Thread.ofPlatform().start(() -> {
                try (Socket s = server.accept()) {
                    readAcquire(s.getInputStream());
                    byte[] body = "{\"fencingToken\":7,\"expiresAt\":1,\"validForMillis\":5000}"
                            .getBytes(StandardCharsets.UTF_8);
                    s.getOutputStream()
                            .write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                            + "Content-Length: " + body.length + "\r\n\r\n")
                                    .getBytes(StandardCharsets.UTF_8));
                    s.getOutputStream().write(body);
                    s.getOutputStream().flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            ServiceCalls.Pending call = acquire(server, false, 0, Duration.ofSeconds(30));
            ServiceCalls.Answer answer = call.answer().get(30, TimeUnit.SECONDS);

            call.cancel();

            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.fencingToken()).isEqualTo(7);
            assertThat(answer.validForMillis()).isEqualTo(5_000);
            assertThat(call.answer().get()).isSameAs(answer);
            replica.join(Duration.ofSeconds(30));
        }
    }

    /** Request 1's acquire of a 5 s lease sent to the replica listening on {@code server}. */
    private static ServiceCalls.Pending acquire(ServerSocket server, boolean wait, long waitMillis, Duration timeout) {
        return new ServiceCalls()
                .acquire(
                        "http://127.0.0.1:" + server.getLocalPort(),
                        "faults:res-0",
                        "w0.1.1",
                        "req-1",
                        5_000,
                        wait,
                        waitMillis,
                        timeout);
    }

    /**
     * Reads the replica's side of the connection until the acquire's body (its {@code ownerId}) is in.
     *
     * @return whether it came before the stream ended
     */
    private static boolean readAcquire(InputStream in) throws IOException {
        StringBuilder seen = new StringBuilder();
        byte[] buf = new byte[4096];
        int n;
        while (seen.indexOf("\"ownerId\"") < 0 && (n = in.read(buf)) >= 0) {
            seen.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
        return seen.indexOf("\"ownerId\"") >= 0;
    }
}
