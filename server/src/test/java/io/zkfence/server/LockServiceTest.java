package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.server.ReplicaFixture.Reply;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two replicas of the service over one ensemble, driven through real HTTP. */
class LockServiceTest extends TwoReplicasTestBase {

    private String key;

    @BeforeEach
    void freshKey() {
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    private static String acquireBody(String owner, long ttl, String requestId) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":" + ttl + ",\"requestId\":\"" + requestId + "\"}";
    }

    private static String waitBody(String owner, long ttl, long waitMillis) {
        return "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":" + ttl + ",\"wait\":true,\"waitMillis\":" + waitMillis
                + "}";
    }

    private static String tokenBody(String owner, Reply grant) {
        return "{\"ownerId\":\"" + owner + "\",\"lockToken\":\""
                + grant.body().get("lockToken").asText() + "\"}";
    }

    @Test
    void aHeldLockAnswersConflictWithItsOwnerAndTheNextHolderGetsAHigherFencingToken() {
        Reply first = a.post(key, "acquire", acquireBody("pod-1", 30_000, "r1"));
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().get("ownerId").asText()).isEqualTo("pod-1");
        assertThat(first.body().get("expiresAt").asLong()).isGreaterThan(System.currentTimeMillis());

        Reply refused = b.post(key, "acquire", acquireBody("pod-2", 30_000, "r2"));
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body().get("error").asText()).isEqualTo("LOCK_ALREADY_HELD");
        assertThat(refused.body().get("currentOwner").asText()).isEqualTo("pod-1");
        assertThat(refused.body().get("retryAfterMillis").asLong()).isPositive();

        assertThat(b.post(key, "release", tokenBody("pod-1", first)).status()).isEqualTo(200);
        Reply second = a.post(key, "acquire", acquireBody("pod-2", 30_000, "r3"));
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.body().get("fencingToken").asLong())
                .isGreaterThan(first.body().get("fencingToken").asLong());
    }

    @Test
    void aRetriedAcquireWithTheSameRequestIdGetsTheSameGrant() {
        Reply first = a.post(key, "acquire", acquireBody("pod-1", 30_000, "same"));
        Reply again = b.post(key, "acquire", acquireBody("pod-1", 30_000, "same"));
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("lockToken")).isEqualTo(first.body().get("lockToken"));
        assertThat(again.body().get("fencingToken")).isEqualTo(first.body().get("fencingToken"));
        assertThat(a.get(key).body().get("waiters")).isEmpty();
    }

    @Test
    void renewAndReleaseWorkOnAnyReplicaAndOnlyForTheOwner() {
        Reply grant = a.post(key, "acquire", acquireBody("pod-1", 2_000, "r1"));
        Reply renewed = b.post(
                key,
                "renew",
                "{\"ownerId\":\"pod-1\",\"lockToken\":\""
                        + grant.body().get("lockToken").asText() + "\",\"ttlMillis\":60000}");
        assertThat(renewed.status()).isEqualTo(200);
        assertThat(renewed.body().get("expiresAt").asLong())
                .isGreaterThan(grant.body().get("expiresAt").asLong());

        Reply stranger = b.post(key, "release", tokenBody("pod-2", grant));
        assertThat(stranger.status()).isEqualTo(403);
        assertThat(stranger.body().get("error").asText()).isEqualTo("NOT_LOCK_OWNER");
        assertThat(a.get(key).body().get("locked").asBoolean()).isTrue();

        assertThat(b.post(key, "release", tokenBody("pod-1", grant)).status()).isEqualTo(200);
        Reply status = a.get(key);
        assertThat(status.status()).isEqualTo(404);
        assertThat(status.body().get("locked").asBoolean()).isFalse();
        assertThat(a.post(key, "release", tokenBody("pod-1", grant)).status())
                .as("released twice")
                .isEqualTo(200);
    }

    @Test
    void aLeaseThatIsNotRenewedExpiresOnEveryReplicaAndCannotBeRenewed() {
        Reply grant = a.post(key, "acquire", acquireBody("pod-1", 300, "r1"));
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                // Each try is a new request: a 409 is a request's final answer.
                .until(() -> b.post(key, "acquire", acquireBody("pod-2", 30_000, "r2-" + UUID.randomUUID()))
                                .status()
                        == 200);
        Reply renew = a.post(
                key,
                "renew",
                "{\"ownerId\":\"pod-1\",\"lockToken\":\""
                        + grant.body().get("lockToken").asText() + "\",\"ttlMillis\":1000}");
        assertThat(renew.status()).isEqualTo(409);
        assertThat(renew.body().get("error").asText()).isEqualTo("LOCK_EXPIRED");
        assertThat(a.post(key, "release", tokenBody("pod-1", grant)).status()).isEqualTo(200);
        assertThat(a.get(key).body().get("ownerId").asText()).isEqualTo("pod-2");
    }

    @Test
    void waitersAreGrantedInArrivalOrderAcrossReplicas() throws Exception {
        Reply holder = a.post(key, "acquire", acquireBody("holder", 30_000, "h"));
        List<CompletableFuture<Reply>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ReplicaFixture via = i % 2 == 0 ? a : b;
            String owner = "waiter-" + i;
            waiting.add(CompletableFuture.supplyAsync(() -> via.post(key, "acquire", waitBody(owner, 30_000, 60_000))));
            int queued = i + 1;
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> a.get(key).body().get("waiters").size() == queued);
        }
        a.post(key, "release", tokenBody("holder", holder));
        long previous = holder.body().get("fencingToken").asLong();
        for (int i = 0; i < 3; i++) {
            Reply granted = waiting.get(i).get(30, TimeUnit.SECONDS);
            assertThat(granted.status()).isEqualTo(200);
            assertThat(granted.body().get("ownerId").asText()).isEqualTo("waiter-" + i);
            assertThat(granted.body().get("fencingToken").asLong()).isGreaterThan(previous);
            previous = granted.body().get("fencingToken").asLong();
            b.post(key, "release", tokenBody("waiter-" + i, granted));
        }
    }

    @Test
    void aWaitThatRunsOutAnswersConflictAndLeavesNoEntry() {
        a.post(key, "acquire", acquireBody("holder", 30_000, "h"));
        Reply late = b.post(key, "acquire", waitBody("impatient", 30_000, 200));
        assertThat(late.status()).isEqualTo(409);
        assertThat(late.body().get("currentOwner").asText()).isEqualTo("holder");
        assertThat(a.get(key).body().get("waiters")).isEmpty();
    }

    @Test
    void aStoppedReplicaLeavesTheLeaseServedByTheOther() {
        Reply grant = a.post(key, "acquire", acquireBody("pod-1", 30_000, "r1"));
        a.close();
        assertThat(b.get(key).body().get("ownerId").asText()).isEqualTo("pod-1");
        Reply renewed = b.post(
                key,
                "renew",
                "{\"ownerId\":\"pod-1\",\"lockToken\":\""
                        + grant.body().get("lockToken").asText() + "\",\"ttlMillis\":30000}");
        assertThat(renewed.status()).isEqualTo(200);
        assertThat(b.post(key, "release", tokenBody("pod-1", grant)).status()).isEqualTo(200);
    }

    @Test
    void badRequestsAreRefusedNamingTheProblemAndWriteNothing() {
        assertBad(a.post(key, "acquire", "{\"ownerId\":\"p\"}"), "ttlMillis");
        assertBad(a.post(key, "acquire", "{\"ownerId\":\"p\",\"ttlMillis\":-5}"), "ttlMillis");
        assertBad(a.post(key, "acquire", "{\"ttlMillis\":1000}"), "ownerId");
        assertBad(a.post(key, "acquire", "{\"ownerId\":\"p\",\"ttlMillis\":1000,\"color\":\"red\"}"), "color");
        assertBad(a.post(key, "acquire", "{\"ownerId\":\"p\",\"ttlMillis\":1000,\"wait\":true}"), "waitMillis");
        assertBad(a.post(key, "acquire", "{not json"), "JSON");
        assertBad(a.post("%01bad", "acquire", acquireBody("p", 1000, "r")), "control");
        assertBad(a.post("bad%20ns%3Aname", "acquire", acquireBody("p", 1000, "r")), "namespace");
        assertBad(a.post("%20%20%20", "acquire", acquireBody("p", 1000, "r")), "white space");
        assertBad(a.post("inventory%3A%20%20", "acquire", acquireBody("p", 1000, "r")), "white space");
        assertThat(a.get(key).status()).isEqualTo(404);
        assertThat(a.get(key).body().get("waiters")).isEmpty();
    }

    @Test
    void keysMayHoldAnyWellFormedTextIncludingSlashesAndSpaces() {
        for (String k : java.util.List.of("inventory:a/b", "inventory:two words", "inventory:é✓")) {
            String path = java.net.URLEncoder.encode(k, java.nio.charset.StandardCharsets.UTF_8)
                    .replace("+", "%20");
            Reply grant = a.post(path, "acquire", acquireBody("p", 10_000, "r-" + k.hashCode()));
            assertThat(grant.status()).as(k).isEqualTo(200);
            assertThat(grant.body().get("lockKey").asText()).isEqualTo(k);
            assertThat(b.get(path).body().get("ownerId").asText()).isEqualTo("p");
        }
    }

    @Test
    void aRequestTheHttpServerItselfRefusesStillAnswersProblemDetails() throws Exception {
        // An encoded NUL is refused by Jetty before any route runs; the answer keeps the API's error shape.
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", a.server.port())) {
            s.getOutputStream()
                    .write(("GET /v1/locks/a%00b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(response)
                    .startsWith("HTTP/1.1 400")
                    .contains("application/problem+json", "\"error\":\"BAD_REQUEST\"");
        }
    }

    private static void assertBad(Reply reply, String mentions) {
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("error").asText()).isEqualTo("BAD_REQUEST");
        assertThat(reply.body().get("detail").asText()).contains(mentions);
        assertThat(reply.contentType()).startsWith("application/problem+json");
    }

    @Test
    void anExpiredHoldersLateWriteIsRejectedByTheFence() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:service-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcFence fence = JdbcFence.create(ds, FenceConfig.defaults(FenceDialect.H2));
        fence.createIfMissing();
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("create table stock (sku varchar(20) primary key, qty int)");
            s.execute("insert into stock values ('sku', 10)");
        }
        Reply paused = a.post(key, "acquire", acquireBody("paused-pod", 300, "p"));
        long pausedToken = paused.body().get("fencingToken").asLong();
        write(fence, pausedToken, 9);
        // The paused pod misses its renewals; another pod takes the lock once the lease expired.
        Reply[] next = new Reply[1];
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    next[0] = b.post(key, "acquire", acquireBody("next-pod", 30_000, "n-" + UUID.randomUUID()));
                    return next[0].status() == 200;
                });
        long nextToken = next[0].body().get("fencingToken").asLong();
        assertThat(nextToken).isGreaterThan(pausedToken);
        write(fence, nextToken, 8);
        JdbcStaleTokenException stale = assertThrows(JdbcStaleTokenException.class, () -> write(fence, pausedToken, 7));
        assertThat(stale.storedToken()).isEqualTo(nextToken);
    }

    private static void write(JdbcFence fence, long token, int qty) {
        fence.inTransaction("stock:sku", token, connection -> {
            try (PreparedStatement ps = connection.prepareStatement("update stock set qty = ? where sku = 'sku'")) {
                ps.setInt(1, qty);
                return ps.executeUpdate();
            }
        });
    }
}
