package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input gets an exception naming it, before anything is sent. */
class BadInputTest {

    private final Redis.CountingConnector counting =
            new Redis.CountingConnector(LettuceConnector.of(Redis.connection()));
    private final RedisFence fence = Redis.fence(counting);
    private final String tag = "{" + UUID.randomUUID() + "}";

    @Test
    void aKeyInAnotherHashSlotThanTheFenceIsRefusedNamingBothSlots() {
        long before = counting.calls();

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> fence.write(
                        "inventory:" + tag,
                        3,
                        RedisWrite.set("stock:" + tag, "1"),
                        RedisWrite.set("stock:other", "1")));

        assertThat(e.getMessage())
                .contains("stock:other", "slot " + Slots.of("stock:other"), "inventory:" + tag, "hash tag");
        assertThat(counting.calls()).isEqualTo(before);
        assertThat(Redis.plain().exists("stock:" + tag)).isZero();
    }

    @Test
    void aScriptKeyInAnotherSlotIsRefusedToo() {
        long before = counting.calls();

        assertThrows(
                IllegalArgumentException.class,
                () -> fence.eval("inventory:" + tag, 3, RedisScript.of("return 1"), List.of("elsewhere"), List.of()));

        assertThat(counting.calls()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a}b", "}{", "{}", "x{}y"})
    void aFenceKeyWithoutAHashTagThatHasAClosingBraceIsRefused(String fenceKey) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fence.claim(fenceKey, 1));

        assertThat(e.getMessage()).contains("no hash tag", "'}'", "nothing was sent");
        assertThat(counting.calls()).isZero();
    }

    @Test
    void badTokensAreRefusedByEveryCall() {
        String f = "f:" + tag;

        for (long token : new long[] {0, -1, Long.MIN_VALUE}) {
            IllegalArgumentException w = assertThrows(
                    IllegalArgumentException.class, () -> fence.write(f, token, RedisWrite.set("k:" + tag, "v")));
            assertThrows(IllegalArgumentException.class, () -> fence.claim(f, token));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> fence.eval(f, token, RedisScript.of("return 1"), List.of(), List.of()));
            assertThat(w.getMessage()).contains("token must be >= 1", Long.toString(token), f);
        }
        assertThat(counting.calls()).isZero();
        assertThrows(IllegalArgumentException.class, () -> fence.seed(0));
    }

    @Test
    void aWriteCallNeedsWritesAndWritesNeedTheirParts() {
        assertThrows(IllegalArgumentException.class, () -> fence.write("f:" + tag, 1));
        assertThrows(IllegalArgumentException.class, () -> RedisWrite.del());
        assertThrows(IllegalArgumentException.class, () -> RedisWrite.rpush("k"));
        assertThrows(IllegalArgumentException.class, () -> RedisWrite.hset("k", Map.of()));
        assertThrows(IllegalArgumentException.class, () -> RedisWrite.xadd("k", Map.of()));
        assertThrows(NullPointerException.class, () -> RedisWrite.set("k", null));
        assertThrows(
                IllegalArgumentException.class, () -> RedisWrite.set("k", "v").expireIn(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> RedisScript.of(" "));
        assertThat(counting.calls()).isZero();
    }

    @Test
    void optionsOfSetAreRefusedElsewhereAndInContradictoryPairs() {
        IllegalArgumentException notSet = assertThrows(
                IllegalArgumentException.class, () -> RedisWrite.incrBy("k", 1).onlyIfAbsent());
        assertThrows(
                IllegalArgumentException.class,
                () -> RedisWrite.set("k", "v").onlyIfAbsent().onlyIfPresent());
        assertThrows(
                IllegalArgumentException.class,
                () -> RedisWrite.set("k", "v").keepTtl().expireIn(Duration.ofSeconds(1)));

        assertThat(notSet.getMessage()).contains("option of SET", "INCRBY");
    }

    @Test
    void aWriteWithTooManyArgumentsIsRefused() {
        String[] values = new String[RedisWrite.MAX_ARGUMENTS];
        java.util.Arrays.fill(values, "v");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisWrite.rpush("k", values));

        assertThat(e.getMessage()).contains("at most " + RedisWrite.MAX_ARGUMENTS);
    }

    @Test
    void aKeyPrefixWithABraceOrWhitespaceIsRefusedNamingTheKnob() {
        for (String prefix : List.of("", "zk{", "zk}", "zk fence:", "x".repeat(65))) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> RedisFenceConfig.builder().keyPrefix(prefix).build());
            assertThat(e.getMessage()).contains("keyPrefix");
        }
    }

    @Test
    void theKeyRulesNameTheRule() {
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class, () -> fence.claim("a\0b", 1));
        IllegalArgumentException surrogate =
                assertThrows(IllegalArgumentException.class, () -> fence.claim("x\uD800", 1));
        IllegalArgumentException tooLong =
                assertThrows(IllegalArgumentException.class, () -> fence.claim("ä".repeat(513), 1));
        IllegalArgumentException dataKey =
                assertThrows(IllegalArgumentException.class, () -> fence.write("f:" + tag, 1, RedisWrite.set("", "v")));

        assertThat(nul.getMessage()).contains("NUL", "a\\0b");
        assertThat(surrogate.getMessage()).contains("unpaired surrogate U+D800");
        assertThat(tooLong.getMessage()).contains("1024 bytes", "1026");
        assertThat(dataKey.getMessage()).contains("key must be 1 to 1024 bytes", "empty");
        assertThat(counting.calls()).isZero();
    }
}
