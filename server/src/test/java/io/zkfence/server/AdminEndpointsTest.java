package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** List, force-release, the audit trail and health, over real HTTP against two replicas. */
class AdminEndpointsTest extends TwoReplicasTestBase {

    private String ns;

    @BeforeEach
    void freshNamespace() {
        ns = "orders-" + UUID.randomUUID().toString().substring(0, 4);
    }

    private static String acquire(String owner) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":60000}";
    }

    @Test
    void listAnswersTheHeldLocksOfOneNamespaceInKeyOrderAPageAtATime() {
        for (String k : List.of("c", "a", "b", "d")) {
            assertThat(a.post(ns + ":" + k, "acquire", acquire("pod-" + k)).status())
                    .isEqualTo(200);
        }
        String released = a.post(ns + ":e", "acquire", acquire("pod-e"))
                .body()
                .get("lockToken")
                .asText();
        a.post(ns + ":e", "release", "{\"ownerId\":\"pod-e\",\"lockToken\":\"" + released + "\"}");
        a.post("other-ns:a", "acquire", acquire("elsewhere"));

        List<String> seen = new ArrayList<>();
        String after = null;
        do {
            Reply page = b.path("/v1/locks?namespace=" + ns + "&limit=3" + (after == null ? "" : "&after=" + after));
            assertThat(page.status()).isEqualTo(200);
            page.body().get("locks").forEach(l -> {
                seen.add(l.get("lockKey").asText());
                assertThat(l.get("ownerId").asText())
                        .isEqualTo("pod-" + l.get("lockKey").asText().substring(ns.length() + 1));
                assertThat(l.get("fencingToken").asLong()).isPositive();
            });
            after = page.body().get("next").isNull()
                    ? null
                    : page.body().get("next").asText();
        } while (after != null);
        assertThat(seen).containsExactly(ns + ":a", ns + ":b", ns + ":c", ns + ":d");
    }

    @Test
    void aForcedReleaseEvictsTheHolderGrantsTheNextWaiterAHigherTokenAndIsAudited() throws Exception {
        String key = ns + ":stuck";
        Reply holder = a.post(key, "acquire", acquire("stuck-pod"));
        var waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> b.post(
                key, "acquire", "{\"ownerId\":\"next-pod\",\"ttlMillis\":60000,\"wait\":true,\"waitMillis\":30000}"));
        org.awaitility.Awaitility.await()
                .until(() -> a.get(key).body().get("waiters").size() == 1);

        Reply forced = b.post(key, "force-release", "{\"reason\":\"pod hung in GC, ticket OPS-1\"}");
        assertThat(forced.status()).isEqualTo(200);
        assertThat(forced.body().get("status").asText()).isEqualTo("FORCE_RELEASED");
        assertThat(forced.body().get("audit").get("holderOwnerId").asText()).isEqualTo("stuck-pod");

        Reply next = waiting.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(next.status()).isEqualTo(200);
        assertThat(next.body().get("fencingToken").asLong())
                .isGreaterThan(holder.body().get("fencingToken").asLong());
        Reply renew = a.post(
                key,
                "renew",
                "{\"ownerId\":\"stuck-pod\",\"lockToken\":\""
                        + holder.body().get("lockToken").asText() + "\",\"ttlMillis\":60000}");
        assertThat(renew.status()).isEqualTo(409);
        assertThat(renew.body().get("error").asText()).isEqualTo("LOCK_EXPIRED");

        Reply audit = a.path("/v1/audit");
        assertThat(audit.status()).isEqualTo(200);
        var entry = audit.body().get("entries").get(0);
        assertThat(entry.get("lockKey").asText()).isEqualTo(key);
        assertThat(entry.get("outcome").asText()).isEqualTo("RELEASED");
        assertThat(entry.get("fencingToken").asLong())
                .isEqualTo(holder.body().get("fencingToken").asLong());
        assertThat(entry.get("reason").asText()).isEqualTo("pod hung in GC, ticket OPS-1");
        assertThat(entry.get("by").asText()).isEqualTo("anonymous");
    }

    @Test
    void aForcedReleasePinnedToAnOldTokenNeverTouchesTheNewHolder() {
        String key = ns + ":pinned";
        Reply first = a.post(key, "acquire", acquire("first"));
        long oldToken = first.body().get("fencingToken").asLong();
        a.post(
                key,
                "release",
                "{\"ownerId\":\"first\",\"lockToken\":\""
                        + first.body().get("lockToken").asText() + "\"}");
        Reply second = a.post(key, "acquire", acquire("second"));

        Reply forced =
                b.post(key, "force-release", "{\"reason\":\"meant the old one\",\"fencingToken\":" + oldToken + "}");
        assertThat(forced.body().get("status").asText()).isEqualTo("HOLDER_CHANGED");
        assertThat(a.get(key).body().get("fencingToken").asLong())
                .isEqualTo(second.body().get("fencingToken").asLong());

        assertThat(b.post(ns + ":free", "force-release", "{\"reason\":\"check\"}")
                        .body()
                        .get("status")
                        .asText())
                .isEqualTo("NOT_HELD");
        assertThat(b.post(key, "force-release", "{}").status()).isEqualTo(400);
    }

    @Test
    void theAuditTrailKeepsOnlyTheNewestEntriesOfItsRetention() {
        for (int i = 0; i < 5; i++) {
            a.post(ns + ":k" + i, "force-release", "{\"reason\":\"r" + i + "\"}"); // retention is 3 in the fixture
        }
        List<String> reasons = new ArrayList<>();
        b.path("/v1/audit")
                .body()
                .get("entries")
                .forEach(e -> reasons.add(e.get("reason").asText()));
        assertThat(reasons).containsExactly("r4", "r3", "r2");
        assertThat(b.path("/v1/audit?limit=0").status()).isEqualTo(400);
    }

    @Test
    void readinessFollowsTheZooKeeperConnectionAndLivenessDoesNot() {
        assertThat(a.path("/health/live").status()).isEqualTo(200);
        assertThat(a.path("/health/ready").status()).isEqualTo(200);
        a.zk.close(); // the replica's only ZooKeeper connection
        Reply ready = a.path("/health/ready");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.body().get("status").asText()).isEqualTo("DOWN");
        assertThat(a.path("/health/live").status()).isEqualTo(200);
    }

    @Test
    void aReplicaThatShutsDownAnswersItsWaitersAndRemovesTheirQueueEntries() throws Exception {
        String key = ns + ":busy";
        assertThat(b.post(key, "acquire", acquire("holder")).status()).isEqualTo(200);
        var waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> a.post(
                key, "acquire", "{\"ownerId\":\"waiter\",\"ttlMillis\":60000,\"wait\":true,\"waitMillis\":60000}"));
        org.awaitility.Awaitility.await()
                .until(() -> b.get(key).body().get("waiters").size() == 1);

        a.close();

        Reply answered = waiting.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answered.status()).isEqualTo(503);
        assertThat(answered.body().get("error").asText()).isEqualTo("SHUTTING_DOWN");
        assertThat(b.get(key).body().get("waiters")).isEmpty();
        assertThat(b.get(key).body().get("ownerId").asText()).isEqualTo("holder");
    }

    @Test
    void unknownRoutesAndMethodsAnswerProblemDetails() {
        Reply missing = a.path("/v1/nothing-here");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.contentType()).startsWith("application/problem+json");
        assertThat(missing.body().get("error").asText()).isEqualTo("NOT_FOUND");
        Reply wrongMethod = a.call("DELETE", "/v1/locks/" + ns + ":x");
        assertThat(wrongMethod.status()).isIn(404, 405);
        assertThat(wrongMethod.contentType()).startsWith("application/problem+json");
    }
}
