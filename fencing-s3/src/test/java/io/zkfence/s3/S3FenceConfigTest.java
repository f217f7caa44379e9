package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class S3FenceConfigTest {

    private static String rejection(UnaryOperator<S3FenceConfig.Builder> setting) {
        return assertThrows(
                        IllegalArgumentException.class,
                        () -> setting.apply(S3FenceConfig.builder("my-bucket")).build())
                .getMessage();
    }

    @Test
    void defaultsAreDocumentedValues() {
        S3FenceConfig config = S3FenceConfig.of("my-bucket");

        assertThat(config.bucket()).isEqualTo("my-bucket");
        assertThat(config.tokenMetadataKey()).isEqualTo("fence-token");
        assertThat(config.maxConflictRetries()).isEqualTo(8);
        assertThat(config.backoffBase()).isEqualTo(Duration.ofMillis(5));
        assertThat(config.backoffMax()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.etagCacheSize()).isEqualTo(10_000);
        assertThat(config.selfCheckKeyPrefix()).isEqualTo("zkfence-self-check/");
    }

    @Test
    void toBuilderKeepsEveryValue() {
        S3FenceConfig config = S3FenceConfig.builder("my-bucket")
                .tokenMetadataKey("epoch")
                .maxConflictRetries(2)
                .backoffBase(Duration.ZERO)
                .backoffMax(Duration.ofSeconds(1))
                .etagCacheSize(0)
                .selfCheckKeyPrefix("probes/")
                .build();

        assertThat(config.toBuilder().build()).usingRecursiveComparison().isEqualTo(config);
    }

    @Test
    void badBucketIsRejectedWithItsName() {
        assertThat(assertThrows(IllegalArgumentException.class, () -> S3FenceConfig.of("ab"))
                        .getMessage())
                .contains("bucket", "3 to 63", "'ab'");
        assertThat(assertThrows(IllegalArgumentException.class, () -> S3FenceConfig.of("a/b/c"))
                        .getMessage())
                .contains("bucket", "a/b/c");
        assertThrows(NullPointerException.class, () -> S3FenceConfig.of(null));
    }

    @Test
    void eachKnobOutOfBoundsIsRejectedNamingKnobBoundAndValue() {
        assertThat(rejection(b -> b.tokenMetadataKey("x-amz-meta-Fence Token")))
                .contains("tokenMetadataKey", "[a-z0-9-]", "x-amz-meta-Fence Token");
        assertThat(rejection(b -> b.tokenMetadataKey(""))).contains("tokenMetadataKey");
        assertThat(rejection(b -> b.maxConflictRetries(-1))).contains("maxConflictRetries", "0 and 100", "-1");
        assertThat(rejection(b -> b.maxConflictRetries(101))).contains("maxConflictRetries", "101");
        assertThat(rejection(b -> b.backoffMax(Duration.ofMinutes(1)))).contains("backoffMax", "PT30S", "PT1M");
        assertThat(rejection(b -> b.backoffMax(Duration.ofMillis(-1)))).contains("backoffMax");
        assertThat(rejection(b -> b.backoffBase(Duration.ofSeconds(1)).backoffMax(Duration.ofMillis(100))))
                .contains("backoffBase", "backoffMax (PT0.1S)", "PT1S");
        assertThat(rejection(b -> b.backoffBase(Duration.ofMillis(-5)))).contains("backoffBase");
        assertThat(rejection(b -> b.etagCacheSize(-1))).contains("etagCacheSize", "1000000", "-1");
        assertThat(rejection(b -> b.selfCheckKeyPrefix(" "))).contains("selfCheckKeyPrefix");
    }

    @Test
    void nullDurationIsRejectedNamingTheKnob() {
        NullPointerException e = assertThrows(
                NullPointerException.class,
                () -> S3FenceConfig.builder("my-bucket").backoffBase(null).build());

        assertThat(e.getMessage()).contains("backoffBase");
    }
}
