package io.zkfence.redis.example;

import io.lettuce.core.RedisClient;
import io.zkfence.redis.JedisConnector;
import io.zkfence.redis.LettuceConnector;
import io.zkfence.redis.RedisFence;
import io.zkfence.redis.RedisFenceConfig;
import io.zkfence.redis.RedisScript;
import io.zkfence.redis.RedisStaleTokenException;
import io.zkfence.redis.RedisWrite;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The code that docs/fencing-redis.md quotes, between "snippet:" and "end:" comments; a test runs
 * it against a real redis-server and another checks that the doc quotes it verbatim. Uses the
 * public API only.
 */
public final class RedisFenceExample {

    private RedisFenceExample() {}

    // snippet:open
    public static RedisFence open(RedisClient client) {
        // One fence per Redis (or cluster), shared by every thread; the connection stays the application's.
        RedisFence fence = RedisFence.create(LettuceConnector.of(client.connect()));
        return fence;
    }
    // end:open

    // snippet:jedis
    public static RedisFence openWithJedis(redis.clients.jedis.RedisClient jedis) {
        return RedisFence.create(JedisConnector.of(jedis));
    }
    // end:jedis

    // snippet:reserve
    /** Reserves stock as the holder of {@code token}; false once a newer holder took over. */
    public static boolean reserve(RedisFence fence, long token, String orderId, int quantity) {
        try {
            // Every key in the fence key's hash slot ({sku-123}): one script checks and writes them all.
            fence.write(
                    "inventory:{sku-123}",
                    token,
                    RedisWrite.incrBy("stock:{sku-123}", -quantity),
                    RedisWrite.rpush("reservations:{sku-123}", orderId),
                    RedisWrite.set("reserved-by:{sku-123}", orderId).expireIn(Duration.ofMinutes(15)));
            return true;
        } catch (RedisStaleTokenException e) {
            // A holder with a newer grant wrote after us: our lock is gone. Stop; do not retry.
            System.err.println(e.getMessage());
            return false;
        }
    }
    // end:reserve

    // snippet:script
    private static final RedisScript RESERVE_IF_IN_STOCK = RedisScript.of("""
            local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
            if stock < tonumber(ARGV[1]) then return 0 end
            redis.call('DECRBY', KEYS[1], ARGV[1])
            redis.call('RPUSH', KEYS[2], ARGV[2])
            return 1
            """);

    /** Runs the script only if the fence accepts {@code token}; true when the stock sufficed. */
    public static boolean reserveIfInStock(RedisFence fence, long token, String orderId, int quantity) {
        long reserved = fence.eval(
                        "inventory:{sku-123}",
                        token,
                        RESERVE_IF_IN_STOCK,
                        List.of("stock:{sku-123}", "reservations:{sku-123}"),
                        List.of(Integer.toString(quantity), orderId))
                .longReply(0);
        return reserved == 1;
    }
    // end:script

    // snippet:seed
    /**
     * A fence that seeds its floors by itself when it finds them missing or from an earlier run of
     * the server, with a token issued after that moment: here a fresh grant of any lock of the
     * ensemble (lock-core's tokens rise across all its locks), passed in as {@code freshToken}.
     */
    public static RedisFence openSeedingItself(RedisClient client, LongSupplier freshToken) {
        return RedisFence.create(
                LettuceConnector.of(client.connect()),
                RedisFenceConfig.builder().reseedFrom(freshToken).build());
    }
    // end:seed
}
