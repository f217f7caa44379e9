package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.zkfence.testing.RedisServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Redis restart with and without persistence, each on a server of its own killed with SIGKILL
 * (a crash) and started again on its port and directory: what is left of the fence record, and
 * what the fence then refuses. The story in each: holder A wrote with token 5, its successor B
 * with token 7, and A, paused, writes again with 5 after the restart.
 */
class RestartTest {

    private static final String FENCE = "inventory:{sku-1}";
    private static final String STOCK = "stock:{sku-1}";

    private RedisServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    private void start(List<String> persistence) {
        server = RedisServer.start(persistence);
        client = Redis.client(server);
        connection = client.connect();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    private RedisFence fence(RedisFenceConfig config) {
        return RedisFence.create(LettuceConnector.of(connection), config);
    }

    private RedisCommands<String, String> redis() {
        return connection.sync();
    }

    /** Kills the server and starts it again; waits until the connection works again. */
    private void crashAndRestart() {
        server.kill();
        server.restart();
        Awaitility.await("the connection is back")
                .atMost(Redis.TIMEOUT.multipliedBy(4))
                .ignoreExceptions()
                .until(() -> "PONG".equals(redis().ping()));
    }

    private void holdersAWroteThenB(RedisFence fence) {
        fence.seed(1);
        fence.write(FENCE, 5, RedisWrite.set(STOCK, "by A"));
        fence.write(FENCE, 7, RedisWrite.set(STOCK, "by B"));
    }

    @Test
    void withoutPersistenceTheRecordIsGoneAndTheFenceRefusesEverythingUntilSeeded() {
        start(List.of());
        RedisFence fence = fence(RedisFenceConfig.defaults());
        holdersAWroteThenB(fence);

        crashAndRestart();

        assertThat(fence.token(FENCE)).as("the fence record after the restart").isEmpty();
        RedisFenceNotSeededException e = assertThrows(
                RedisFenceNotSeededException.class, () -> fence.write(FENCE, 5, RedisWrite.set(STOCK, "late, by A")));
        assertThat(e.serverRestarted()).isFalse();
        assertThat(e.getMessage()).contains(FENCE, "no floor", "lost its data", "seed", "nothing was written");
        assertThat(redis().exists(STOCK)).isZero();

        fence.seed(8); // a token issued after the loss
        RedisStaleTokenException stale = assertThrows(
                RedisStaleTokenException.class, () -> fence.write(FENCE, 5, RedisWrite.set(STOCK, "late, by A")));
        assertThat(stale.storedToken()).isEqualTo(8);
        assertThrows(RedisStaleTokenException.class, () -> fence.write(FENCE, 7, RedisWrite.set(STOCK, "by B")));
        fence.write(FENCE, 9, RedisWrite.set(STOCK, "by C, after acquiring again"));
        assertThat(redis().get(STOCK)).isEqualTo("by C, after acquiring again");
    }

    @Test
    void withAnAppendOnlyFileTheRecordSurvivesButTheDefaultPolicyRefusesUntilSeeded() {
        start(List.of("--appendonly", "yes", "--appendfsync", "always"));
        RedisFence fence = fence(RedisFenceConfig.defaults());
        holdersAWroteThenB(fence);

        crashAndRestart();

        assertThat(fence.token(FENCE)).hasValue(7);
        assertThat(redis().get(STOCK)).isEqualTo("by B");
        RedisFenceNotSeededException e = assertThrows(
                RedisFenceNotSeededException.class, () -> fence.write(FENCE, 7, RedisWrite.set(STOCK, "by B again")));
        assertThat(e.serverRestarted()).isTrue();
        assertThat(e.seededRunId()).isPresent().isNotEqualTo(e.currentRunId());
        assertThat(e.getMessage()).contains("earlier run of the server");
        assertThat(redis().get(STOCK)).isEqualTo("by B");

        fence.seed(8);
        assertThrows(RedisStaleTokenException.class, () -> fence.write(FENCE, 5, RedisWrite.set(STOCK, "late")));
        fence.write(FENCE, 8, RedisWrite.set(STOCK, "by B, acquired again"));
    }

    @Test
    void withAnAppendOnlyFileSyncedOnEveryWriteTrustingPersistenceKeepsFencing() {
        start(List.of("--appendonly", "yes", "--appendfsync", "always"));
        RedisFence fence = fence(RedisFenceConfig.builder()
                .restartPolicy(RedisFenceConfig.RestartPolicy.TRUST_PERSISTENCE)
                .build());
        holdersAWroteThenB(fence);

        crashAndRestart();

        RedisStaleTokenException e = assertThrows(
                RedisStaleTokenException.class, () -> fence.write(FENCE, 5, RedisWrite.set(STOCK, "late, by A")));
        assertThat(e.storedToken()).isEqualTo(7);
        fence.write(FENCE, 7, RedisWrite.set(STOCK, "by B, after the restart"));
        assertThat(redis().get(STOCK)).isEqualTo("by B, after the restart");
    }

    /**
     * Why the default refuses: an RDB snapshot taken after A's write and before B's brings the
     * record back at 5, and a holder between them passes if the fence trusts it.
     */
    @Test
    void aSnapshotOlderThanTheLastAcceptedTokenLetsAStaleTokenPassUnlessRefused() {
        start(List.of());
        RedisFence trusting = fence(RedisFenceConfig.builder()
                .restartPolicy(RedisFenceConfig.RestartPolicy.TRUST_PERSISTENCE)
                .build());
        RedisFence refusing = fence(RedisFenceConfig.defaults());
        trusting.seed(1);
        trusting.write(FENCE, 5, RedisWrite.set(STOCK, "by A"));
        assertThat(redis().save()).isEqualTo("OK"); // the snapshot: record at 5
        trusting.write(FENCE, 7, RedisWrite.set(STOCK, "by B")); // accepted, then lost

        crashAndRestart();

        assertThat(trusting.token(FENCE)).hasValue(5);
        assertThrows(RedisFenceNotSeededException.class, () -> refusing.write(FENCE, 6, RedisWrite.set(STOCK, "by 6")));
        trusting.write(FENCE, 6, RedisWrite.set(STOCK, "by 6, older than B's 7"));
        assertThat(redis().get(STOCK)).isEqualTo("by 6, older than B's 7");
    }

    @Test
    void aFenceWithAFreshTokenSourceSeedsByItselfAndRefusesTheOlderToken() {
        start(List.of());
        AtomicInteger asked = new AtomicInteger();
        RedisFence fence = fence(RedisFenceConfig.builder()
                .reseedFrom(() -> {
                    asked.incrementAndGet();
                    return 100;
                })
                .build());
        holdersAWroteThenB(fence);

        crashAndRestart();

        RedisStaleTokenException e = assertThrows(
                RedisStaleTokenException.class, () -> fence.write(FENCE, 7, RedisWrite.set(STOCK, "by B")));
        assertThat(e.storedToken()).isEqualTo(100);
        assertThat(asked).hasValue(1);
        fence.write(FENCE, 101, RedisWrite.set(STOCK, "by B, acquired again"));
        assertThat(asked).hasValue(1);
        assertThat(redis().get(STOCK)).isEqualTo("by B, acquired again");
    }

    @Test
    void aFlushAllIsALossLikeAnyOther() {
        start(List.of());
        RedisFence fence = fence(RedisFenceConfig.defaults());
        holdersAWroteThenB(fence);

        redis().flushall();

        assertThrows(RedisFenceNotSeededException.class, () -> fence.write(FENCE, 5, RedisWrite.set(STOCK, "late")));
        assertThat(redis().exists(STOCK)).isZero();
    }

    /**
     * The default policy's functions read the server's run id once and keep it in their library's
     * Lua state; that state is the server process's, so a restart (the library comes back from
     * the append-only file, its cache empty) or a {@code FUNCTION FLUSH} starts without it.
     */
    @Test
    void theRunIdTheFunctionsCachedDiesWithTheServerProcessAndWithAFunctionFlush() {
        start(List.of("--appendonly", "yes", "--appendfsync", "always"));
        RedisFence fence = fence(RedisFenceConfig.defaults());
        holdersAWroteThenB(fence);
        String firstRun = runId();
        assertThat(cachedRunId()).isEqualTo(firstRun);

        crashAndRestart();

        assertThat(Redis.libraries(redis())).as("libraries after the restart").contains(Scripts.LIBRARY.name());
        assertThat(cachedRunId()).as("cached run id after the restart").isNull();
        assertThrows(RedisFenceNotSeededException.class, () -> fence.write(FENCE, 7, RedisWrite.set(STOCK, "by B")));
        assertThat(cachedRunId()).isEqualTo(runId()).isNotEqualTo(firstRun);

        redis().functionFlush(FlushMode.SYNC);
        redis().functionLoad(Scripts.LIBRARY.source());

        assertThat(cachedRunId()).as("cached run id after FUNCTION FLUSH").isNull();
    }

    private String runId() {
        return redis().info("server")
                .lines()
                .filter(l -> l.startsWith("run_id:"))
                .findFirst()
                .orElseThrow()
                .substring("run_id:".length());
    }

    private String cachedRunId() {
        return redis().fcall(Scripts.LIBRARY.function("run"), ScriptOutputType.VALUE);
    }

    @Test
    void aDeadServerIsReportedAsAnUnknownOutcome() {
        start(List.of());
        RedisFence fence = fence(RedisFenceConfig.defaults());
        fence.seed(1);

        server.kill();

        RedisFenceException e =
                assertThrows(RedisFenceException.class, () -> fence.write(FENCE, 5, RedisWrite.set(STOCK, "x")));
        assertThat(e.outcomeUnknown()).isTrue();
        assertThat(e.getMessage()).contains(FENCE, "no answer", "may or may not");
    }
}
