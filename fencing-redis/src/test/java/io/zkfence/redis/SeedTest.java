package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.zkfence.testing.RedisServer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The floors: one per slot, never lowered, refusing lower tokens on every fence, new or not. */
class SeedTest {

    private RedisServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisFence fence;

    @BeforeEach
    void start() {
        server = RedisServer.start(List.of());
        client = Redis.client(server);
        connection = client.connect();
        fence = RedisFence.create(LettuceConnector.of(connection));
    }

    @AfterEach
    void stop() {
        client.shutdown();
        server.close();
    }

    @Test
    void aServerNeverSeededRefusesEveryFencedCall() {
        RedisFenceNotSeededException e =
                assertThrows(RedisFenceNotSeededException.class, () -> fence.claim("orders/1", 1));

        assertThat(e.serverRestarted()).isFalse();
        assertThat(e.fence()).isEqualTo("orders/1");
        assertThat(connection.sync().dbsize()).isZero();
    }

    @Test
    void seedingWritesOneFloorPerSlotAndOnlyThose() {
        long floor = fence.seed(3);

        assertThat(floor).isEqualTo(3);
        assertThat(connection.sync().dbsize()).isEqualTo(16_384);
        assertThat(connection.sync().hget("zkfence:floor:{0}", "floor")).isEqualTo("3");
    }

    @Test
    void theFloorRefusesLowerTokensOnFencesThatNeverSawOne() {
        fence.seed(50);

        RedisStaleTokenException e = assertThrows(RedisStaleTokenException.class, () -> fence.claim("new-fence", 49));

        assertThat(e.storedToken()).isEqualTo(50);
        fence.claim("new-fence", 50);
        assertThat(fence.token("new-fence")).hasValue(50);
    }

    @Test
    void seedingAgainNeverLowersAFloor() {
        fence.seed(50);

        long floor = fence.seed(10);

        assertThat(floor).isEqualTo(50);
        assertThrows(RedisStaleTokenException.class, () -> fence.claim("f", 20));
    }

    @Test
    void aServerThatMayEvictFenceRecordsIsRefused() {
        connection.sync().configSet("maxmemory-policy", "allkeys-lru");

        RedisFenceException e = assertThrows(RedisFenceException.class, () -> fence.seed(1));

        assertThat(e.getMessage()).contains("allkeys-lru", "evict", "noeviction");
    }

    @Test
    void aFenceRecordHoldingSomethingElseIsReportedAndNothingIsWritten() {
        fence.seed(1);
        connection.sync().set("zkfence:fence:{orders/1}", "not a token");
        connection.sync().hset("zkfence:fence:{orders/2}", "token", "5");

        RedisFenceException text = assertThrows(
                RedisFenceException.class, () -> fence.write("orders/1", 5, RedisWrite.set("orders/1", "x")));
        RedisFenceException hash = assertThrows(RedisFenceException.class, () -> fence.claim("orders/2", 5));
        RedisFenceException read = assertThrows(RedisFenceException.class, () -> fence.token("orders/1"));

        assertThat(text.getMessage()).contains("zkfence:fence:{orders/1}", "not a token", "nothing was written");
        assertThat(hash.getMessage()).contains("WRONGTYPE");
        assertThat(read.fence()).isEqualTo("orders/1");
        assertThat(connection.sync().exists("orders/1")).isZero();
    }

    @Test
    void twoPrefixesAreTwoIndependentFences() {
        RedisFence other = RedisFence.create(
                LettuceConnector.of(connection),
                RedisFenceConfig.builder().keyPrefix("billing-fence:").build());
        fence.seed(1);

        assertThrows(RedisFenceNotSeededException.class, () -> other.claim("f", 9));
        other.seed(1);
        other.claim("f", 9);
        fence.claim("f", 2);

        assertThat(other.token("f")).hasValue(9);
        assertThat(fence.token("f")).hasValue(2);
    }
}
