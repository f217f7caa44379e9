package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.FlushMode;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.RedisClient;

/** What each connector adds to the contract: NOSCRIPT, reply types, server errors, pipelined seeding. */
class ConnectorsTest {

    private static RedisClient jedis;

    static synchronized Stream<RedisConnector> connectors() {
        if (jedis == null) {
            jedis = RedisClient.create("127.0.0.1", Redis.server().port());
        }
        return Stream.of(LettuceConnector.of(Redis.connection()), JedisConnector.of(jedis));
    }

    @AfterAll
    static synchronized void closeJedis() {
        if (jedis != null) {
            jedis.close();
            jedis = null;
        }
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void aServerThatForgotTheScriptGetsItAgain(RedisConnector connector) {
        Redis.seedOnce();
        RedisFence fence = RedisFence.create(connector);
        String f = "noscript:{" + UUID.randomUUID() + "}";
        fence.claim(f, 1);

        Redis.plain().scriptFlush();

        fence.claim(f, 2);
        assertThat(fence.token(f)).hasValue(2);
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void aServerThatForgotTheFunctionsLoadsThemAgain(RedisConnector connector) {
        Redis.seedOnce();
        RedisFence fence = RedisFence.create(connector);
        String tag = "{" + UUID.randomUUID() + "}";
        fence.claim("nofunction:" + tag, 1);

        Redis.plain().functionFlush(FlushMode.SYNC);

        fence.write("nofunction:" + tag, 2, RedisWrite.set("k:" + tag, "after the flush"));
        assertThat(fence.token("nofunction:" + tag)).hasValue(2);
        assertThat(Redis.plain().get("k:" + tag)).isEqualTo("after the flush");
        assertThat(Redis.libraries(Redis.plain())).contains(Scripts.LIBRARY.name());
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void anErrorOfAFunctionIsAServerError(RedisConnector connector) {
        RedisConnector.ServerError e = assertThrows(
                RedisConnector.ServerError.class,
                () -> connector.fcall(
                        Scripts.LIBRARY.function("writes"), Scripts.LIBRARY.source(), List.of(), List.of()));

        assertThat(e.getMessage()).startsWith("ERR").contains(Scripts.LIBRARY.function("writes"));
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void repliesComeBackAsLongsStringsListsAndNull(RedisConnector connector) {
        Redis.seedOnce();
        RedisFence fence = RedisFence.create(connector);
        String tag = "{" + UUID.randomUUID() + "}";

        FencedReply reply = fence.write(
                "f:" + tag,
                1,
                RedisWrite.set("a:" + tag, "é 😀"),
                RedisWrite.set("a:" + tag, "x").onlyIfAbsent(),
                RedisWrite.incrBy("n:" + tag, 41));
        FencedReply script = fence.eval(
                "f:" + tag,
                1,
                RedisScript.of("return {redis.call('GET', KEYS[1]), 7, {'nested'}}"),
                List.of("a:" + tag),
                List.of());

        assertThat(reply.replies()).containsExactly("OK", null, 41L);
        assertThat(script.reply(0)).isEqualTo(List.of("é 😀", 7L, List.of("nested")));
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void anErrorReplyIsAServerError(RedisConnector connector) {
        RedisConnector.ServerError e = assertThrows(
                RedisConnector.ServerError.class,
                () -> connector.eval("0000000000000000000000000000000000000000", "return {", List.of(), List.of()));

        assertThat(e.getMessage()).containsIgnoringCase("error");
    }

    @ParameterizedTest
    @MethodSource("connectors")
    void evalEachAnswersEveryCallInOrder(RedisConnector connector) {
        Script echo = Script.of("return {ARGV[1]}");
        List<List<String>> keys = Stream.generate(List::<String>of).limit(500).toList();
        List<List<String>> args = Stream.iterate(0, i -> i + 1)
                .limit(500)
                .map(i -> List.of(Integer.toString(i)))
                .toList();

        List<Object> replies = connector.evalEach(echo.sha1(), echo.source(), keys, args);

        assertThat(replies).hasSize(500);
        assertThat(replies.get(499)).isEqualTo(List.of("499"));
        assertThat(connector.describe()).isNotBlank();
    }
}
