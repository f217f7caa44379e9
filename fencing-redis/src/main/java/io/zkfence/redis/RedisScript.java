package io.zkfence.redis;

import java.util.Objects;

/**
 * A Lua script of the caller's own, run by {@link RedisFence#eval} only once the fence accepted
 * the token: the check, the fence's advance and the script are one atomic step on the server.
 *
 * <p>{@code body} is the body of a Lua function of {@code KEYS} and {@code ARGV}, exactly as a
 * script for {@code EVAL} is written: {@code KEYS} and {@code ARGV} are the caller's keys and
 * arguments (the fence's own are not among them), and what the body returns is the reply.
 *
 * <pre>{@code
 * RedisScript reserve = RedisScript.of("""
 *         local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
 *         if stock < tonumber(ARGV[1]) then return 0 end
 *         redis.call('DECRBY', KEYS[1], ARGV[1])
 *         redis.call('RPUSH', KEYS[2], ARGV[2])
 *         return 1
 *         """);
 * fence.eval("inventory:{sku-123}", token, reserve,
 *         List.of("stock:{sku-123}", "reservations:{sku-123}"), List.of("2", "order-77"));
 * }</pre>
 *
 * <p>The script must touch only the keys it is given (on Redis Cluster they are all in the
 * fence's hash slot; the fence checks that). An error it raises is reported as a
 * {@link RedisFenceException}; as with any Redis script, what it wrote before the error stays, and
 * so does the fence's advance. Immutable; make one per script and reuse it (the server caches it
 * by its SHA1).
 */
public final class RedisScript {

    private final String body;
    private final Script script;

    private RedisScript(String body) {
        this.body = body;
        this.script = Scripts.user(body);
    }

    /**
     * A script with this body.
     *
     * @param body the body of a Lua function of {@code KEYS} and {@code ARGV}
     * @return the script
     */
    public static RedisScript of(String body) {
        Objects.requireNonNull(body, "body");
        if (body.isBlank()) {
            throw new IllegalArgumentException("a fenced script's body must not be blank");
        }
        return new RedisScript(body);
    }

    /**
     * The body as given.
     *
     * @return the body
     */
    public String body() {
        return body;
    }

    Script script() {
        return script;
    }

    @Override
    public String toString() {
        return "RedisScript{" + script.sha1() + "}";
    }
}
