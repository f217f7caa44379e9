package io.zkfence.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One Redis write for {@link RedisFence#write(String, long, RedisWrite...)}: the commands people
 * protect with a lock, built here so that each is sent with its keys as keys (never as code or as
 * text to parse) and checked before anything is sent.
 *
 * <pre>{@code
 * fence.write("inventory:{sku-123}", token,
 *         RedisWrite.incrBy("stock:{sku-123}", -2),
 *         RedisWrite.rpush("reservations:{sku-123}", "order-77"),
 *         RedisWrite.set("reserved-by:{sku-123}", "order-77").expireIn(Duration.ofMinutes(15)));
 * }</pre>
 *
 * <p>Immutable; the option methods return a new write. Keys and values are UTF-8 strings; keys
 * follow the fence's key rules (1 to 1024 bytes, well-formed Unicode, no NUL). A write has at most
 * {@value #MAX_ARGUMENTS} keys and arguments together (the server's script runs it with them on
 * its stack).
 */
public final class RedisWrite {

    /** The most keys and arguments one write takes. */
    public static final int MAX_ARGUMENTS = 4000;

    private final String command;
    private final List<String> keys;
    private final List<String> arguments;
    private final boolean condition;
    private final boolean expiry;

    private RedisWrite(String command, List<String> keys, List<String> arguments, boolean condition, boolean expiry) {
        if (keys.size() + arguments.size() > MAX_ARGUMENTS) {
            throw new IllegalArgumentException(command + " with " + keys.size() + " keys and " + arguments.size()
                    + " arguments: a fenced write takes at most " + MAX_ARGUMENTS + " together; split it");
        }
        this.command = command;
        this.keys = List.copyOf(keys);
        this.arguments = List.copyOf(arguments);
        this.condition = condition;
        this.expiry = expiry;
    }

    /**
     * {@code SET key value}; options: {@link #expireIn}, {@link #keepTtl}, {@link #onlyIfAbsent},
     * {@link #onlyIfPresent}. Its reply is {@code "OK"}, or {@code null} when a condition kept it
     * from being set.
     *
     * @param key the key
     * @param value the value
     * @return the write
     */
    public static RedisWrite set(String key, String value) {
        return new RedisWrite("SET", List.of(key), List.of(value(value, "value")), false, false);
    }

    /**
     * {@code HSET key field value ...}; its reply is the number of fields added.
     *
     * @param key the hash
     * @param fields the fields to set, at least one, in the map's order
     * @return the write
     */
    public static RedisWrite hset(String key, Map<String, String> fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("HSET " + key + " needs at least one field");
        }
        List<String> args = new ArrayList<>(fields.size() * 2);
        fields.forEach((f, v) -> {
            args.add(value(f, "field name"));
            args.add(value(v, "value of field " + f));
        });
        return new RedisWrite("HSET", List.of(key), args, false, false);
    }

    /**
     * {@code DEL key ...}; its reply is the number of keys removed.
     *
     * @param keys the keys, at least one
     * @return the write
     */
    public static RedisWrite del(String... keys) {
        Objects.requireNonNull(keys, "keys");
        if (keys.length == 0) {
            throw new IllegalArgumentException("DEL needs at least one key");
        }
        return new RedisWrite("DEL", List.of(keys), List.of(), false, false);
    }

    /**
     * {@code INCRBY key delta} (a negative delta decrements); its reply is the new value.
     *
     * @param key the counter
     * @param delta the amount to add
     * @return the write
     */
    public static RedisWrite incrBy(String key, long delta) {
        return new RedisWrite("INCRBY", List.of(key), List.of(Long.toString(delta)), false, false);
    }

    /**
     * {@code RPUSH key value ...}: appends to a list; its reply is the list's new length.
     *
     * @param key the list
     * @param values the values, at least one, appended in order
     * @return the write
     */
    public static RedisWrite rpush(String key, String... values) {
        return new RedisWrite("RPUSH", List.of(key), values("RPUSH", values), false, false);
    }

    /**
     * {@code LPUSH key value ...}: prepends to a list; its reply is the list's new length.
     *
     * @param key the list
     * @param values the values, at least one, each put in front of the one before
     * @return the write
     */
    public static RedisWrite lpush(String key, String... values) {
        return new RedisWrite("LPUSH", List.of(key), values("LPUSH", values), false, false);
    }

    /**
     * {@code XADD key * field value ...}: appends an entry to a stream with an id the server
     * assigns; its reply is that id.
     *
     * @param key the stream
     * @param fields the entry's fields, at least one, in the map's order
     * @return the write
     */
    public static RedisWrite xadd(String key, Map<String, String> fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("XADD " + key + " needs at least one field");
        }
        List<String> args = new ArrayList<>(fields.size() * 2 + 1);
        args.add("*");
        fields.forEach((f, v) -> {
            args.add(value(f, "field name"));
            args.add(value(v, "value of field " + f));
        });
        return new RedisWrite("XADD", List.of(key), args, false, false);
    }

    /**
     * {@code PEXPIRE key milliseconds}; its reply is 1 when the timeout was set, 0 when the key
     * does not exist.
     *
     * @param key the key
     * @param ttl the time to live, at least a millisecond
     * @return the write
     */
    public static RedisWrite expire(String key, Duration ttl) {
        return new RedisWrite("PEXPIRE", List.of(key), List.of(millis(ttl, "PEXPIRE")), false, false);
    }

    /**
     * This {@code SET} with a time to live ({@code PX}).
     *
     * @param ttl at least a millisecond
     * @return the write with the option
     * @throws IllegalArgumentException when this is not a SET, or it keeps its time to live
     */
    public RedisWrite expireIn(Duration ttl) {
        requireSet("expireIn");
        if (expiry) {
            throw new IllegalArgumentException("SET " + keys.get(0) + " has a time-to-live option already");
        }
        List<String> args = new ArrayList<>(arguments);
        args.add("PX");
        args.add(millis(ttl, "SET"));
        return new RedisWrite(command, keys, args, condition, true);
    }

    /**
     * This {@code SET} keeping the key's time to live ({@code KEEPTTL}).
     *
     * @return the write with the option
     * @throws IllegalArgumentException when this is not a SET, or it sets a time to live
     */
    public RedisWrite keepTtl() {
        requireSet("keepTtl");
        if (expiry) {
            throw new IllegalArgumentException("SET " + keys.get(0) + " has a time-to-live option already");
        }
        List<String> args = new ArrayList<>(arguments);
        args.add("KEEPTTL");
        return new RedisWrite(command, keys, args, condition, true);
    }

    /**
     * This {@code SET} only when the key does not exist ({@code NX}).
     *
     * @return the write with the option
     * @throws IllegalArgumentException when this is not a SET, or it has a condition already
     */
    public RedisWrite onlyIfAbsent() {
        return conditional("NX", "onlyIfAbsent");
    }

    /**
     * This {@code SET} only when the key exists ({@code XX}).
     *
     * @return the write with the option
     * @throws IllegalArgumentException when this is not a SET, or it has a condition already
     */
    public RedisWrite onlyIfPresent() {
        return conditional("XX", "onlyIfPresent");
    }

    /**
     * The command's name.
     *
     * @return e.g. {@code SET}
     */
    public String command() {
        return command;
    }

    /**
     * The keys it writes, in order.
     *
     * @return the keys
     */
    public List<String> keys() {
        return keys;
    }

    /**
     * Its other arguments, in order.
     *
     * @return the arguments after the keys
     */
    public List<String> arguments() {
        return arguments;
    }

    @Override
    public String toString() {
        return command + " " + String.join(" ", keys) + (arguments.isEmpty() ? "" : " (" + arguments.size() + " args)");
    }

    private RedisWrite conditional(String option, String method) {
        requireSet(method);
        if (condition) {
            throw new IllegalArgumentException("SET " + keys.get(0) + " has a condition (NX or XX) already");
        }
        List<String> args = new ArrayList<>(arguments);
        args.add(option);
        return new RedisWrite(command, keys, args, true, expiry);
    }

    private void requireSet(String method) {
        if (!command.equals("SET")) {
            throw new IllegalArgumentException(method + " is an option of SET, not of " + command);
        }
    }

    private static String millis(Duration ttl, String command) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(command + " time to live must be at least 1 ms but was " + ttl);
        }
        return Long.toString(ttl.toMillis());
    }

    private static List<String> values(String command, String... values) {
        Objects.requireNonNull(values, "values");
        if (values.length == 0) {
            throw new IllegalArgumentException(command + " needs at least one value");
        }
        List<String> list = new ArrayList<>(values.length);
        for (String v : values) {
            list.add(value(v, "value"));
        }
        return list;
    }

    private static String value(String value, String what) {
        return Objects.requireNonNull(value, () -> what + " must not be null");
    }
}
