package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.zkfence.server.ReplicaFixture.Reply;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A caller that goes away while its acquire waits gives up its place at once: the replica reads
 * the connection during the wait, removes the queue entry and the waiters behind it move up.
 * The waits here are two minutes long, so an entry gone within the bounds below went because
 * its caller left, not because its wait ran out.
 */
class CallerDisconnectTest extends TwoReplicasTestBase {

    /** Longer than any bound the test waits with: the leaving caller's wait cannot run out meanwhile. */
    private static final long LONG_WAIT = 120_000;

    private static final Duration BOUND = Duration.ofSeconds(30);

    /** How the caller leaves. */
    enum Leaving {
        /** close(): FIN. */
        CLOSE,
        /** close() with SO_LINGER 0: RST. */
        RESET
    }

    private String key;

    @BeforeEach
    void freshKey() {
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    private static String waitBody(String owner) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":60000,\"wait\":true,\"waitMillis\":" + LONG_WAIT + "}";
    }

    private static String waitBody(String owner, String requestId) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":60000,\"wait\":true,\"waitMillis\":" + LONG_WAIT
                + ",\"requestId\":\"" + requestId + "\"}";
    }

    private Reply hold(String owner) {
        Reply grant = a.post(key, "acquire", "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":60000}");
        assertThat(grant.status()).isEqualTo(200);
        return grant;
    }

    private void release(String owner, Reply grant) {
        assertThat(a.post(
                                key,
                                "release",
                                "{\"ownerId\":\"" + owner + "\",\"lockToken\":\""
                                        + grant.body().get("lockToken").asText() + "\"}")
                        .status())
                .isEqualTo(200);
    }

    /** The waiters of the lock, in order, as the status call reports them on replica {@code a}. */
    private List<String> waiters() {
        List<String> owners = new ArrayList<>();
        for (JsonNode w : a.get(key).body().get("waiters")) {
            owners.add(w.get("ownerId").asText());
        }
        return owners;
    }

    private void awaitWaiters(String... owners) {
        Awaitility.await().atMost(BOUND).until(() -> waiters().equals(List.of(owners)));
    }

    /** Opens a connection to {@code replica} and sends a waiting acquire for {@code owner} on it. */
    private Socket waitOn(ReplicaFixture replica, String owner) throws Exception {
        return send(replica, waitBody(owner));
    }

    private Socket send(ReplicaFixture replica, String acquireBody) throws Exception {
        Socket socket = new Socket("127.0.0.1", replica.server.port());
        socket.setSoTimeout((int) BOUND.toMillis()); // a missing answer fails the test instead of hanging it
        RawHttp.send(socket, RawHttp.post("/v1/locks/" + key + "/acquire", acquireBody));
        return socket;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Leaving.class)
    void aWaiterWhoseConnectionClosesLeavesTheQueueAtOnceAndTheNextWaiterGetsTheLock(Leaving how) throws Exception {
        Reply holder = hold("holder");
        Socket leaving = waitOn(b, "leaving");
        awaitWaiters("leaving");
        Socket next = waitOn(a, "next");
        awaitWaiters("leaving", "next");

        if (how == Leaving.RESET) {
            leaving.setSoLinger(true, 0);
        }
        leaving.close();

        awaitWaiters("next");
        Awaitility.await().atMost(BOUND).until(() -> b.meter("zkfence_service_waits_abandoned_total") == 1.0);
        assertThat(b.meter("zkfence_service_acquire_seconds_count{outcome=\"abandoned\"}"))
                .isEqualTo(1.0);
        assertThat(b.meter("zkfence_service_waits_open"))
                .as("the abandoned wait's thread has ended")
                .isZero();

        release("holder", holder);
        assertThat(RawHttp.readResponse(next)).startsWith("HTTP/1.1 200").contains("\"ownerId\":\"next\"");
        assertThat(waiters()).isEmpty();
        // The connection that waited (and was watched) serves its next request as usual.
        RawHttp.send(next, RawHttp.getThenClose("/health/live"));
        assertThat(RawHttp.readToEnd(next)).startsWith("HTTP/1.1 200").contains("\"status\":\"UP\"");
        next.close();
    }

    @Test
    void aCallerThatOnlyShutsDownItsSendingSideIsAnsweredCallerGoneAndLeavesTheQueue() throws Exception {
        hold("holder");
        try (Socket halfClosed = waitOn(b, "half-closed")) {
            awaitWaiters("half-closed");

            halfClosed.shutdownOutput();

            String answer = RawHttp.readToEnd(halfClosed);
            assertThat(answer)
                    .startsWith("HTTP/1.1 499")
                    .contains("application/problem+json", "\"error\":\"CALLER_GONE\"");
        }
        assertThat(waiters()).isEmpty();
        assertThat(a.get(key).body().get("ownerId").asText()).isEqualTo("holder");
    }

    @Test
    void aRequestPipelinedBehindAWaitingAcquireNeitherEndsTheWaitNorGoesAstray() throws Exception {
        Reply holder = hold("holder");
        try (Socket pipelining = waitOn(b, "pipelining")) {
            awaitWaiters("pipelining");
            RawHttp.send(pipelining, RawHttp.getThenClose("/health/live"));

            release("holder", holder);

            // Read by the watch during the wait, the second request is dropped and the grant says
            // Connection: close, so a client resends it; if it came too late for the watch, Jetty
            // reads and answers it after the grant. Either way the wait went on to its grant.
            String answers = RawHttp.readToEnd(pipelining);
            assertThat(answers).startsWith("HTTP/1.1 200").contains("\"ownerId\":\"pipelining\"");
            String afterGrant = answers.substring(answers.indexOf("\"ownerId\":\"pipelining\""));
            if (answers.substring(0, answers.indexOf("\r\n\r\n"))
                    .toLowerCase(java.util.Locale.ROOT)
                    .contains("connection: close")) {
                assertThat(afterGrant).doesNotContain("HTTP/1.1");
            } else {
                assertThat(afterGrant).contains("HTTP/1.1 200", "\"status\":\"UP\"");
            }
        }
        assertThat(a.get(key).body().get("ownerId").asText()).isEqualTo("pipelining");
    }

    @Test
    void aRetryOfTheSameRequestKeepsThePlaceWhenTheFirstConnectionThenCloses() throws Exception {
        Reply holder = hold("holder");
        Socket first = send(b, waitBody("retrying", "r-1"));
        awaitWaiters("retrying");
        try (Socket retry = send(a, waitBody("retrying", "r-1"))) {
            // Waiting on replica a means the retry has found the entry and written its own deadline.
            Awaitility.await().atMost(BOUND).until(() -> a.meter("zkfence_service_waits_open") == 1.0);

            first.close();

            Awaitility.await().atMost(BOUND).until(() -> b.meter("zkfence_service_waits_abandoned_total") == 1.0);
            assertThat(waiters())
                    .as("the retry waits on the entry now: it stays")
                    .containsExactly("retrying");
            release("holder", holder);
            assertThat(RawHttp.readResponse(retry)).startsWith("HTTP/1.1 200").contains("\"ownerId\":\"retrying\"");
        }
    }
}
