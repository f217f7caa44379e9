package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each write kind a fence carries, accepted with its reply and refused whole when the token is
 * stale; several writes in one call, and a script of the caller's own, run after the check.
 */
class RedisWritesTest {

    private final RedisFence fence = Redis.fence(new Redis.CountingConnector(LettuceConnector.of(Redis.connection())));
    private final RedisCommands<String, String> redis = Redis.plain();
    /** A fresh hash tag: every key of a test in one slot, the fence's. */
    private final String tag = "{" + UUID.randomUUID() + "}";

    private final String fenceKey = "inventory:" + tag;

    private String key(String name) {
        return name + ":" + tag;
    }

    @Test
    void setWithATimeToLiveIsWrittenWithIt() {
        FencedReply reply =
                fence.write(fenceKey, 5, RedisWrite.set(key("s"), "v").expireIn(Duration.ofMinutes(10)));

        assertThat(reply.reply(0)).isEqualTo("OK");
        assertThat(reply.token()).isEqualTo(5);
        assertThat(redis.get(key("s"))).isEqualTo("v");
        assertThat(redis.pttl(key("s"))).isBetween(1L, 600_000L);
    }

    @Test
    void setOnlyIfAbsentAnswersNilWhenTheKeyExistsButTheTokenIsAccepted() {
        redis.set(key("s"), "there");

        FencedReply reply =
                fence.write(fenceKey, 5, RedisWrite.set(key("s"), "mine").onlyIfAbsent());

        assertThat(reply.reply(0)).isNull();
        assertThat(redis.get(key("s"))).isEqualTo("there");
        assertThat(fence.token(fenceKey)).hasValue(5);
    }

    @Test
    void setOnlyIfPresentAndKeepTtlKeepTheExpiry() {
        redis.set(key("s"), "old", io.lettuce.core.SetArgs.Builder.px(600_000));

        FencedReply reply = fence.write(
                fenceKey, 5, RedisWrite.set(key("s"), "new").onlyIfPresent().keepTtl());

        assertThat(reply.reply(0)).isEqualTo("OK");
        assertThat(redis.get(key("s"))).isEqualTo("new");
        assertThat(redis.pttl(key("s"))).isPositive();
        assertThat(fence.write(fenceKey, 5, RedisWrite.set(key("absent"), "x").onlyIfPresent())
                        .reply(0))
                .isNull();
        assertThat(redis.exists(key("absent"))).isZero();
    }

    @Test
    void hsetIncrByPushesAndXaddAnswerTheirReplies() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("status", "reserved");
        fields.put("order", "A-1");

        FencedReply reply = fence.write(
                fenceKey,
                7,
                RedisWrite.hset(key("h"), fields),
                RedisWrite.incrBy(key("stock"), -2),
                RedisWrite.rpush(key("list"), "a", "b"),
                RedisWrite.lpush(key("list"), "z"),
                RedisWrite.xadd(key("events"), Map.of("type", "reserved")),
                RedisWrite.expire(key("h"), Duration.ofMinutes(5)));

