package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.zkfence.server.ReplicaFixture.Reply;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A dead waiter does not block the key. Two callers wait (280 s) on replica 2, one behind the
 * other, behind a holder on replica 1; replica 2 is killed (SIGKILL, so its ZooKeeper session only
 * ends when the ensemble expires it); the holder releases. The crashed replica's entries go with
 * its session, both of them (a waiter reaps every dead entry ahead of it, not only the one right
 * ahead), and the next owner is granted within a wait far shorter than the dead entries' own.
 */
class CrashedReplicaWaiterTest extends ProcessReplicasTestBase {

    /** The crashed replica's session timeout: its waiters stop blocking about this long after it dies. */
    private static final String SESSION_TIMEOUT_MS = "4000";

    private ReplicaProcess one;
    private ReplicaProcess two;

    @BeforeEach
    void twoReplicasInTheirOwnJvms() {
        one = replica();
        two = replica("--session-timeout-ms", SESSION_TIMEOUT_MS);
    }

    @Test
    void twoWaitersOfAKilledReplicaStopBlockingTheKeyWhenItsSessionEnds() throws Exception {
        Reply holder = ServiceHttp.post(one.port(), key, "acquire", ServiceHttp.acquire("holder", 120_000, null));
        assertThat(holder.status()).isEqualTo(200);
        try (Socket orphaned = new Socket("127.0.0.1", two.port());
                Socket behindIt = new Socket("127.0.0.1", two.port())) {
            queueWaiting(
                    orphaned,
                    ServiceHttp.acquireWaiting("orphaned", 60_000, 280_000, "O-" + UUID.randomUUID()),
                    "orphaned");
            queueWaiting(
                    behindIt,
                    ServiceHttp.acquireWaiting("orphaned-too", 60_000, 280_000, "P-" + UUID.randomUUID()),
                    "orphaned",
                    "orphaned-too");
            two.kill();
        }
        assertThat(ServiceHttp.post(one.port(), key, "release", ServiceHttp.token(holder))
                        .status())
                .isEqualTo(200);

        // A 60 s wait: far shorter than the dead entries' 280 s, so a grant comes from their session's end.
        Reply next =
                ServiceHttp.post(one.port(), key, "acquire", ServiceHttp.acquireWaiting("next", 30_000, 60_000, null));

        assertThat(next.status()).isEqualTo(200);
        assertThat(next.body().get("ownerId").asText()).isEqualTo("next");
        assertThat(waiters()).as("both dead entries were removed").isEmpty();
    }

    @Test
    void aWaitingRequestRetriedOnAnotherReplicaKeepsItsPlaceWhenTheFirstReplicaDies() throws Exception {
        Reply holder = ServiceHttp.post(one.port(), key, "acquire", ServiceHttp.acquire("holder", 120_000, null));
        String request = ServiceHttp.acquireWaiting("mover", 60_000, 120_000, "M-" + UUID.randomUUID());
        try (Socket first = new Socket("127.0.0.1", two.port())) {
            queueWaiting(first, request, "mover");
            two.kill();
        }
        try (Socket third = new Socket("127.0.0.1", one.port())) {
            queueWaiting(third, ServiceHttp.acquireWaiting("behind", 60_000, 120_000, null), "mover", "behind");
            // The client's retry of the same request, on the replica still alive: it takes the entry over.
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<Reply> retried = threads.submit(() -> ServiceHttp.post(one.port(), key, "acquire", request));
                // The dead replica's session ends (its marker goes); the entry it created must not go with it.
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> liveReplicas() == 1);
                assertThat(waiters()).containsExactly("mover", "behind");
                assertThat(ServiceHttp.post(one.port(), key, "release", ServiceHttp.token(holder))
                                .status())
                        .isEqualTo(200);

                Reply granted = retried.get();
                assertThat(granted.status()).isEqualTo(200);
                assertThat(granted.body().get("ownerId").asText()).isEqualTo("mover");
                assertThat(ServiceHttp.post(one.port(), key, "release", ServiceHttp.token(granted))
                                .status())
                        .isEqualTo(200);
            }
            assertThat(RawHttp.readResponse(third)).startsWith("HTTP/1.1 200").contains("\"ownerId\":\"behind\"");
        }
    }

    /**
     * Sends a waiting acquire on {@code socket} without reading its answer, and returns once the
     * key's waiters are {@code expectedWaiters}, in that order.
     */
    private void queueWaiting(Socket socket, String acquireBody, String... expectedWaiters) throws IOException {
        RawHttp.send(socket, RawHttp.post("/v1/locks/" + key + "/acquire", acquireBody));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> waiters().equals(List.of(expectedWaiters)));
    }

    /** Replica sessions ZooKeeper still has markers of. */
    private int liveReplicas() throws Exception {
        try (CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3))) {
            zk.start();
            return zk.getChildren().forPath(root + "/_replicas").size();
        }
    }

    private List<String> waiters() {
        List<String> owners = new ArrayList<>();
        for (JsonNode w : ServiceHttp.get(one.port(), "/v1/locks/" + key).body().get("waiters")) {
            owners.add(w.get("ownerId").asText());
        }
        return owners;
    }
}
