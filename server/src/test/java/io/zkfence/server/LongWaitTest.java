package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A waiting acquire outlasts the connector's idle timeout: the connection carries no bytes while it
 * waits, and the answer, whenever it comes, must still reach the caller on that connection, which
 * then serves the caller's next request (the release, as every client sends it).
 */
class LongWaitTest {

    private static final long IDLE_TIMEOUT_MS = 1_000;
    private static final int WAITERS = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedEnsemble ensemble;
    private CuratorFramework zk;
    private LockHttpServer server;

    @BeforeAll
    static void startEnsemble() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    @BeforeEach
    void replicaWithAShortIdleTimeout() {
        zk = CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        ServerSettings d = ServerSettings.local(ApiKeys.open());
        ServerSettings shortIdle = new ServerSettings(
                d.bind(), d.port(), d.maxTtlMillis(), d.maxWaitMillis(), IDLE_TIMEOUT_MS, d.apiKeys(), d.tls(), 0);
        String root = "/long-wait-" + UUID.randomUUID().toString().substring(0, 8);
        server = new LockHttpServer(
                new StoreUnderTest(zk, root).service,
                shortIdle,
                () -> zk.getZookeeperClient().isConnected());
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        zk.close();
    }

    @Test
    void waitersGrantedAfterWaitingLongerThanTheIdleTimeoutGetTheirGrantsAndKeepTheirConnections() throws Exception {
        List<JsonNode> holders = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            holders.add(grant(exchange(RawHttp.post(path(i, "acquire"), ServiceHttp.acquire("holder", 30_000, null)))));
        }
        List<Socket> waiters = new ArrayList<>();
        try {
            for (int i = 0; i < WAITERS; i++) {
                Socket waiter = connect();
                waiters.add(waiter);
                RawHttp.send(
                        waiter,
                        RawHttp.post(
                                path(i, "acquire"),
                                ServiceHttp.acquireWaiting(
                                        "waiter",
                                        30_000,
                                        60_000,
                                        UUID.randomUUID().toString())));
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> ServiceHttp.meterSum(server.port(), "zkfence_service_waits_open") == WAITERS);
            // The scenario, not a synchronisation: the waiters' connections stay silent for three
            // idle timeouts before their turn comes.
            Thread.sleep(3 * IDLE_TIMEOUT_MS);

            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < WAITERS; i++) {
                    int k = i;
                    Socket waiter = waiters.get(k);
                    answers.add(threads.submit(() -> {
                        String released = exchange(RawHttp.post(path(k, "release"), release(holders.get(k))));
                        assertThat(released).startsWith("HTTP/1.1 200");
                        String answer = RawHttp.readResponse(waiter);
                        assertThat(answer).startsWith("HTTP/1.1 200").contains("\"ownerId\":\"waiter\"");
                        RawHttp.send(waiter, RawHttp.post(path(k, "release"), release(grant(answer))));
                        return RawHttp.readResponse(waiter);
                    }));
                }
                for (Future<String> a : answers) {
                    assertThat(a.get())
                            .as("the connection that waited serves the release")
                            .startsWith("HTTP/1.1 200")
                            .contains("\"wasHeld\":true");
                }
            }
        } finally {
            for (Socket w : waiters) {
                w.close();
            }
        }
    }

    private static String path(int key, String action) {
        return "/v1/locks/long-wait-" + key + "/" + action;
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(30_000); // a missing answer fails the test instead of hanging it
        return socket;
    }

    /** One request on a connection of its own; the response. */
    private String exchange(byte[] request) throws IOException {
        try (Socket s = connect()) {
            RawHttp.send(s, request);
            return RawHttp.readResponse(s);
        }
    }

    private static JsonNode grant(String response) throws IOException {
        assertThat(response).startsWith("HTTP/1.1 200");
        return JSON.readTree(response.substring(response.indexOf("\r\n\r\n") + 4));
    }

    private static String release(JsonNode grant) {
        return JSON.createObjectNode()
                .put("ownerId", grant.get("ownerId").asText())
                .put("lockToken", grant.get("lockToken").asText())
                .toString();
    }
}
