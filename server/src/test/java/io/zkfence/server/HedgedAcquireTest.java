package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * One requestId, one answer: the same acquire sent to both replicas at the same moment (a hedging
 * client, a load balancer retrying on a timeout) is answered the same grant by both — same
 * lockToken, same fencing token — or the same refusal, never a 200 and a 409 naming the caller.
 */
class HedgedAcquireTest extends TwoReplicasTestBase {

    private static final int KEYS = 120;

    @Test
    void theSameAcquireThroughBothReplicasAtOnceIsGrantedOnceAndAnsweredAlike() throws Exception {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < KEYS; i++) {
                String key =
                        "hedge:key-" + i + "-" + UUID.randomUUID().toString().substring(0, 4);
                String body = ServiceHttp.acquire("pod-" + i, 60_000, "R-" + UUID.randomUUID());
                List<Reply> answers = atOnce(threads, key, body);

                assertThat(answers).extracting(Reply::status).containsOnly(200);
                assertThat(answers.get(0).body().get("lockToken").asText())
                        .as("key %s", key)
                        .isEqualTo(answers.get(1).body().get("lockToken").asText());
                assertThat(answers.get(0).body().get("fencingToken").asLong())
                        .isEqualTo(answers.get(1).body().get("fencingToken").asLong());
                assertThat(a.get(key).body().get("waiters"))
                        .as("no second entry")
                        .isEmpty();
            }
        }
    }

    @Test
    void theSameWaitingAcquireThroughBothReplicasIsGrantedOnceWhenTheHolderGoes() throws Exception {
        String key = "hedge:waited-" + UUID.randomUUID().toString().substring(0, 6);
        Reply holder = a.post(key, "acquire", ServiceHttp.acquire("holder", 60_000, null));
        String body = ServiceHttp.acquireWaiting("waiter", 60_000, 30_000, "W-" + UUID.randomUUID());
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            CountDownLatch go = new CountDownLatch(1);
            Future<Reply> viaA = threads.submit(() -> {
                go.await();
                return a.post(key, "acquire", body);
            });
            Future<Reply> viaB = threads.submit(() -> {
                go.await();
                return b.post(key, "acquire", body);
            });
            go.countDown();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> a.get(key).body().get("waiters").size() == 1);
            assertThat(a.post(key, "release", ServiceHttp.token(holder)).status())
                    .isEqualTo(200);

            Reply first = viaA.get();
            Reply second = viaB.get();
            assertThat(first.status()).isEqualTo(200);
            assertThat(second.status()).isEqualTo(200);
            assertThat(first.body().get("lockToken").asText())
                    .isEqualTo(second.body().get("lockToken").asText());
            assertThat(first.body().get("fencingToken").asLong())
                    .isEqualTo(second.body().get("fencingToken").asLong())
                    .isGreaterThan(holder.body().get("fencingToken").asLong());
        }
    }

    @Test
    void theSameAcquireOfAHeldLockThroughBothReplicasIsRefusedByBothNamingTheHolder() throws Exception {
        String key = "hedge:held-" + UUID.randomUUID().toString().substring(0, 6);
        assertThat(a.post(key, "acquire", ServiceHttp.acquire("holder", 60_000, null))
                        .status())
                .isEqualTo(200);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Reply> answers = atOnce(threads, key, ServiceHttp.acquire("late", 60_000, "L-" + UUID.randomUUID()));

            for (Reply r : answers) {
                assertThat(r.status()).isEqualTo(409);
                assertThat(r.body().get("error").asText()).isEqualTo("LOCK_ALREADY_HELD");
                assertThat(r.body().get("currentOwner").asText()).isEqualTo("holder");
            }
        }
    }

    private List<Reply> atOnce(ExecutorService threads, String key, String body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Reply>> sent = new ArrayList<>();
        for (ReplicaFixture replica : List.of(a, b)) {
            sent.add(threads.submit(() -> {
                go.await();
                return replica.post(key, "acquire", body);
            }));
        }
        go.countDown();
        List<Reply> answers = new ArrayList<>();
        for (Future<Reply> f : sent) {
            answers.add(f.get());
        }
        return answers;
    }
}
