package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Limits answer in the one error shape: a key's queue past {@code --max-waiters} is 429
 * TOO_MANY_WAITERS with nothing queued; a body past the size limit is 413 PAYLOAD_TOO_LARGE.
 */
class LimitsTest {

    private static final int MAX_WAITERS = 2;

    private EmbeddedEnsemble ensemble;
    private ReplicaFixture replica;
    private String key;

    @BeforeEach
    void aReplicaWithTwoWaitersPerKey() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        replica = new ReplicaFixture(
                ensemble.connectString(),
                new LeaseService.Settings(
                        "/limits",
                        3,
                        LeaseService.Settings.DEFAULT_REQUEST_RETENTION_MILLIS,
                        MAX_WAITERS,
                        StoreUnderTest.TEST_ENSEMBLE_LAG_BOUND_MS),
                ApiKeys.open(),
                null);
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    @AfterEach
    void stop() {
        replica.close();
        ensemble.close();
    }

    @Test
    void aWaiterPastTheLimitIsRefusedWithNothingQueued() throws Exception {
        assertThat(replica.post(key, "acquire", ServiceHttp.acquire("holder", 60_000, null))
                        .status())
                .isEqualTo(200);
        List<Socket> waiting = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_WAITERS; i++) {
                Socket s = new Socket("127.0.0.1", replica.server.port());
                RawHttp.send(
                        s,
                        RawHttp.post(
                                "/v1/locks/" + key + "/acquire",
                                ServiceHttp.acquireWaiting("waiter-" + i, 60_000, 60_000, null)));
                waiting.add(s);
                int expected = i + 1;
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> replica.get(key).body().get("waiters").size() == expected);
            }

            Reply refused =
                    replica.post(key, "acquire", ServiceHttp.acquireWaiting("one-too-many", 60_000, 60_000, null));

            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.body().get("error").asText()).isEqualTo("TOO_MANY_WAITERS");
            assertThat(refused.body().get("retryAfterMillis").asLong()).isPositive();
            assertThat(replica.get(key).body().get("waiters")).hasSize(MAX_WAITERS);
        } finally {
            for (Socket s : waiting) {
                s.close();
            }
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedAsAProblemAndWritesNothing() {
        String huge = "{\"ownerId\":\"" + "x".repeat(100_000) + "\",\"ttlMillis\":1000}";

        Reply refused = replica.post(key, "acquire", huge);

        assertThat(refused.status()).isEqualTo(413);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.body().get("error").asText()).isEqualTo("PAYLOAD_TOO_LARGE");
        assertThat(refused.body().get("type").asText()).isEqualTo("urn:zkfence:error:PAYLOAD_TOO_LARGE");
        assertThat(replica.get(key).status()).isEqualTo(404);
    }
}
