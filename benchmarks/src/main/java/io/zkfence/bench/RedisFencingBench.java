package io.zkfence.bench;

import io.zkfence.redis.JedisConnector;
import io.zkfence.redis.RedisFence;
import io.zkfence.redis.RedisFenceConfig;
import io.zkfence.redis.RedisWrite;
import io.zkfence.testing.RedisServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Workload 5c: a fenced Redis SET (one call of the fence's Lua function: the token checked against
 * the fence record and the slot's floor, the record advanced, the SET) against a plain SET of the same value, through one
 * Jedis client (fencing-redis's JedisConnector: Lettuce needs Netty 4.2, and this harness carries
 * Netty 4.1 for gRPC and the AWS SDK) to Debian's redis-server in a process of its own (no
 * persistence). Two fenced
 * variants: the default restart policy, whose function also compares the floor's run id with the
 * server's (read with {@code INFO server} once per life of the library), and {@code TRUST_PERSISTENCE},
 * whose function does not.
 */
final class RedisFencingBench implements Workload {

    static final int VALUE_BYTES = 100;

    /** Calls of each variant before the measured rounds, so that the JIT has compiled both paths. */
    static final int JIT_WARMUP = 20_000;

    @Override
    public String name() {
        return "fencing-redis";
    }

    @Override
    public boolean needsZooKeeper() {
        return false;
    }

