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
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
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

    private static final int MORE_THAN_JETTY_HAS = CallThreads.JETTY_THREADS + 44;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
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
        List<CompletableFuture<HttpResponse<String>>> waiting = inBatches(
                i -> send(
                        "POST",
                        "/v1/locks/" + key + "/acquire",
                        ServiceHttp.acquireWaiting("w" + i, 60_000, 60_000, null)),
                () -> replica.get(key).body().get("waiters").size());

        Reply other = replica.post(
                "inventory:other-" + UUID.randomUUID().toString().substring(0, 6),
                "acquire",
                ServiceHttp.acquire("pod-2", 60_000, null));

        assertThat(other.status()).isEqualTo(200);
        assertThat(replica.path("/health/ready").status()).isEqualTo(200);
        String metrics = replica.text("/metrics").body().asText();
        assertThat(ReplicaFixture.meter(metrics, "jetty_threads_config_max")).isEqualTo(CallThreads.JETTY_THREADS);
        assertThat(ReplicaFixture.meter(metrics, "jetty_threads_busy"))
                .as("Jetty's selectors and this scrape; none of the waits")
                .isLessThan(16);
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
        // Each reads ZooKeeper, which answers no one: it retries for ZkWire.OPERATION_TIMEOUT,
        // longer than the batches take to arrive.
        List<CompletableFuture<HttpResponse<String>>> blocked =
                inBatches(i -> send("GET", "/v1/locks/" + key, null), callingThreads::size);
        assertThat(replica.path("/health/live").status()).isEqualTo(200);
        for (CompletableFuture<HttpResponse<String>> f : blocked) {
            HttpResponse<String> r = f.join();
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("\"error\":\"UNAVAILABLE\"");
        }
    }

    /**
     * Sends {@link #MORE_THAN_JETTY_HAS} calls, a batch at a time (a burst of hundreds of connects
     * at once overflows the listen backlog), each batch once {@code arrived} counts the ones before.
     */
    private static List<CompletableFuture<HttpResponse<String>>> inBatches(
            IntFunction<CompletableFuture<HttpResponse<String>>> call, IntSupplier arrived) {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        while (sent.size() < MORE_THAN_JETTY_HAS) {
            int upTo = Math.min(MORE_THAN_JETTY_HAS, sent.size() + 25);
            for (int i = sent.size(); i < upTo; i++) {
                sent.add(call.apply(i));
            }
            Awaitility.await()
                    .alias(upTo + " calls at the replica at once")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> arrived.getAsInt() >= upTo);
        }
        return sent;
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