        assertThat(reply.longReply(0)).isEqualTo(2);
        assertThat(reply.longReply(1)).isEqualTo(-2);
        assertThat(reply.longReply(2)).isEqualTo(2);
        assertThat(reply.longReply(3)).isEqualTo(3);
        assertThat((String) reply.reply(4)).matches("\\d+-\\d+");
        assertThat(reply.longReply(5)).isEqualTo(1);
        assertThat(redis.hgetall(key("h"))).isEqualTo(fields);
        assertThat(redis.get(key("stock"))).isEqualTo("-2");
        assertThat(redis.lrange(key("list"), 0, -1)).containsExactly("z", "a", "b");
        assertThat(redis.xlen(key("events"))).isEqualTo(1);
        assertThat(redis.pttl(key("h"))).isPositive();
    }

    @Test
    void delAnswersHowManyKeysWentAway() {
        redis.set(key("a"), "1");
        redis.set(key("b"), "2");

        FencedReply reply = fence.write(fenceKey, 3, RedisWrite.del(key("a"), key("b"), key("c")));

        assertThat(reply.longReply(0)).isEqualTo(2);
        assertThat(redis.exists(key("a"), key("b"))).isZero();
    }

    @Test
    void aStaleTokenRunsNoneOfTheWrites() {
        fence.write(fenceKey, 9, RedisWrite.set(key("s"), "by 9"));

        RedisStaleTokenException e = assertThrows(
                RedisStaleTokenException.class,
                () -> fence.write(
                        fenceKey,
                        8,
                        RedisWrite.incrBy(key("stock"), 5),
                        RedisWrite.rpush(key("list"), "by 8"),
                        RedisWrite.set(key("s"), "by 8")));

        assertThat(e.fence()).isEqualTo(fenceKey);
        assertThat(e.presentedToken()).isEqualTo(8);
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(e.getMessage()).contains(fenceKey, "8", "9", "nothing was written");
        assertThat(redis.exists(key("stock"), key("list"))).isZero();
        assertThat(redis.get(key("s"))).isEqualTo("by 9");
    }

    @Test
    void claimCutsOffTheOldHolderBeforeTheNewOneWrites() {
        fence.write(fenceKey, 3, RedisWrite.set(key("s"), "old holder, before its pause"));

        fence.claim(fenceKey, 4);

        assertThrows(RedisStaleTokenException.class, () -> fence.write(fenceKey, 3, RedisWrite.set(key("s"), "late")));
        assertThat(redis.get(key("s"))).isEqualTo("old holder, before its pause");
        assertThat(fence.token(fenceKey)).hasValue(4);
    }

    @Test
    void oneFenceGuardsEveryKeyOfItsTagWhicheverTheNewHolderWrote() {
        fence.write(fenceKey, 3, RedisWrite.set(key("a"), "3"), RedisWrite.set(key("b"), "3"));
        fence.write(fenceKey, 4, RedisWrite.set(key("a"), "4")); // the new holder touches only a

        assertThrows(RedisStaleTokenException.class, () -> fence.write(fenceKey, 3, RedisWrite.set(key("b"), "late")));
        assertThat(redis.get(key("b"))).isEqualTo("3");
    }

    @Test
    void aWriteThatFailsOnTheServerKeepsTheWritesBeforeItAndSaysSo() {
        redis.set(key("text"), "not a number");

        RedisFenceException e = assertThrows(
                RedisFenceException.class,
                () -> fence.write(
                        fenceKey,
                        6,
                        RedisWrite.rpush(key("list"), "first"),
                        RedisWrite.incrBy(key("text"), 1),
                        RedisWrite.rpush(key("list"), "third")));

        assertThat(e).isNotInstanceOf(RedisFenceNotSeededException.class);
        assertThat(e.outcomeUnknown()).isFalse();
        assertThat(e.getMessage()).contains("write 2", "INCRBY", "not an integer", "does not roll");
        assertThat(redis.lrange(key("list"), 0, -1)).containsExactly("first");
        assertThat(fence.token(fenceKey)).hasValue(6);
    }

    @Test
    void aSingleWriteThatFailsOnTheServerIsReportedAsWriteOne() {
        redis.set(key("text"), "not a number");

        RedisFenceException e = assertThrows(
                RedisFenceException.class, () -> fence.write(fenceKey, 6, RedisWrite.incrBy(key("text"), 1)));

        assertThat(e.outcomeUnknown()).isFalse();
        assertThat(e.getMessage()).contains("write 1", "INCRBY", "not an integer");
        assertThat(redis.get(key("text"))).isEqualTo("not a number");
        assertThat(fence.token(fenceKey)).hasValue(6);
    }

    @Test
    void aScriptOfTheCallersOwnRunsAfterTheCheckWithItsOwnKeysAndArguments() {
        RedisScript reserve = RedisScript.of("""
                local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
                if stock < tonumber(ARGV[1]) then return 0 end
                redis.call('DECRBY', KEYS[1], ARGV[1])
                redis.call('RPUSH', KEYS[2], ARGV[2])
                return 1
                """);
        redis.set(key("stock"), "5");

        FencedReply first =
                fence.eval(fenceKey, 7, reserve, List.of(key("stock"), key("orders")), List.of("2", "order-1"));
        FencedReply second =
                fence.eval(fenceKey, 7, reserve, List.of(key("stock"), key("orders")), List.of("4", "order-2"));

        assertThat(first.longReply(0)).isEqualTo(1);
        assertThat(second.longReply(0)).isZero();
        assertThat(redis.get(key("stock"))).isEqualTo("3");
        assertThat(redis.lrange(key("orders"), 0, -1)).containsExactly("order-1");
    }

    @Test
    void aScriptWithAStaleTokenNeverRuns() {
        RedisScript mark = RedisScript.of("redis.call('SET', KEYS[1], ARGV[1]); return 'ran'");
        fence.claim(fenceKey, 10);

        assertThrows(
                RedisStaleTokenException.class,
                () -> fence.eval(fenceKey, 9, mark, List.of(key("ran")), List.of("stale")));

        assertThat(redis.exists(key("ran"))).isZero();
    }

    @Test
    void aScriptThatRaisesAnErrorIsReportedWithTheServersMessage() {
        RedisScript failing = RedisScript.of("redis.call('SET', KEYS[1], 'before'); error('out of stock')");

        RedisFenceException e = assertThrows(
                RedisFenceException.class, () -> fence.eval(fenceKey, 2, failing, List.of(key("x")), List.of()));

        assertThat(e.getMessage()).contains("out of stock", "fenced script");
        assertThat(redis.get(key("x"))).isEqualTo("before");
    }

    @Test
    void aScriptSeesOnlyItsOwnKeysAndArgumentsAndNotTheFencesVariables() {
        RedisScript count = RedisScript.of("return #KEYS .. ',' .. #ARGV .. ',' .. KEYS[1] .. ',' .. ARGV[2]");
        RedisScript peek = RedisScript.of("return type(token)");

        FencedReply reply = fence.eval(fenceKey, 2, count, List.of(key("k")), List.of("a", "b"));
        RedisFenceException e = assertThrows(
                RedisFenceException.class, () -> fence.eval(fenceKey, 2, peek, List.of(key("k")), List.of()));

        assertThat(reply.reply(0)).isEqualTo("1,2," + key("k") + ",b");
        assertThat(e.getMessage()).contains("nonexistent global variable 'token'");
    }

    @Test
    void aScriptReturningNothingAnswersNull() {
        FencedReply reply =
                fence.eval(fenceKey, 2, RedisScript.of("redis.call('GET', KEYS[1])"), List.of(key("k")), List.of());

        assertThat(reply.replies()).hasSize(1);
        assertThat(reply.reply(0)).isNull();
    }

    @Test
    void valuesAndArgumentsAreDataNeverCode() {
        String hostile = "'); redis.call('FLUSHALL'); --\r\n*1\r\n$8\r\nFLUSHALL\r\n";
        redis.set(key("witness"), "still here");

        fence.write(
                fenceKey, 2, RedisWrite.set(key("s"), hostile), RedisWrite.hset(key("h"), Map.of(hostile, hostile)));
        fence.eval(
                fenceKey,
                2,
                RedisScript.of("return redis.call('SET', KEYS[1], ARGV[1])"),
                List.of(key("e")),
                List.of(hostile));

        assertThat(redis.get(key("s"))).isEqualTo(hostile);
        assertThat(redis.hget(key("h"), hostile)).isEqualTo(hostile);
        assertThat(redis.get(key("e"))).isEqualTo(hostile);
        assertThat(redis.get(key("witness"))).isEqualTo("still here");
    }

    @Test
    void tokensAboveTwoToTheFiftyThreeCompareExactly() {
        long big = (1L << 53) + 1; // a Lua number (a double) cannot tell it from 2^53
        fence.claim(fenceKey, big);

        assertThrows(RedisStaleTokenException.class, () -> fence.claim(fenceKey, big - 1));
        fence.claim(fenceKey, Long.MAX_VALUE);
        RedisStaleTokenException e =
                assertThrows(RedisStaleTokenException.class, () -> fence.claim(fenceKey, Long.MAX_VALUE - 1));

        assertThat(e.storedToken()).isEqualTo(Long.MAX_VALUE);
        assertThat(fence.token(fenceKey)).hasValue(Long.MAX_VALUE);
    }
}
