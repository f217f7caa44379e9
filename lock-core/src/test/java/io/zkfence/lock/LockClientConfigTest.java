package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockClientConfigTest {

    @Test
    void defaultsAreDocumentedValues() {
        LockClientConfig c = LockClientConfig.defaults();
        assertThat(c.rootPath()).isEqualTo("/zkfence/locks");
        assertThat(c.ownerId()).matches("\\d+@.+");
        assertThat(c.operationTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void invalidRootPathIsRejectedNamingTheSetting() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().rootPath("relative/path").build());
        assertThat(e).hasMessageContaining("rootPath").hasMessageContaining("relative/path");
    }

    @Test
    void rootPathInsideZookeeperReservedTreeIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().rootPath("/zookeeper/locks").build());
        assertThat(e).hasMessageContaining("reserves");
    }

    @Test
    void blankOwnerIdIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().ownerId(" ").build());
        assertThat(e).hasMessageContaining("ownerId");
    }

    @Test
    void ownerIdWithControlCharactersIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().ownerId("pod\n7").build());
        assertThat(e).hasMessageContaining("ownerId").hasMessageContaining("control");
    }

    @Test
    void tooLongOwnerIdIsRejectedNamingTheBound() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().ownerId("x".repeat(257)).build());
        assertThat(e).hasMessageContaining("at most 256");
    }

    @Test
    void outOfRangeTimeoutIsRejectedNamingTheSettingAndBound() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().operationTimeout(Duration.ZERO).build());
        assertThat(e).hasMessageContaining("operationTimeout").hasMessageContaining("between 1 ms and 10 min");
        assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder()
                        .sessionTimeout(Duration.ofHours(1))
                        .build());
    }

    @Test
    void emptyAclIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LockClientConfig.builder().acl(List.of()).build());
        assertThat(e).hasMessageContaining("acl");
    }
}
