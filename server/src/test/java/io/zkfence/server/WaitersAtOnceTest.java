package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Many waiting acquires arriving at once behind held keys, through both replicas, as a fleet of
 * workers does when a batch of jobs starts: each key's waiters race one another to queue (on a key
 * neither replica has seen contended, so the first of them queue as leases guessed free and then
 * become waiting entries in place).
 */
class WaitersAtOnceTest extends TwoReplicasTestBase {

    private static final int KEYS = 30;
    private static final int PER_KEY = 10;
    private static final long TTL = 30_000;

    @Test
    void waitersSentAtOnceBehindHeldKeysAllWaitAndAreEachGrantedOnceTheirTurnComes() throws Exception {
        List<Reply> holders = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            Reply h = via(k).post(key(k), "acquire", ServiceHttp.acquire("holder", TTL, null));
            assertThat(h.status()).as(h.body().toString()).isEqualTo(200);
            holders.add(h);
        }
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Reply>> waiters = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                for (int j = 0; j < PER_KEY; j++) {
                    ReplicaFixture replica = via(k + j);
                    String key = key(k);
                    String body = ServiceHttp.acquireWaiting(
                            "waiter-" + j, TTL, 60_000, UUID.randomUUID().toString());
                    waiters.add(threads.submit(() -> {
                        Reply g = replica.post(key, "acquire", body);
                        if (g.status() == 200) {
                            Reply r = replica.post(key, "release", ServiceHttp.token(g));
                            assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
                        }
                        return g;
                    }));
                }
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> a.meter("zkfence_service_waits_open") + b.meter("zkfence_service_waits_open")
                            == KEYS * PER_KEY);
            assertThat(waiters).noneMatch(Future::isDone);

            for (int k = 0; k < KEYS; k++) {
                Reply r = via(k).post(key(k), "release", ServiceHttp.token(holders.get(k)));
                assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
            }
            for (Future<Reply> w : waiters) {
                Reply g = w.get(60, TimeUnit.SECONDS);
                assertThat(g.status()).as(g.body().toString()).isEqualTo(200);
            }
        }
    }

    private ReplicaFixture via(int i) {
        return i % 2 == 0 ? a : b;
    }

    private static String key(int k) {
        return "at-once-" + k;
    }
}
