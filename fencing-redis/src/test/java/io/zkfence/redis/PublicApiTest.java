package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import io.zkfence.testing.PublicApi;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The module's public surface is deliberate, small, unchecked and shares fencing-api's exceptions. */
class PublicApiTest {

    private static final List<Class<?>> PUBLIC_TYPES = List.of(
            RedisFence.class,
            RedisFenceConfig.class,
            RedisWrite.class,
            RedisScript.class,
            FencedReply.class,
            RedisConnector.class,
            LettuceConnector.class,
            JedisConnector.class,
            RedisFenceException.class,
            RedisStaleTokenException.class,
            RedisFenceNotSeededException.class);

    @Test
    void thePackageExposesOnlyTheListedTypes() {
        assertThat(PublicApi.publicTypesOf(RedisFence.class)).containsExactlyInAnyOrderElementsOf(PUBLIC_TYPES);
    }

    @Test
    void noPublicMethodOrConstructorDeclaresACheckedException() {
        assertThat(PublicApi.declaringCheckedExceptions(PUBLIC_TYPES)).isEmpty();
    }

    @Test
    void everyExceptionIsAFencingExceptionAndTheStaleOneTheSharedType() {
        assertThat(PUBLIC_TYPES.stream().filter(Throwable.class::isAssignableFrom))
                .allMatch(FencingException.class::isAssignableFrom, "is a FencingException");
        assertThat(StaleTokenException.class).isAssignableFrom(RedisStaleTokenException.class);
        assertThat(RedisFenceException.class.isAssignableFrom(RedisStaleTokenException.class))
                .isFalse();
    }
}
