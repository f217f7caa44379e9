package io.zkfence.recipes.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad settings fail at build() with a message naming the knob; bad keys fail before any I/O. */
class CacheRebuildBuilderTest extends ZooKeeperTestBase {

    /** A store that must never be reached by these tests. */
    private static final CacheStore<String> UNREACHABLE = new CacheStore<>() {
        @Override
        public Optional<CachedValue<String>> read(String key) {
            throw new AssertionError("read " + key);
        }

        @Override
        public boolean write(String key, CachedValue<String> value) {
            throw new AssertionError("write " + key);
        }
    };

    static Stream<Arguments> badKnobs() {
        return Stream.of(
                Arguments.of(
                        "freshFor",
                        (UnaryOperator<CacheRebuild.Builder<String>>) b -> b.freshFor(Duration.ZERO),
                        "freshFor must be between 1 ms and 30 days, was PT0S"),
                Arguments.of(
                        "freshFor",
                        (UnaryOperator<CacheRebuild.Builder<String>>) b -> b.freshFor(null),
                        "freshFor must not be null"),
                Arguments.of(
                        "maxStaleness",
                        (UnaryOperator<CacheRebuild.Builder<String>>) b -> b.maxStaleness(Duration.ofSeconds(-1)),
                        "maxStaleness must be between 0 and 30 days, was PT-1S"),
                Arguments.of(
                        "waitTimeout",
                        (UnaryOperator<CacheRebuild.Builder<String>>) b -> b.waitTimeout(Duration.ofHours(2)),
                        "waitTimeout must be between 1 ms and 1 h, was PT2H"),
                Arguments.of(
                        "failureBackoff",
                        (UnaryOperator<CacheRebuild.Builder<String>>) b -> b.failureBackoff(Duration.ofDays(1)),
                        "failureBackoff must be between 0 and 1 h, was PT24H"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badKnobs")
    void aBadKnobFailsAtBuildNamingIt(
            String knob, UnaryOperator<CacheRebuild.Builder<String>> setting, String message) {
        CacheRebuild.Builder<String> builder = setting.apply(CacheRebuild.builder(client("pod"), UNREACHABLE));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);

        assertThat(e).hasMessage(message);
    }

    @Test
    void zeroStalenessAndZeroBackoffAreAllowed() {
        CacheRebuild<String> cache = CacheRebuild.builder(client("pod"), UNREACHABLE)
                .maxStaleness(Duration.ZERO)
                .failureBackoff(Duration.ZERO)
                .build();

        assertThat(cache.toString()).contains("maxStaleness=PT0S").contains("failureBackoff=PT0S");
    }

    @Test
    void aKeyTooLongForTheLockNameIsRejectedBeforeTheStoreIsRead() {
        LockClient client = client("pod");
        CacheRebuild<String> cache = CacheRebuild.builder(client, UNREACHABLE).build();
        String key = "k".repeat(250);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cache.get(key, () -> "v"));

        assertThat(e).hasMessageContaining("too long").hasMessageContaining(key).hasMessageContaining("cache:rebuild:");
    }

    @Test
    void aBlankKeyIsRejected() {
        CacheRebuild<String> cache =
                CacheRebuild.builder(client("pod"), UNREACHABLE).build();

        assertThat(assertThrows(IllegalArgumentException.class, () -> cache.get(" ", () -> "v")))
                .hasMessageContaining("cache key must not be null or blank");
    }
}
