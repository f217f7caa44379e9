package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LockPathsTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "inventory:sku:123",
                "db-migration:user-service",
                "a/b/c",
                ".",
                "..",
                ".hidden",
                "with space",
                "percent%sign",
                "ünïcødé ✓",
                "emoji \uD83D\uDD12",
                "zookeeper",
                "q-not-a-queue-node",
                "%2F"
            })
    void namesMapReversiblyToValidPathElements(String name) {
        String element = LockPaths.encode(name);
        assertThat(LockPaths.decode(element)).isEqualTo(name);
        assertThat(element).doesNotContain("/");
        PathUtils.validatePath("/root/" + element); // throws if ZooKeeper would refuse it
    }

    @Test
    void readableNamesStayReadable() {
        assertThat(LockPaths.encode("inventory:sku:123")).isEqualTo("inventory:sku:123");
        assertThat(LockPaths.encode("db-migration:user-service")).isEqualTo("db-migration:user-service");
    }

    @Test
    void slashAndDotOnlyNamesAreEscaped() {
        assertThat(LockPaths.encode("a/b")).isEqualTo("a%2Fb");
        assertThat(LockPaths.encode(".")).isEqualTo("%2E");
        assertThat(LockPaths.encode("..")).isEqualTo("%2E.");
    }

    @Test
    void distinctNamesGetDistinctPaths() {
        assertThat(LockPaths.encode("a/b")).isNotEqualTo(LockPaths.encode("a%2Fb"));
    }

    @Test
    void lockPathJoinsRootAndName() {
        assertThat(LockPaths.lockPath("/zkfence/locks", "x:y")).isEqualTo("/zkfence/locks/x:y");
        assertThat(LockPaths.lockPath("/", "x")).isEqualTo("/x");
    }

    @Test
    void emptyNameIsRejectedNamingTheRule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.encode(""));
        assertThat(e).hasMessageContaining("must not be empty");
    }

    @Test
    void nullNameIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.encode(null));
        assertThat(e).hasMessageContaining("must not be null");
    }

    @Test
    void blankNameIsRejectedNamingTheRule() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.encode("  \t "));
        assertThat(e).hasMessageContaining("blank");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tab\there", "new\nline", "nul\u0000byte", "del\u007Fchar", "c1\u0085char"})
    void controlCharactersAreRejectedNamingTheRule(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.encode(name));
        assertThat(e).hasMessageContaining("control characters");
    }

    @Test
    void unpairedSurrogateIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LockPaths.encode("bad\uD800"));
        assertThat(e).hasMessageContaining("unpaired surrogate");
    }

    @Test
    void nameLongerThanTheLimitIsRejectedNamingTheLimit() {
        String atLimit = "x".repeat(LockPaths.MAX_NAME_BYTES);
        assertThat(LockPaths.decode(LockPaths.encode(atLimit))).isEqualTo(atLimit);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> LockPaths.encode(atLimit + "x"));
        assertThat(e).hasMessageContaining("at most 256 bytes");
    }

    @Test
    void limitCountsUtf8Bytes() {
        String threeBytesEach = "€".repeat(86); // 258 bytes
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> LockPaths.encode(threeBytesEach));
        assertThat(e).hasMessageContaining("was 258");
    }
}
