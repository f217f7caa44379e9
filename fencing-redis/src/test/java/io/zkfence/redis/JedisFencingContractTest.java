package io.zkfence.redis;

import org.junit.jupiter.api.AfterAll;
import redis.clients.jedis.RedisClient;

/** The contract through Jedis, the optional second client. */
class JedisFencingContractTest extends RedisFencingContract {

    private static RedisClient jedis;

    @Override
    protected synchronized RedisConnector connector() {
        if (jedis == null) {
            jedis = RedisClient.create("127.0.0.1", Redis.server().port());
        }
        return JedisConnector.of(jedis);
    }

    @AfterAll
    static synchronized void closeJedis() {
        if (jedis != null) {
            jedis.close();
            jedis = null;
        }
    }
}