    @Override
    public Section run(BenchContext ctx) {
        Settings s = ctx.settings();
        Results r = ctx.results();
        ctx.log().say("fencing on Redis: starting redis-server");
        try (RedisServer server = RedisServer.start(List.of())) {
            try (RedisClient jedis = RedisClient.create("127.0.0.1", server.port());
                    Jedis admin = new Jedis("127.0.0.1", server.port())) {
                RedisFence strict = RedisFence.create(JedisConnector.of(jedis));
                RedisFence trusting = RedisFence.create(
                        JedisConnector.of(jedis),
                        RedisFenceConfig.builder()
                                .restartPolicy(RedisFenceConfig.RestartPolicy.TRUST_PERSISTENCE)
                                .build());
                strict.seed(1); // the one-off seed is not part of the steady state
                Random random = new Random(42);
                long token = 7;
                List<Op> ops = List.of(
                        Op.of("plain_set", () -> jedis.set("plain:{k}", value(random))),
                        Op.of(
                                "fenced_set",
                                () -> strict.write("fenced:{k}", token, RedisWrite.set("fenced:{k}", value(random)))),
                        Op.of(
                                "fenced_set_trust_persistence",
                                () -> trusting.write(
                                        "trusting:{k}", token, RedisWrite.set("trusting:{k}", value(random)))));
                // A write here takes tens of microseconds, so the JIT's state weighs: every variant runs
                // JIT_WARMUP times first (the fence's own code would otherwise be measured
                // interpreted against a plain SET whose client code both variants warm).
                int jitWarmup = s.smoke() ? 100 : JIT_WARMUP;
                for (int i = 0; i < jitWarmup; i++) {
                    for (Op op : ops) {
                        op.run();
                    }
                }
                ctx.log()
                        .say(
                                "fencing on Redis: %d calls per variant for the JIT, %d warm-up + %d rounds x %d"
                                        + " writes per variant",
                                jitWarmup, s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
                Map<String, Latency> lat = FenceOverhead.interleave(s, r, "fencing_redis", ops);
                r.figure("fencing_redis.value_bytes", VALUE_BYTES);

                // What the server spends per call, by its own count (INFO commandstats): the part of the
                // difference a client cannot remove.
                Map<String, Double> serverUs = new LinkedHashMap<>();
                for (Op op : ops) {
                    admin.configResetStat();
                    for (int i = 0; i < s.fenceOpsPerRound() * 10; i++) {
                        op.run();
                    }
                    String stats = admin.info("commandstats");
                    // The fence calls a function (FCALL) on Redis 7, a script (EVALSHA) before.
                    String command = op.name().equals("plain_set")
                            ? "set"
                            : stats.contains("cmdstat_fcall:") ? "fcall" : "evalsha";
                    double us = usecPerCall(stats, command);
                    serverUs.put(op.name(), us);
                    r.figure("fencing_redis." + op.name() + ".server_us_per_call", us);
                }

                Latency base = lat.get("plain_set");
                Latency fenced = lat.get("fenced_set");
                Latency trust = lat.get("fenced_set_trust_persistence");
                double ratio = FenceOverhead.ratio(r, "fencing_redis", fenced, base);
                double trustRatio = trust.p50() / base.p50();
                r.figure("fencing_redis.ratio.fenced_trust_persistence_vs_plain.p50", trustRatio);
                r.target(Target.atMost(
                        "redis_fenced_set",
                        name(),
                        "fenced Redis SET (one FCALL) p50 ≤ 1.1 × plain SET",
                        ratio,
                        1.1,
                        "p50 " + Fmt.us(fenced.p50()) + " vs " + Fmt.us(base.p50()) + "; with TRUST_PERSISTENCE "
                                + Fmt.us(trust.p50()) + " (" + Fmt.ratio(trustRatio) + "); one request per write in"
                                + " every variant; the server's own time per call: fenced "
                                + Fmt.num(serverUs.get("fenced_set")) + " µs (trust persistence "
                                + Fmt.num(serverUs.get("fenced_set_trust_persistence")) + " µs), SET "
                                + Fmt.num(serverUs.get("plain_set")) + " µs; bound: the Lua engine's fixed cost per"
                                + " call against a loopback round trip (HOW.md)"));

                String plot = FenceOverhead.plot(
                        ctx, "fencing-redis.png", "Redis SET of " + VALUE_BYTES + " bytes, fenced and plain", lat);
                StringBuilder md = new StringBuilder();
                md.append("Debian's redis-server ")
                        .append("in a process of its own (no persistence), one Jedis client (fencing-redis's "
                                + "JedisConnector), one thread, ")
                        .append(VALUE_BYTES)
                        .append("-byte values of fresh random characters. *Plain*: `SET`. *Fenced*: "
                                + "`RedisFence.write(fence, token, RedisWrite.set(key, value))`, one `FCALL` of the "
                                + "fence's function library, which checks the token against the fence record and the "
                                + "slot's floor, compares the floor's run id with the server's (the default restart "
                                + "policy; read with `INFO server` once per life of the library, then kept in it), "
                                + "advances the record and runs the `SET`; *fenced, trust persistence*: the same "
                                + "without the run id. Interleaved, ")
                        .append(s.fenceRounds())
                        .append(" rounds of ")
                        .append(s.fenceOpsPerRound())
                        .append(" writes after ")
                        .append(JIT_WARMUP)
                        .append(" calls of each variant for the JIT and ")
                        .append(s.fenceWarmupRounds())
                        .append(" warm-up rounds.\n\n");
                FenceOverhead.latencyTable(md, lat);
                FenceOverhead.ratioLine(md, fenced, base);
                md.append("; with TRUST_PERSISTENCE ")
                        .append(Fmt.ratio(trustRatio))
                        .append(". One request per write in every variant. The server's own time per call "
                                + "(`INFO commandstats`, ")
                        .append(s.fenceOpsPerRound() * 10)
                        .append(" calls of each variant): fenced ")
                        .append(Fmt.num(serverUs.get("fenced_set")))
                        .append(" µs, trust persistence ")
                        .append(Fmt.num(serverUs.get("fenced_set_trust_persistence")))
                        .append(" µs, plain SET ")
                        .append(Fmt.num(serverUs.get("plain_set")))
                        .append(" µs: a Lua function or script costs the server microseconds where a SET costs "
                                + "under one, and on the loopback a round trip is only tens of microseconds.\n\n");
                md.append("![fencing on Redis](").append(plot).append(")\n");
                return new Section("5c. Fencing overhead on Redis", md.toString());
            }
        }
    }

    /** {@code usec_per_call} of {@code command} in an {@code INFO commandstats} answer. */
    static double usecPerCall(String info, String command) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (field.startsWith("usec_per_call=")) {
                        return Double.parseDouble(field.substring("usec_per_call=".length()));
                    }
                }
            }
        }
        throw new IllegalStateException("no usec_per_call for " + command + " in " + info);
    }

    private static String value(Random random) {
        StringBuilder b = new StringBuilder(VALUE_BYTES);
        for (int i = 0; i < VALUE_BYTES; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.toString();
    }
}
