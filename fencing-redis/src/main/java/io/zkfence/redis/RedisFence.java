package io.zkfence.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fenced writes to Redis: the token check and the write are one Lua script on the server, so a
 * holder whose lock grant was superseded cannot write between the check and the write, and a
 * write presenting a token lower than the fence holds is refused with
 * {@link RedisStaleTokenException}, nothing written.
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>A fence is named by a <em>fence key</em>: the lock's name, or the one key a call writes.
 *     Its record, the highest token accepted, is the Redis key {@code <prefix>fence:<fence key>}
 *     in the fence key's hash slot (see {@code docs/fencing-redis.md}, "Keys and hash slots").</li>
 * <li>Tokens are positive {@code long}s from a monotonic source (lock-core's grants). A call with
 *     a token {@code >=} the fence's is accepted, the record advanced to it, and its writes run; a
 *     lower one is refused and nothing runs. The check, the advance and the writes are one script:
 *     Redis runs it to its end before any other command.</li>
 * <li>Every key a call writes must be in the fence key's hash slot, on a single server as on
 *     Redis Cluster: use a hash tag ({@code stock:{sku-123}} with fence key
 *     {@code inventory:{sku-123}}). A call with a key in another slot is refused before anything is
 *     sent.</li>
 * <li>A floor per hash slot, written by {@link #seed(long)}, is the lowest token any fence of
 *     the slot accepts. Without a floor, or (by default) with a floor an earlier run of the server
 *     wrote, every call is refused with {@link RedisFenceNotSeededException}: the server lost or
 *     may have lost fence records, and a stale holder could pass one that lost its latest
 *     advance. Seed once before the first fenced write, and again after a loss with a token issued
 *     after it.</li>
 * <li>Every failure is an unchecked {@link io.zkfence.fencing.FencingException} naming the
 *     fence key; bad input is an {@link IllegalArgumentException}, thrown before anything is
 *     sent.</li>
 * </ul>
 *
 * <p>Thread-safe; create one per server (or cluster) and share it. The {@link RedisConnector}
 * and its connection stay the caller's.
 */
public final class RedisFence {

    private static final Logger log = LoggerFactory.getLogger(RedisFence.class);

    /** Floors per seeding script on a single server. */
    private static final int SEED_BATCH = 512;

    private final RedisConnector connector;
    private final RedisFenceConfig config;
    private final FenceKeys fenceKeys;
    private final String mode;
    private final Object reseeding = new Object();

    /**
     * Whether fenced writes go as {@code FCALL}s of {@link Scripts#LIBRARY}; cleared for good when the
     * server has no {@code FCALL} (before Redis 7.0) or the connector does not call functions, and
     * the writes then go as {@link Scripts#WRITES}, the same check with {@code INFO} on every call.
     */
    private volatile boolean functions = true;

    private RedisFence(RedisConnector connector, RedisFenceConfig config) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.config = Objects.requireNonNull(config, "config");
        this.fenceKeys = new FenceKeys(config.keyPrefix());
        this.mode = config.restartPolicy() == RedisFenceConfig.RestartPolicy.TRUST_PERSISTENCE ? "trust" : "strict";
    }

    /**
     * A fence over {@code connector} with {@code config}. Sends nothing.
     *
     * @param connector how to reach Redis
     * @param config the settings
     * @return the fence
     */
    public static RedisFence create(RedisConnector connector, RedisFenceConfig config) {
        return new RedisFence(connector, config);
    }

    /**
     * A fence over {@code connector} with the default settings. Sends nothing.
     *
     * @param connector how to reach Redis
     * @return the fence
     */
    public static RedisFence create(RedisConnector connector) {
        return new RedisFence(connector, RedisFenceConfig.defaults());
    }

    /**
     * This fence's settings.
     *
     * @return the config
     */
    public RedisFenceConfig config() {
        return config;
    }

    /**
     * Runs {@code writes} in order, in one script, if the fence named {@code fence} accepts
     * {@code token}; advances the fence to it first.
     *
     * @param fence the fence key: the lock's name, or the one key written
     * @param token the caller's fencing token, {@code >= 1}
     * @param writes the writes, at least one, every key in {@code fence}'s hash slot
     * @return the writes' replies
     * @throws RedisStaleTokenException when the fence holds a higher token; nothing was written
     * @throws RedisFenceNotSeededException when the slot's floor is missing or from an earlier
     *     run of the server; nothing was written
     * @throws RedisFenceException for the other failures (see there)
     * @throws IllegalArgumentException for a bad fence key, key or token, or a key in another hash
     *     slot; nothing was sent
     */
    public FencedReply write(String fence, long token, RedisWrite... writes) {
        Objects.requireNonNull(writes, "writes");
        return write(fence, token, List.of(writes));
    }

    /**
     * As {@link #write(String, long, RedisWrite...)}.
     *
     * @param fence the fence key
     * @param token the caller's fencing token, {@code >= 1}
     * @param writes the writes, at least one
     * @return the writes' replies
     */
    public FencedReply write(String fence, long token, List<RedisWrite> writes) {
        String operation = "write";
        Call call = call(fence, token, operation);
        Objects.requireNonNull(writes, "writes");
        if (writes.isEmpty()) {
            throw new IllegalArgumentException("a fenced write on fence '" + Keys.shown(fence)
                    + "' needs at least one RedisWrite (claim(fence, token) advances the fence alone)");
        }
        List<String> args = new ArrayList<>(call.args);
        args.add(Integer.toString(writes.size()));
        for (RedisWrite w : writes) {
            Objects.requireNonNull(w, "a write must not be null");
            for (String key : w.keys()) {
                call.addKey(key);
            }
            args.add(w.command());
            args.add(Integer.toString(w.keys().size()));
            args.add(Integer.toString(w.arguments().size()));
            args.addAll(w.arguments());
        }
        return run(call, null, args, writes);
    }

    /**
     * Runs {@code script} with {@code keys} and {@code args} if the fence named {@code fence}
     * accepts {@code token}; advances the fence to it first.
     *
     * @param fence the fence key
     * @param token the caller's fencing token, {@code >= 1}
     * @param script the script
     * @param keys its {@code KEYS}, every one in {@code fence}'s hash slot
     * @param args its {@code ARGV}
     * @return the script's reply, as {@link FencedReply#reply(int) reply(0)}
     * @throws RedisStaleTokenException when the fence holds a higher token; the script did not run
     * @throws RedisFenceNotSeededException when the slot's floor is missing or from an earlier run
     * @throws RedisFenceException for the other failures, a script error included
     * @throws IllegalArgumentException for a bad fence key, key or token, or a key in another hash
     *     slot; nothing was sent
     */
    public FencedReply eval(String fence, long token, RedisScript script, List<String> keys, List<String> args) {
        Call call = call(fence, token, "eval");
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(args, "args");
        for (String key : keys) {
            call.addKey(key);
        }
        List<String> all = new ArrayList<>(call.args);
        for (String a : args) {
            all.add(Objects.requireNonNull(a, "a script argument must not be null"));
        }
        return run(call, script.script(), all, List.of());
    }

    /**
     * Advances the fence to {@code token} without writing anything, if it accepts the token: what
     * a new holder does right after acquiring the lock, so that a paused predecessor is refused
     * from now on, not only once the new holder writes.
     *
     * @param fence the fence key
     * @param token the new holder's token
     * @throws RedisStaleTokenException when the fence holds a higher token
     * @throws RedisFenceNotSeededException when the slot's floor is missing or from an earlier run
     * @throws RedisFenceException for the other failures
     */
    public void claim(String fence, long token) {
        Call call = call(fence, token, "claim");
        List<String> args = new ArrayList<>(call.args);
        args.add("0");
        run(call, null, args, List.of());
    }

    /**
     * The token the fence record holds, read with one script call; empty when no call was ever
     * accepted on this fence (since the server's data began).
     *
     * @param fence the fence key
     * @return the stored token
     * @throws RedisFenceException when the server fails or the record is not a token
     */
    public OptionalLong token(String fence) {
        Keys.check("fence key", fence, "token");
        String record = fenceKeys.record(fence, "token");
        List<?> reply = (List<?>)
                send(fence, Scripts.READ, List.of(record, fenceKeys.floor(Slots.of(record))), List.of(), "token");
        if ("invalid".equals(reply.get(0))) {
            throw invalidRecord(fence, record, reply.get(1));
        }
        Object stored = reply.get(1);
        if (stored == null) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(parseToken(fence, record, stored));
    }

    /**
     * Seeds every hash slot's floor with {@code floor} (a slot whose floor is higher keeps it),
     * stamped with the run id of the server serving it: fenced calls with a token below the floor
     * are refused from now on, on every fence. Call it once before the first fenced write on a
     * server, and after the fence reports a loss ({@link RedisFenceNotSeededException}) with a
     * token issued after the loss, so that no token from before it passes.
     *
     * <p>Writes 16,384 small hashes (one per slot, {@code <prefix>floor:{...}}): in 32 scripts on a
     * single server, in one script per slot on Redis Cluster, pipelined where the connector can. Refuses a server whose eviction policy may evict keys without a time to
     * live ({@code allkeys-*}): it could evict fence records.
     *
     * @param floor a token, {@code >= 1}: 1 on a new server, else one issued after the loss
     * @return the lowest floor any slot now has (the given one unless every slot had a higher)
     * @throws RedisFenceException when the server fails, or its eviction policy may evict fence records
     * @throws IllegalArgumentException for a floor below 1
     */
    public long seed(long floor) {
        if (floor < 1) {
            throw new IllegalArgumentException("floor must be >= 1 but was " + floor + " (seed); nothing was sent");
        }
        String where = config.keyPrefix() + "floor:*";
        // One script per slot on Redis Cluster (a script's keys are one slot's); in batches on a
        // single server, where a batch is one append to the append-only file, not a thousand.
        int batch = clusterMode(where) ? 1 : SEED_BATCH;
        List<List<String>> keys = new ArrayList<>();
        List<List<String>> args = new ArrayList<>();
        List<String> value = List.of(Long.toString(floor));
        for (int from = 0; from < Slots.COUNT; from += batch) {
            List<String> floors = new ArrayList<>(batch);
            for (int slot = from; slot < Math.min(Slots.COUNT, from + batch); slot++) {
                floors.add(fenceKeys.floor(slot));
            }
            keys.add(floors);
            args.add(value);
        }
        List<Object> replies;
        try {
            replies = connector.evalEach(Scripts.SEED.sha1(), Scripts.SEED.source(), keys, args);
        } catch (RedisConnector.ServerError e) {
            throw new RedisFenceException(
                    where,
                    "seeding the fence floors on " + connector.describe() + " failed: " + e.getMessage(),
                    false,
                    e);
        } catch (RuntimeException e) {
            throw new RedisFenceException(
                    where,
                    "seeding the fence floors on " + connector.describe() + " got no answer (" + e
                            + "); some slots may be seeded: seed again",
                    true,
                    e);
        }
        long lowest = Long.MAX_VALUE;
        for (Object r : replies) {
            List<?> reply = (List<?>) r;
            lowest = Math.min(lowest, Long.parseLong((String) reply.get(1)));
            String policy = (String) reply.get(2);
            if (policy != null && policy.startsWith("allkeys-")) {
                throw new RedisFenceException(
                        where,
                        "the server's maxmemory-policy is " + policy + ": it may evict fence records (keys without a"
                                + " time to live) under memory pressure, and a stale token would then pass; use"
                                + " noeviction or a volatile-* policy (the floors are written, the fence is not safe)",
                        false,
                        null);
            }
        }
        log.info(
                "seeded the fence floors of all {} hash slots on {} with {}", Slots.COUNT, connector.describe(), floor);
        return lowest;
    }

    private boolean clusterMode(String where) {
        List<?> reply;
        try {
            reply = (List<?>) connector.eval(
                    Scripts.CLUSTER_MODE.sha1(), Scripts.CLUSTER_MODE.source(), List.of(fenceKeys.floor(0)), List.of());
        } catch (RuntimeException e) {
            throw new RedisFenceException(
                    where, "seeding the fence floors on " + connector.describe() + " failed: " + e, false, e);
        }
        return "1".equals(reply.get(0));
    }

    private Call call(String fence, long token, String operation) {
        Keys.check("fence key", fence, operation);
        Keys.checkToken(token, fence, operation);
        String record = fenceKeys.record(fence, operation);
        int slot = Slots.of(record);
        return new Call(fence, token, operation, slot, record, fenceKeys.floor(slot), mode);
    }

    /** Runs {@code script}, or the fenced writes when it is null; maps the outcome. */
    private FencedReply run(Call call, Script script, List<String> args, List<RedisWrite> writes) {
        List<?> reply = (List<?>) send(call, script, args);
        String outcome = (String) reply.get(0);
        if (("unseeded".equals(outcome) || "restarted".equals(outcome)) && reseed(call, reply)) {
            reply = (List<?>) send(call, script, args);
            outcome = (String) reply.get(0);
        }
        switch (outcome) {
            case "ok" -> {
                return new FencedReply(call.fence, call.token, new ArrayList<>(reply.subList(1, reply.size())));
            }
            case "stale" ->
                throw new RedisStaleTokenException(
                        call.fence, call.operation, call.token, parseToken(call.fence, call.record, reply.get(1)));
            case "unseeded" -> throw notSeeded(call, null, null);
            case "restarted" -> throw notSeeded(call, (String) reply.get(1), (String) reply.get(2));
            case "invalid" -> throw invalidRecord(call.fence, call.record, reply.get(1));
            case "failed" -> {
                int index = Integer.parseInt((String) reply.get(1));
                String what =
                        writes.isEmpty() ? "the fenced script" : "write " + index + " (" + writes.get(index - 1) + ")";
                throw new RedisFenceException(
                        call.fence,
                        call.operation + " on Redis fence '" + Keys.shown(call.fence) + "' with token " + call.token
                                + ": " + what + " failed on the server: " + reply.get(2) + ". The fence had accepted"
                                + " the token; what ran before the failure stays (Redis does not roll a script back)",
                        false,
                        null);
            }
            default ->
                throw new RedisFenceException(
                        call.fence, "unexpected reply from the fence script: " + reply, false, null);
        }
    }

    /** Seeds again from the configured source; false when there is none. */
    private boolean reseed(Call call, List<?> reply) {
        LongSupplier source = config.reseedFrom();
        if (source == null) {
            return false;
        }
        synchronized (reseeding) {
            long fresh = source.getAsLong();
            log.warn(
                    "Redis fence '{}' found its slot {} ({}): seeding every slot again with fresh token {}",
                    Keys.shown(call.fence),
                    call.slot,
                    reply,
                    fresh);
            seed(fresh);
        }
        return true;
    }

    /** Sends {@code script}, or the fenced writes (a function where the server has them) when it is null. */
    private Object send(Call call, Script script, List<String> args) {
        if (script == null && functions) {
            try {
                return connector.fcall(Scripts.LIBRARY.function("writes"), Scripts.LIBRARY.source(), call.keys, args);
            } catch (UnsupportedOperationException e) {
                withoutFunctions(e.getMessage());
            } catch (RedisConnector.ServerError e) {
                if (!cannotCallFunctions(e.getMessage())) {
                    throw refused(call.fence, call.operation, e);
                }
                withoutFunctions(e.getMessage());
            } catch (RuntimeException e) {
                throw noAnswer(call.fence, call.operation, e);
            }
        }
        return send(call.fence, script == null ? Scripts.WRITES : script, call.keys, args, call.operation);
    }

    /**
     * A server before Redis 7.0 ({@code ERR unknown command `FCALL`}: it knows neither command the
     * fence sends here), or a user whose ACL allows scripts but not {@code FCALL} or
     * {@code FUNCTION LOAD} ({@code NOPERM ... 'fcall'}, {@code 'function|load'}).
     */
    private static boolean cannotCallFunctions(String error) {
        if (error == null) {
            return false;
        }
        String lower = error.toLowerCase(java.util.Locale.ROOT);
        return lower.startsWith("err unknown command")
                || (lower.startsWith("noperm") && (lower.contains("fcall") || lower.contains("function")));
    }

    private void withoutFunctions(String why) {
        functions = false;
        log.warn(
                "Redis fence on {} sends its writes as scripts, which read the server's run id on every call: it"
                        + " cannot call Redis functions ({})",
                connector.describe(),
                why);
    }

    private Object send(String fence, Script script, List<String> keys, List<String> args, String operation) {
        try {
            return connector.eval(script.sha1(), script.source(), keys, args);
        } catch (RedisConnector.ServerError e) {
            throw refused(fence, operation, e);
        } catch (RuntimeException e) {
            throw noAnswer(fence, operation, e);
        }
    }

    private RedisFenceException refused(String fence, String operation, RedisConnector.ServerError e) {
        return new RedisFenceException(
                fence,
                operation + " on Redis fence '" + Keys.shown(fence) + "' was refused by " + connector.describe() + ": "
                        + e.getMessage() + "; nothing was written",
                false,
                e);
    }

    private RedisFenceException noAnswer(String fence, String operation, RuntimeException e) {
        return new RedisFenceException(
                fence,
                operation + " on Redis fence '" + Keys.shown(fence) + "' got no answer from " + connector.describe()
                        + " (" + e + "); the server may or may not have applied it",
                true,
                e);
    }

    private RedisFenceNotSeededException notSeeded(Call call, String seededRun, String currentRun) {
        String why = seededRun == null
                ? "its hash slot " + call.slot + " has no floor (" + call.floor + "): the server was never seeded, or"
                        + " it lost its data (a restart without persistence, FLUSHALL, a failover to a replica"
                        + " without the keys)"
                : "its hash slot " + call.slot + " was seeded by an earlier run of the server (run_id " + seededRun
                        + ", now " + currentRun + "): it restarted or failed over since, and may have come back with"
                        + " older fence records than it had accepted";
        return new RedisFenceNotSeededException(
                call.fence,
                call.operation + " on Redis fence '" + Keys.shown(call.fence) + "' with token " + call.token
                        + " refused: " + why + ". Seed it with a token issued after that (RedisFence.seed); nothing"
                        + " was written",
                seededRun,
                currentRun);
    }

    private static RedisFenceException invalidRecord(String fence, String record, Object held) {
        return new RedisFenceException(
                fence,
                "the fence record " + record + " of Redis fence '" + Keys.shown(fence) + "' holds " + held
                        + ", which is not a fencing token (another program wrote that key?); refusing to act on it,"
                        + " nothing was written",
                false,
                null);
    }

    private static long parseToken(String fence, String record, Object value) {
        try {
            return Long.parseLong((String) value);
        } catch (RuntimeException e) {
            throw invalidRecord(fence, record, value);
        }
    }

    /** One call's checked fence, token and keys, with the fence's own keys first. */
    private static final class Call {
        final String fence;
        final long token;
        final String operation;
        final int slot;
        final String record;
        final String floor;
        final List<String> keys = new ArrayList<>();
        final List<String> args;

        Call(String fence, long token, String operation, int slot, String record, String floor, String mode) {
            this.fence = fence;
            this.token = token;
            this.operation = operation;
            this.slot = slot;
            this.record = record;
            this.floor = floor;
            keys.add(record);
            keys.add(floor);
            args = List.of(Long.toString(token), mode);
        }

        void addKey(String key) {
            Keys.check("key", key, operation + " on fence '" + Keys.shown(fence) + "'");
            int keySlot = Slots.of(key);
            if (keySlot != slot) {
                throw new IllegalArgumentException("key '" + Keys.shown(key) + "' is in hash slot " + keySlot
                        + " but fence '" + Keys.shown(fence) + "' in slot " + slot + " (" + operation + "): every key"
                        + " a fenced call writes must be in its fence key's slot, so that one script can check the"
                        + " fence and write them on Redis Cluster too. Give both the same hash tag, e.g. 'stock:{sku-1}'"
                        + " with fence 'inventory:{sku-1}'; nothing was sent");
            }
            keys.add(key);
        }
    }
}
