package io.zkfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A machine without redis-server fails the Redis tests with a message naming the package; nothing is skipped. */
class RedisServerTest {

    @Test
    void aMissingRedisServerFailsNamingTheDebianPackage() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> RedisServer.binary(Map.of("PATH", "/nonexistent"), Path.of("/nonexistent/redis-server")));

        assertThat(e.getMessage())
                .contains("redis-server is not installed", "apt-get install -y redis-server", "REDIS_SERVER");
    }

    @Test
    void redisServerSetToAMissingFileIsNamed() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> RedisServer.binary(Map.of("REDIS_SERVER", "/nonexistent/redis"), Path.of("/nonexistent")));

        assertThat(e.getMessage()).contains("REDIS_SERVER=/nonexistent/redis");
    }
}
