package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.net.Socket;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A finished request never grants again. Replica 1 is paused (SIGSTOP) with an acquire in its
 * socket buffer; the client gives up on it, retries the same request on replica 2, is granted,
 * works and releases. When replica 1 resumes and reads the old request, it must not create a
 * lease nobody holds: the key stays free for everyone else.
 */
class PausedReplicaTest extends ProcessReplicasTestBase {

    private ReplicaProcess one;
    private ReplicaProcess two;

    @BeforeEach
    void twoReplicasInTheirOwnJvms() {
        one = replica();
        two = replica();
    }

    @Test
    void aRequestReadAfterItsRetryFinishedIsRefusedAndLeavesNoLease() throws Exception {
        String request = ServiceHttp.acquire("a", 600_000, "R-" + UUID.randomUUID());
        one.pause();
        // The caller keeps its connection open (as a proxy may): only the record can stop it.
        try (Socket stale = new Socket("127.0.0.1", one.port())) {
            stale.setSoTimeout(60_000);
            RawHttp.send(stale, RawHttp.post("/v1/locks/" + key + "/acquire", request));

            Reply retried = ServiceHttp.post(two.port(), key, "acquire", request);
            assertThat(retried.status()).isEqualTo(200);
            assertThat(ServiceHttp.post(two.port(), key, "release", ServiceHttp.token(retried))
                            .body()
                            .get("wasHeld")
                            .asBoolean())
                    .isTrue();

            one.resume();
            String late = RawHttp.readResponse(stale);
            assertThat(late)
                    .startsWith("HTTP/1.1 409")
                    .contains("REQUEST_FINISHED")
                    .contains("RELEASED");
        }
        assertKeyIsFree();
    }

    @Test
    void aRequestWhoseCallerLeftWhileTheReplicaWasPausedIsNotActedOn() throws Exception {
        String request = ServiceHttp.acquire("a", 600_000, "R-" + UUID.randomUUID());
        one.pause();
        try (Socket gaveUp = new Socket("127.0.0.1", one.port())) {
            RawHttp.send(gaveUp, RawHttp.post("/v1/locks/" + key + "/acquire", request));
        } // the caller timed out and closed its connection
        one.resume();
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> ServiceHttp.meterSum(one.port(), "zkfence_service_acquire_seconds_count") >= 1);
        assertKeyIsFree();
    }

    private void assertKeyIsFree() {
        Reply other = ServiceHttp.post(two.port(), key, "acquire", ServiceHttp.acquire("b", 30_000, null));
        assertThat(other.status()).as("another owner takes the key at once").isEqualTo(200);
        Reply status = ServiceHttp.get(one.port(), "/v1/locks/" + key);
        assertThat(status.body().get("ownerId").asText()).isEqualTo("b");
        assertThat(status.body().get("waiters")).isEmpty();
    }
}
