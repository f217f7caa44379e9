package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls run on Jetty's threads only while they block for ZooKeeper's answers: more waiting
 * acquires than Jetty has threads, or more calls than that while ZooKeeper cannot be reached,
 * leave the replica answering everything else.
 */
class JettyThreadsTest {

    private static final int MORE_THAN_JETTY_HAS = LockHttpServer.HTTP_THREADS + 44;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private EmbeddedEnsemble ensemble;
    private ReplicaFixture replica;
    private String key;

    @BeforeEach
    void oneReplica() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        replica = new ReplicaFixture(ensemble.connectString(), "/threads");
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    @AfterEach
    void stop() {
        replica.crash();
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Test
    void waitingAcquiresBeyondJettysThreadsLeaveTheReplicaAnswering() {
        assertThat(replica.post(key, "acquire", ServiceHttp.acquire("holder", 60_000, null))
                        .status())
                .isEqualTo(200);
        List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
        for (int i = 0; i < MORE_THAN_JETTY_HAS; i++) {
            waiting.add(send(
                    "POST",
                    "/v1/locks/" + key + "/acquire",
                    ServiceHttp.acquireWaiting("w" + i, 60_000, 60_000, null)));
        }
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> replica.get(key).body().get("waiters").size() == MORE_THAN_JETTY_HAS);

        Reply other = replica.post(
                "inventory:other-" + UUID.randomUUID().toString().substring(0, 6),
                "acquire",
                ServiceHttp.acquire("pod-2", 60_000, null));

        assertThat(other.status()).isEqualTo(200);
        assertThat(replica.path("/health/ready").status()).isEqualTo(200);
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
    }

    @Test
    void callsWhileZooKeeperIsUnreachableLeaveTheReplicaAnswering() {
        // Every attempt of a ZooKeeper call, by the thread that makes it: a Jetty thread serves
        // one call after another, a call parked off Jetty has a thread of its own.
        Set<Long> callingThreads = ConcurrentHashMap.newKeySet();
        replica.service.wire().injectFaults((kind, path) -> {
            callingThreads.add(Thread.currentThread().threadId());
            return null;
        });
        ensemble.close();
        ensemble = null;
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> replica.path("/health/ready").status() == 503);
        callingThreads.clear();
        List<CompletableFuture<HttpResponse<String>>> blocked = new ArrayList<>();
        for (int i = 0; i < MORE_THAN_JETTY_HAS; i++) {
            // Each reads ZooKeeper, which answers no one: it retries for ZkWire.OPERATION_TIMEOUT.
            blocked.add(send("GET", "/v1/locks/" + key, null));
        }

        Awaitility.await()
                .alias("more calls waiting for ZooKeeper at once than Jetty has threads")
                .atMost(Duration.ofSeconds(60))
                .until(() -> callingThreads.size() >= MORE_THAN_JETTY_HAS);
        assertThat(replica.path("/health/live").status()).isEqualTo(200);
        for (CompletableFuture<HttpResponse<String>> f : blocked) {
            HttpResponse<String> r = f.join();
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("\"error\":\"UNAVAILABLE\"");
        }
    }

    private CompletableFuture<HttpResponse<String>> send(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + replica.server.port() + path))
                .timeout(Duration.ofSeconds(90));
        if (body == null) {
            b.GET();
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
