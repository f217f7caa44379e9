package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A 200 means a live lease: an acquire retried with the same requestId after the lease it was
 * granted has expired answers 409 REQUEST_FINISHED, never the dead lease again, and the lock is
 * free for the next owner at once, on either replica.
 */
class DeadLeaseRetryTest extends TwoReplicasTestBase {

    private String key;

    @BeforeEach
    void freshKey() {
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    @Test
    void aRetryAfterTheLeaseExpiredIsRefusedAsFinishedAndTheNextOwnerIsGranted() {
        String request = ServiceHttp.acquire("a", 1_000, "R-" + UUID.randomUUID());
        Reply first = a.post(key, "acquire", request);
        assertThat(first.status()).isEqualTo(200);
        long expiresAt = first.body().get("expiresAt").asLong();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() > expiresAt + 600);

        Reply again = a.post(key, "acquire", request);

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.body().get("error").asText()).isEqualTo("REQUEST_FINISHED");
        assertThat(again.body().get("outcome").asText()).isEqualTo("EXPIRED");
        Reply other = b.post(key, "acquire", ServiceHttp.acquire("b", 30_000, "S-" + UUID.randomUUID()));
        assertThat(other.status()).isEqualTo(200);
        assertThat(other.body().get("fencingToken").asLong())
                .isGreaterThan(first.body().get("fencingToken").asLong());
    }

    @Test
    void aRetryWhileTheLeaseLivesGetsTheSameGrantWithItsRemainingTime() {
        String request = ServiceHttp.acquire("a", 60_000, "R-" + UUID.randomUUID());
        Reply first = a.post(key, "acquire", request);

        Reply again = b.post(key, "acquire", request);

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("lockToken").asText())
                .isEqualTo(first.body().get("lockToken").asText());
        assertThat(again.body().get("fencingToken").asLong())
                .isEqualTo(first.body().get("fencingToken").asLong());
        assertThat(again.body().get("expiresAt").asLong())
                .isEqualTo(first.body().get("expiresAt").asLong());
        assertThat(again.body().get("validForMillis").asLong()).isPositive();
    }

    @Test
    void everyGrantIsLiveByTheAnsweringReplicasClockAndItsValidityErrsEarly() {
        long sent = System.currentTimeMillis();
        Reply grant = a.post(key, "acquire", ServiceHttp.acquire("a", 5_000, null));
        long answered = System.currentTimeMillis();

        assertThat(grant.status()).isEqualTo(200);
        long expiresAt = grant.body().get("expiresAt").asLong();
        long validFor = grant.body().get("validForMillis").asLong();
        assertThat(expiresAt).isGreaterThan(answered);
        // Counted from the send, the validity ends no later than the lease (same clock here).
        assertThat(sent + validFor).isLessThanOrEqualTo(expiresAt);
        assertThat(validFor).isGreaterThan(5_000L - (answered - sent) - 1);
    }
}
