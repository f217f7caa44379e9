package io.zkfence.redis;

/** The contract through Lettuce, the client fencing-redis is built on. */
class LettuceFencingContractTest extends RedisFencingContract {

    @Override
    protected RedisConnector connector() {
        return LettuceConnector.of(Redis.connection());
    }
}
