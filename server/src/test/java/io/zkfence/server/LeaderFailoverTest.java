package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Clients keep taking and giving back one lock through two replicas while the ZooKeeper leader is
 * killed and restarted: calls that hit the election answer 503 and are retried with the same
 * requestId, nobody is ever granted the lock while another holds it, and tokens keep increasing.
 */
class LeaderFailoverTest {

    private static final String LOCK = "failover:one";

    @Test
    void exclusionAndTokenOrderHoldAcrossALeaderKill() throws Exception {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(3).start();
                ReplicaFixture a = new ReplicaFixture(ensemble.connectString(), "/failover");
                ReplicaFixture b = new ReplicaFixture(ensemble.connectString(), "/failover")) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger unavailable = new AtomicInteger();
            ConcurrentLinkedQueue<Long> grants = new ConcurrentLinkedQueue<>();
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<Integer>> done = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                ReplicaFixture via = c % 2 == 0 ? a : b;
                ReplicaFixture other = c % 2 == 0 ? b : a;
                String owner = "client-" + c;
                done.add(clients.submit(() -> {
                    int cycles = 0;
                    while (running.get()) {
                        String requestId = UUID.randomUUID().toString();
                        Reply grant = retry(
                                via,
                                "acquire",
                                "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":30000,\"wait\":true,"
                                        + "\"waitMillis\":20000,\"requestId\":\"" + requestId + "\"}",
                                unavailable);
                        if (grant.status() == 409) {
                            continue; // the wait ran out: try again
                        }
                        assertThat(grant.status()).as(grant.body().toString()).isEqualTo(200);
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        grants.add(grant.body().get("fencingToken").asLong());
                        inside.decrementAndGet();
                        // Released through the other replica: any replica serves any call.
                        Reply released = retry(
                                other,
                                "release",
                                "{\"ownerId\":\"" + owner + "\",\"lockToken\":\""
                                        + grant.body().get("lockToken").asText() + "\"}",
                                unavailable);
                        assertThat(released.status()).isEqualTo(200);
                        cycles++;
                    }
                    return cycles;
                }));
            }
            Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> grants.size() >= 20);
            InstanceSpec leader = ensemble.leader();
            ensemble.kill(leader);
            int atKill = grants.size();
            Awaitility.await().atMost(90, TimeUnit.SECONDS).until(() -> grants.size() >= atKill + 20);
            ensemble.restart(leader);
            int atRestart = grants.size();
            Awaitility.await().atMost(90, TimeUnit.SECONDS).until(() -> grants.size() >= atRestart + 20);
            running.set(false);
            int cycles = 0;
            for (Future<Integer> f : done) {
                cycles += f.get(120, TimeUnit.SECONDS);
            }
            clients.shutdown();

            assertThat(overlaps.get())
                    .as("grants while another client held the lock")
                    .isZero();
            List<Long> tokens = new ArrayList<>(grants);
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i))
                        .as("grant %d's token after grant %d's", i, i - 1)
                        .isGreaterThan(tokens.get(i - 1));
            }
            assertThat(cycles).isEqualTo(tokens.size());
        }
    }

    /** One call, retried with the same body (and so the same requestId) while the service answers 503. */
    private static Reply retry(ReplicaFixture replica, String action, String body, AtomicInteger unavailable) {
        for (int attempt = 0; attempt < 200; attempt++) {
            Reply r = replica.post(LOCK, action, body);
            if (r.status() != 503) {
                return r;
            }
            unavailable.incrementAndGet();
            Awaitility.await().pollDelay(java.time.Duration.ofMillis(100)).until(() -> true);
        }
        throw new AssertionError(action + " still unavailable after 200 attempts");
    }
}
