package io.zkfence.redis.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.zkfence.redis.RedisFence;
import io.zkfence.redis.RedisWrite;
import io.zkfence.testing.RedisServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The documented examples do what docs/fencing-redis.md says, on a real redis-server of their own. */
class RedisFenceExampleTest {

    private RedisServer server;
    private RedisClient client;

    @BeforeEach
    void start() {
        server = RedisServer.start(List.of());
        client = RedisClient.create(server.uri());
    }

    @AfterEach
    void stop() {
        client.shutdown();
        server.close();
    }

    @Test
    void aStaleHolderIsToldAndWritesNothing() {
        RedisFence fence = RedisFenceExample.open(client);
        fence.seed(1);
        client.connect().sync().set("stock:{sku-123}", "10");

        assertThat(RedisFenceExample.reserve(fence, 7, "A-1", 2)).isTrue();
        assertThat(RedisFenceExample.reserve(fence, 8, "B-1", 3)).isTrue();
        assertThat(RedisFenceExample.reserve(fence, 7, "A-2", 4)).isFalse();

        assertThat(client.connect().sync().get("stock:{sku-123}")).isEqualTo("5");
        assertThat(client.connect().sync().lrange("reservations:{sku-123}", 0, -1))
                .containsExactly("A-1", "B-1");
    }

    @Test
    void theScriptReservesOnlyWhatIsInStock() {
        RedisFence fence = RedisFenceExample.open(client);
        fence.seed(1);
        fence.write("inventory:{sku-123}", 3, RedisWrite.set("stock:{sku-123}", "3"));

        assertThat(RedisFenceExample.reserveIfInStock(fence, 3, "A-1", 2)).isTrue();
        assertThat(RedisFenceExample.reserveIfInStock(fence, 3, "A-2", 2)).isFalse();
    }

    @Test
    void aFenceSeedingItselfRefusesTokensFromBeforeTheSeed() {
        AtomicLong grants = new AtomicLong(100);
        RedisFence fence = RedisFenceExample.openSeedingItself(client, grants::incrementAndGet);

        assertThat(RedisFenceExample.reserve(fence, 50, "A-1", 1)).isFalse(); // seeded with 101 first
        assertThat(RedisFenceExample.reserve(fence, 102, "B-1", 1)).isTrue();
        try (redis.clients.jedis.RedisClient jedis =
                redis.clients.jedis.RedisClient.create("127.0.0.1", server.port())) {
            assertThat(RedisFenceExample.openWithJedis(jedis).token("inventory:{sku-123}"))
                    .hasValue(102);
        }
    }
}
