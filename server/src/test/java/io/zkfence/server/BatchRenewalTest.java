package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zkfence.server.ReplicaFixture.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/leases/renew}: many leases renewed in one call through any replica, each as the
 * single renewal would renew it, written in one ZooKeeper transaction; one lease's refusal is its
 * result and never the others'; bad input and a key the caller may not use are refused whole,
 * with nothing written.
 */
class BatchRenewalTest extends TwoReplicasTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BATCH = "/v1/leases/renew";

    private String prefix;

    @BeforeEach
    void freshKeys() {
        prefix = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6) + "-";
    }

    @Test
    void aBatchRenewsEveryLeaseInOneZooKeeperTransactionAndAnswersEachInOrder() {
        List<Reply> grants = acquire(a, 8, 10_000);
        RequestCounter requests = new RequestCounter();
        b.service.wire().injectFaults(requests);

        long sent = System.currentTimeMillis();
        Reply batch = b.postTo(BATCH, batch(grants, 60_000));
        long answered = System.currentTimeMillis();

        assertThat(batch.status()).as(batch.body().toString()).isEqualTo(200);
        JsonNode results = batch.body().get("results");
        assertThat(results).hasSize(8);
        for (int i = 0; i < 8; i++) {
            JsonNode r = results.get(i);
            assertThat(r.get("lockKey").asText()).isEqualTo(key(i));
            assertThat(r.has("error")).as(r.toString()).isFalse();
            assertThat(r.get("expiresAt").asLong()).isBetween(sent + 60_000, answered + 60_000);
            // Counted from the batch's arrival, the TTL from the renewal's clock read after it: the
            // TTL and up to the call's time more (a ms either way for rounding).
            assertThat(r.get("validForMillis").asLong()).isBetween(60_000L - 2, 60_000 + (answered - sent) + 2);
            assertThat(a.get(key(i)).body().get("expiresAt").asLong())
                    .as("the entry holds the answered end")
                    .isEqualTo(r.get("expiresAt").asLong());
        }
        assertThat(requests.count("data")).as("the entries read, pipelined").isEqualTo(8);
        assertThat(requests.count("multi")).as("one transaction: " + requests).isEqualTo(1);
        assertThat(requests.count("setData")).isZero();
        assertThat(requests.total()).isEqualTo(9);
    }

    @Test
    void aLeaseThatEndedIsExpiredInItsResultAndTheOthersAreRenewed() {
        List<Reply> grants = acquire(a, 3, 60_000);
        Reply shortLease = a.post(key(3), "acquire", ServiceHttp.acquire("pod-3", 300, null));
        grants.add(shortLease);
        assertThat(a.post(key(1), "release", ServiceHttp.token(grants.get(1))).status())
                .isEqualTo(200);
        long shortEnd = shortLease.body().get("expiresAt").asLong();
        Awaitility.await().until(() -> System.currentTimeMillis() > shortEnd);
        double failedBefore = ServiceHttp.meterSum(b.server.port(), "zkfence_service_renew_failures_total");

        Reply batch = b.postTo(BATCH, batch(grants, 60_000));

        assertThat(batch.status()).isEqualTo(200);
        JsonNode results = batch.body().get("results");
        assertThat(results.get(1).get("error").get("code").asText()).isEqualTo("LOCK_EXPIRED");
        assertThat(results.get(1).get("error").get("message").asText()).contains(key(1));
        assertThat(results.get(1).has("expiresAt")).isFalse();
        assertThat(results.get(3).get("error").get("code").asText()).isEqualTo("LOCK_EXPIRED");
        assertThat(results.get(3).get("error").get("message").asText()).contains("expired");
        for (int i : new int[] {0, 2}) {
            assertThat(results.get(i).get("validForMillis").asLong()).isCloseTo(60_000L, within(2_000L));
        }
        assertThat(a.get(key(3)).status()).as("the dead lease was reaped").isEqualTo(404);
        assertThat(ServiceHttp.meterSum(b.server.port(), "zkfence_service_renew_failures_total") - failedBefore)
                .isEqualTo(2.0);
    }

    @Test
    void aForgedOrAnotherOwnersTokenIsRefusedForThatLeaseOnly() {
        List<Reply> grants = acquire(a, 3, 10_000);
        String token = grants.get(0).body().get("lockToken").asText();
        String forged = token.substring(0, token.lastIndexOf('.') + 1) + "AAAAAAAAAAAAAAAAAAAAAA";
        ArrayNode leases = leases(grants, 60_000);
        ((ObjectNode) leases.get(0)).put("lockToken", forged);
        ((ObjectNode) leases.get(2)).put("ownerId", "pod-other");

        Reply batch = b.postTo(BATCH, body(leases));

        assertThat(batch.status()).isEqualTo(200);
        JsonNode results = batch.body().get("results");
        assertThat(results.get(0).get("error").get("code").asText()).isEqualTo("NOT_LOCK_OWNER");
        assertThat(results.get(2).get("error").get("code").asText()).isEqualTo("NOT_LOCK_OWNER");
        assertThat(batch.body().toString()).doesNotContain(token).doesNotContain(forged);
        assertThat(results.get(1).get("validForMillis").asLong()).isCloseTo(60_000L, within(2_000L));
        assertThat(a.get(key(0)).body().get("expiresAt").asLong())
                .as("the lease named by a forged token is untouched")
                .isEqualTo(grants.get(0).body().get("expiresAt").asLong());
    }

    @Test
    void aLeaseRenewedAndReleasedConcurrentlyThroughTheOtherReplicaNeverFailsTheOthersNorIsShortened()
            throws Exception {
        List<Reply> grants = acquire(a, 10, 60_000);
        List<Long> singleAnswers = new ArrayList<>();
        List<JsonNode> batchAnswers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // Lease 0 renewed one by one through replica a with a longer TTL, while b renews all ten.
            Future<?> single = threads.submit(() -> {
                for (int round = 0; round < 60; round++) {
                    Reply r = a.post(key(0), "renew", ServiceHttp.renew(grants.get(0), 120_000));
                    assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
                    singleAnswers.add(r.body().get("expiresAt").asLong());
                }
            });
            Future<?> batches = threads.submit(() -> {
                for (int round = 0; round < 60; round++) {
                    Reply r = b.postTo(BATCH, batch(grants, 60_000));
                    assertThat(r.status()).as(r.body().toString()).isEqualTo(200);
                    batchAnswers.add(r.body().get("results"));
                }
            });
            single.get();
            batches.get();
        }
        for (JsonNode results : batchAnswers) {
            for (JsonNode r : results) {
                assertThat(r.has("error")).as(r.toString()).isFalse();
            }
        }
        long lastSingle = singleAnswers.get(singleAnswers.size() - 1);
        assertThat(a.get(key(0)).body().get("expiresAt").asLong())
                .as("the 60 s batch renewals never moved the 120 s single renewal's end back")
                .isGreaterThanOrEqualTo(lastSingle);

        // And one released meanwhile: the others are renewed all the same.
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Reply> release = threads.submit(() -> a.post(key(5), "release", ServiceHttp.token(grants.get(5))));
            Reply batch = b.postTo(BATCH, batch(grants, 60_000));
            assertThat(release.get().status()).isEqualTo(200);
            JsonNode results = batch.body().get("results");
            for (int i = 0; i < 10; i++) {
                if (i != 5) {
                    assertThat(results.get(i).has("error"))
                            .as(results.get(i).toString())
                            .isFalse();
                }
            }
        }
    }

    @Test
    void aBatchWhoseLeasesAllChangedSinceItsReadCostsOneRefusedMultiNotOnePerLease() {
        List<Reply> grants = acquire(a, 20, 60_000);
        String body = batch(grants, 60_000);
        RequestCounter requests = new RequestCounter();
        AtomicBoolean raced = new AtomicBoolean();
        AtomicInteger otherStatus = new AtomicInteger();
        // Between b's read and its multi, another call renews the same twenty leases through a (as a
        // client's next round does while a slow one is still running): every entry b read has changed.
        b.service.wire().injectFaults((kind, path) -> {
            if (kind.equals("multi") && raced.compareAndSet(false, true)) {
                otherStatus.set(a.postTo(BATCH, body).status());
            }
            return requests.inject(kind, path);
        });

        Reply batch = b.postTo(BATCH, body);

        assertThat(otherStatus.get()).isEqualTo(200);
        assertThat(batch.status()).as(batch.body().toString()).isEqualTo(200);
        for (JsonNode r : batch.body().get("results")) {
            assertThat(r.has("error")).as(r.toString()).isFalse();
            assertThat(r.get("validForMillis").asLong()).isCloseTo(60_000L, within(2_000L));
        }
        assertThat(requests.count("multi"))
                .as("one multi refused, then one that wrote all twenty: " + requests)
                .isEqualTo(2);
        assertThat(requests.count("data"))
                .as("read; read again to find the changed ones and decide them on that read (pipelined)")
                .isEqualTo(40);
    }

    @Test
    void badInputIsRefusedWholeNamingTheProblemAndWritesNothing() {
        List<Reply> grants = acquire(a, 2, 10_000);
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {"{\"leases\":[]}", "leases must be an array of 1 to 1000"});
        cases.add(new String[] {"{}", "leases is required"});
        cases.add(new String[] {"{\"leases\":{}}", "leases must be an array"});
        cases.add(new String[] {"{\"leases\":[1]}", "leases[0] must be a JSON object"});
        cases.add(new String[] {"not json", "not valid JSON"});
        cases.add(new String[] {"{\"leases\":[],\"x\":1}", "unknown field 'x'"});
        cases.add(new String[] {edited(grants, l -> l.remove("ownerId")), "leases[1].ownerId is required"});
        cases.add(new String[] {edited(grants, l -> l.put("ttlMillis", 0)), "leases[1].ttlMillis must be"});
        cases.add(new String[] {edited(grants, l -> l.put("ttlMillis", 3_600_001)), "leases[1].ttlMillis must be"});
        cases.add(new String[] {edited(grants, l -> l.put("lockKey", "")), "leases[1].lockKey"});
        cases.add(new String[] {edited(grants, l -> l.put("extra", 1)), "unknown field 'leases[1].extra'"});
        cases.add(new String[] {
            edited(
                    grants,
                    l -> l.put(
                            "lockToken", grants.get(0).body().get("lockToken").asText())),
            "leases[1].lockToken is the same as leases[0].lockToken"
        });
        ArrayNode many = JSON.createArrayNode();
        for (int i = 0; i <= BatchRenewal.MAX_LEASES; i++) {
            many.add(leases(grants, 60_000).get(i % 2));
        }
        cases.add(new String[] {body(many), "leases must be an array of 1 to 1000 objects, was an array of 1001"});

        for (String[] c : cases) {
            Reply r = b.postTo(BATCH, c[0]);
            assertThat(r.status()).as(c[0]).isEqualTo(400);
            assertThat(r.body().get("error").asText()).isEqualTo("BAD_REQUEST");
            assertThat(r.body().get("detail").asText()).as(c[0]).contains(c[1]);
            assertThat(r.body().toString())
                    .doesNotContain(grants.get(0).body().get("lockToken").asText());
        }
        for (int i = 0; i < 2; i++) {
            assertThat(a.get(key(i)).body().get("expiresAt").asLong())
                    .as("nothing written")
                    .isEqualTo(grants.get(i).body().get("expiresAt").asLong());
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedAsTooLarge() {
        StringBuilder big = new StringBuilder("{\"leases\":[{\"lockKey\":\"");
        big.append("x".repeat(LeaseRoutes.BATCH_MAX_BYTES)).append("\"}]}");

        Reply r = b.postTo(BATCH, big.toString());

        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body().get("detail").asText()).contains("1024 KiB");
    }

    @Test
    void aBatchWithOneKeyTheApiKeyMayNotUseIsForbiddenAndRenewsNothing(@TempDir Path dir) throws Exception {
        String inventoryKey = "inventory-secret-0123456789";
        String adminKey = "admin-secret-0123456789abcdef";
        Path file = dir.resolve("keys.json");
        Files.writeString(file, """
                {"keys": [
                  {"name": "inventory", "key": "%s", "namespaces": ["inventory"]},
                  {"name": "ops", "key": "%s", "admin": true}
                ]}""".formatted(inventoryKey, adminKey));
        try (ReplicaFixture guarded = new ReplicaFixture(connectString(), root, ApiKeys.load(file), inventoryKey)) {
            List<Reply> grants = acquire(guarded, 2, 10_000);
            String billing = "billing:invoice-" + UUID.randomUUID().toString().substring(0, 6);
            Reply foreign = guarded.as(adminKey).post(billing, "acquire", ServiceHttp.acquire("pod-b", 10_000, null));
            ArrayNode leases = leases(grants, 60_000);
            leases.add(lease(billing, foreign, 60_000));

            Reply r = guarded.postTo(BATCH, body(leases));
            Reply anonymous = guarded.as(null).postTo(BATCH, body(leases));

            assertThat(r.status()).isEqualTo(403);
            assertThat(r.body().get("error").asText()).isEqualTo("NAMESPACE_FORBIDDEN");
            assertThat(r.body().get("detail").asText()).contains("billing");
            assertThat(anonymous.status()).isEqualTo(401);
            for (int i = 0; i < 2; i++) {
                assertThat(guarded.get(key(i)).body().get("expiresAt").asLong())
                        .as("nothing renewed")
                        .isEqualTo(grants.get(i).body().get("expiresAt").asLong());
            }
            assertThat(guarded.as(adminKey).postTo(BATCH, body(leases)).body().get("results"))
                    .allSatisfy(res -> assertThat(res.has("expiresAt")).isTrue());
        }
    }

    private String key(int i) {
        return prefix + i;
    }

    private List<Reply> acquire(ReplicaFixture replica, int n, long ttlMillis) {
        List<Reply> grants = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Reply g = replica.post(key(i), "acquire", ServiceHttp.acquire("pod-" + i, ttlMillis, null));
            assertThat(g.status()).as(g.body().toString()).isEqualTo(200);
            grants.add(g);
        }
        return grants;
    }

    private String batch(List<Reply> grants, long ttlMillis) {
        return body(leases(grants, ttlMillis));
    }

    private ArrayNode leases(List<Reply> grants, long ttlMillis) {
        ArrayNode leases = JSON.createArrayNode();
        for (int i = 0; i < grants.size(); i++) {
            leases.add(lease(key(i), grants.get(i), ttlMillis));
        }
        return leases;
    }

    private static ObjectNode lease(String key, Reply grant, long ttlMillis) {
        return JSON.createObjectNode()
                .put("lockKey", key)
                .put("lockToken", grant.body().get("lockToken").asText())
                .put("ownerId", grant.body().get("ownerId").asText())
                .put("ttlMillis", ttlMillis);
    }

    /** The batch of {@code grants} with its second lease changed by {@code edit}. */
    private String edited(List<Reply> grants, Consumer<ObjectNode> edit) {
        ArrayNode leases = leases(grants, 60_000);
        edit.accept((ObjectNode) leases.get(1));
        return body(leases);
    }

    private static String body(ArrayNode leases) {
        ObjectNode o = JSON.createObjectNode();
        o.set("leases", leases);
        return o.toString();
    }
}
