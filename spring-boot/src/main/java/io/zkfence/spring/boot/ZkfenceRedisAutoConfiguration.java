package io.zkfence.spring.boot;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.redis.LettuceConnector;
import io.zkfence.redis.RedisConnector;
import io.zkfence.redis.RedisFence;
import io.zkfence.redis.RedisFenceConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link RedisFence} when fencing-redis is on the class path and any {@code zkfence.redis.*}
 * property is set: over the application's {@link RedisConnector} bean if it has one, else over a
 * Lettuce connection to {@code zkfence.redis.uri} that this configuration opens and closes. With
 * {@code zkfence.redis.auto-seed=true} the fence seeds its floors by itself when it finds them
 * missing or from an earlier run of the server, with the token of a fresh grant of
 * {@code zkfence.redis.seed-lock} from the application's {@link LockClient}.
 */
@AutoConfiguration(after = ZkfenceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zkfence.enabled", matchIfMissing = true)
@ConditionalOnClass(RedisFence.class)
@ConditionalOnAnyPropertyUnder("zkfence.redis")
@EnableConfigurationProperties(ZkfenceProperties.class)
public class ZkfenceRedisAutoConfiguration {

    /** How long the auto-seed waits for its lock. */
    private static final Duration SEED_LOCK_WAIT = Duration.ofSeconds(30);

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceRedisAutoConfiguration() {}

    /**
     * The Lettuce connection the fence uses when the application has no {@link RedisConnector}
     * of its own (only with Lettuce on the class path: a Jedis application defines a
     * {@code JedisConnector} bean).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.lettuce.core.RedisClient")
    @ConditionalOnMissingBean(RedisConnector.class)
    static class LettuceConnection {

        /**
         * The Lettuce client for {@code zkfence.redis.uri}, when the application has no
         * {@link RedisConnector} of its own; shut down with the context.
         *
         * @param properties the {@code zkfence.*} settings
         * @return the client
         */
        @Bean(destroyMethod = "shutdown")
        public RedisClient zkfenceRedisClient(ZkfenceProperties properties) {
            String uri = PropertyCheck.required(
                    "zkfence.redis.uri",
                    properties.getRedis().getUri(),
                    "when any zkfence.redis.* property is set and the application has no RedisConnector bean");
            try {
                return RedisClient.create(uri);
            } catch (IllegalArgumentException e) {
                throw PropertyCheck.invalid("zkfence.redis.uri", uri, e.getMessage());
            }
        }

        /**
         * The fence's connector over a connection of its own from {@code zkfenceRedisClient}.
         *
         * @param client the client above
         * @return the connector
         */
        @Bean
        public RedisConnector zkfenceRedisConnector(RedisClient client) {
            StatefulRedisConnection<String, String> connection = client.connect();
            return LettuceConnector.of(connection);
        }
    }

    /**
     * The fence.
     *
     * @param connector the application's connector, or the one above
     * @param properties the {@code zkfence.*} settings
     * @param lockClient where the auto-seed's fresh tokens come from
     * @return the fence
     */
    @Bean
    @ConditionalOnMissingBean(RedisFence.class)
    public RedisFence zkfenceRedisFence(
            RedisConnector connector, ZkfenceProperties properties, ObjectProvider<LockClient> lockClient) {
        ZkfenceProperties.Redis p = properties.getRedis();
        RedisFenceConfig.Builder b = RedisFenceConfig.builder();
        if (p.getKeyPrefix() != null) {
            PropertyCheck.check(
                    "zkfence.redis.key-prefix",
                    p.getKeyPrefix(),
                    () -> RedisFenceConfig.builder().keyPrefix(p.getKeyPrefix()).build());
            b.keyPrefix(p.getKeyPrefix());
        }
        if (p.getRestartPolicy() != null) {
            b.restartPolicy(restartPolicy(p.getRestartPolicy()));
        }
        if (p.isAutoSeed()) {
            LockClient client = lockClient.getIfAvailable();
            if (client == null) {
                throw PropertyCheck.invalid(
                        "zkfence.redis.auto-seed",
                        true,
                        "needs a LockClient for its fresh tokens (set zkfence.connect-string), and there is none");
            }
            String lock = p.getSeedLock();
            b.reseedFrom(() -> {
                try (Lease lease = client.lock(lock).acquire(SEED_LOCK_WAIT)) {
                    return lease.token();
                }
            });
        }
        return RedisFence.create(connector, b.build());
    }

    private static RedisFenceConfig.RestartPolicy restartPolicy(String value) {
        String wanted = value.strip().replace('-', '_').toUpperCase(Locale.ROOT);
        return Arrays.stream(RedisFenceConfig.RestartPolicy.values())
                .filter(r -> r.name().equals(wanted))
                .findFirst()
                .orElseThrow(() -> PropertyCheck.invalid(
                        "zkfence.redis.restart-policy", value, "must be refuse-until-reseeded or trust-persistence"));
    }
}
