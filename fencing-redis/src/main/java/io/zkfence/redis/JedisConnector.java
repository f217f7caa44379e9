package io.zkfence.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A {@link RedisConnector} over Jedis's {@link UnifiedJedis}: a {@code RedisClient} (one server,
 * a pool of connections; {@code JedisPooled} before Jedis 7) or a {@code RedisClusterClient}. Jedis
 * is an optional dependency of
 * fencing-redis: add {@code redis.clients:jedis} to use this class; nothing else in the module
 * loads it.
 *
 * <pre>{@code
 * RedisClient jedis = RedisClient.create("localhost", 6379); // redis.clients.jedis.RedisClient
 * RedisFence fence = RedisFence.create(JedisConnector.of(jedis));
 * }</pre>
 *
 * <p>The client stays the caller's to close. A call cut off by a connection failure or a socket
 * timeout fails with Jedis's exception, which the fence reports as an unknown outcome.
 */
public final class JedisConnector implements RedisConnector {

    private final UnifiedJedis jedis;

    private JedisConnector(UnifiedJedis jedis) {
        this.jedis = jedis;
    }

    /**
     * A connector over {@code jedis}.
     *
     * @param jedis a {@code RedisClient}, a {@code RedisClusterClient}, or another {@link UnifiedJedis}
     * @return the connector
     */
    public static JedisConnector of(UnifiedJedis jedis) {
        return new JedisConnector(Objects.requireNonNull(jedis, "jedis"));
    }

    @Override
    public Object eval(String sha1, String source, List<String> keys, List<String> args) {
        try {
            try {
                return decode(jedis.evalsha(sha1, keys, args));
            } catch (JedisNoScriptException e) {
                return decode(jedis.eval(source, keys, args));
            }
        } catch (JedisDataException e) {
            throw new ServerError(e.getMessage(), e);
        }
    }

    @Override
    public Object fcall(String function, String library, List<String> keys, List<String> args) {
        try {
            return Library.call(
                    () -> decode(jedis.fcall(function, keys, args)),
                    // On a RedisClusterClient Jedis sends FUNCTION LOAD to every primary (its request
                    // policy is all_shards), so one miss loads the library on the whole cluster.
                    () -> jedis.functionLoadReplace(library),
                    JedisDataException.class);
        } catch (JedisDataException e) {
            throw new ServerError(e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "jedis " + jedis.getClass().getSimpleName();
    }

    /** Jedis answers bulk strings as bytes in some paths: strings here, as the interface says. */
    private static Object decode(Object reply) {
        if (reply instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> list) {
            List<Object> decoded = new ArrayList<>(list.size());
            for (Object o : list) {
                decoded.add(decode(o));
            }
            return decoded;
        }
        return reply;
    }
}
