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

/**
 * A waiting entry nobody waits for any more (its replica crashed while the caller waited) is
 * passed over once its {@code waitUntil} has passed: the waiter behind it wakes then, removes it
 * and moves up, instead of waiting out its own, much longer, wait.
 */
class DeadWaiterTest extends TwoReplicasTestBase {

    /** The waits behind the dead entry, and the holder's TTL: far beyond {@link #BOUND}. */
    private static final long LONG = 120_000;
    /** The crashed replica's wait: its entry dies this plus the 2 s of grace after it was queued. */
    private static final long SHORT_WAIT = 5_000;

    private static final Duration BOUND = Duration.ofSeconds(30);

    private String key;

    @BeforeEach
    void freshKey() {
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    private static String waitBody(String owner, long waitMillis) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":60000,\"wait\":true,\"waitMillis\":" + waitMillis + "}";
    }

    private Socket waitOn(ReplicaFixture replica, String owner, long waitMillis) throws Exception {
        Socket socket = new Socket("127.0.0.1", replica.server.port());
        socket.setSoTimeout(
                (int) BOUND.toMillis()); // an answer that does not come fails the test instead of hanging it
        RawHttp.send(socket, RawHttp.post("/v1/locks/" + key + "/acquire", waitBody(owner, waitMillis)));
        return socket;
    }

    private List<String> waiters() {
        List<String> owners = new ArrayList<>();
        for (JsonNode w : a.get(key).body().get("waiters")) {
            owners.add(w.get("ownerId").asText());
        }
        return owners;
    }

    @Test
    void aWaiterBehindTheEntryOfACrashedReplicaIsGrantedSoonAfterThatEntrysWaitEnds() throws Exception {
        Reply holder = a.post(key, "acquire", "{\"ownerId\":\"holder\",\"ttlMillis\":" + LONG + "}");
        assertThat(holder.status()).isEqualTo(200);
        try (Socket orphaned = waitOn(b, "orphaned", SHORT_WAIT)) {
            Awaitility.await().atMost(BOUND).until(() -> waiters().equals(List.of("orphaned")));
            b.crash();
            assertThat(waiters())
                    .as("the crashed replica's waiting entry stays behind")
                    .containsExactly("orphaned");
        }
        try (Socket behind = waitOn(a, "behind", LONG)) {
            Awaitility.await().atMost(BOUND).until(() -> waiters().equals(List.of("orphaned", "behind")));
            assertThat(a.post(
                                    key,
                                    "release",
                                    "{\"ownerId\":\"holder\",\"lockToken\":\""
                                            + holder.body().get("lockToken").asText() + "\"}")
                            .status())
                    .isEqualTo(200);

            // The dead entry's wait ended 2 s after SHORT_WAIT; "behind" waits LONG and the holder's
            // lease ran LONG too, so a grant within BOUND came from the dead entry's end.
            assertThat(RawHttp.readResponse(behind)).startsWith("HTTP/1.1 200").contains("\"ownerId\":\"behind\"");
        }
        Reply status = a.get(key);
        assertThat(status.body().get("ownerId").asText()).isEqualTo("behind");
        assertThat(status.body().get("waiters"))
                .as("the dead entry was removed")
                .isEmpty();
    }
}
