package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Each fence meter moves when its outcome happens: S3Mock, and a fake store for the self-check. */
class FencedBucketMetricsTest extends S3MockTestBase {

    private static double count(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private static MeterRegistry bound(FencedBucket bucket) {
        MeterRegistry registry = new SimpleMeterRegistry();
        FencedBucketMetrics.of(bucket).bindTo(registry);
        return registry;
    }

    @Test
    void acceptedWritesAndStaleRejectionsAreCountedPerOperation() {
        FencedBucket bucket = fencedBucket();
        MeterRegistry registry = bound(bucket);
        bucket.put("orders/1", 5, RequestBody.fromString("v5"));
        bucket.put("orders/1", 6, RequestBody.fromString("v6"));
        assertThrows(S3StaleTokenException.class, () -> bucket.put("orders/1", 4, RequestBody.fromString("late")));
        assertThrows(S3StaleTokenException.class, () -> bucket.delete("orders/1", 3));
        assertThat(bucket.delete("orders/1", 7)).isTrue();

        assertThat(count(
                        registry,
                        "zkfence.fence.writes",
                        "adapter",
                        "s3",
                        "resource",
                        bucketName,
                        "operation",
                        "PutObject",
                        "outcome",
                        "accepted"))
                .isEqualTo(2);
        assertThat(count(registry, "zkfence.fence.writes", "operation", "PutObject", "outcome", "stale"))
                .isEqualTo(1);
        assertThat(count(registry, "zkfence.fence.writes", "operation", "DeleteObject", "outcome", "stale"))
                .isEqualTo(1);
        assertThat(count(registry, "zkfence.fence.writes", "operation", "DeleteObject", "outcome", "accepted"))
                .isEqualTo(1);
        assertThat(count(registry, "zkfence.fence.races", "operation", "PutObject"))
                .isZero();
    }

    @Test
    void aLostRaceAgainstALowerTokenIsCountedAndRetried() {
        FencedBucket bucket = fencedBucket();
        MeterRegistry registry = bound(bucket);
        bucket.put("orders/2", 5, RequestBody.fromString("v5")); // the ETag is cached
        // Another writer with a lower token changes the bytes: the cached If-Match now fails.
        putPlain("orders/2", "foreign", Map.of(S3FenceConfig.DEFAULT_TOKEN_METADATA_KEY, "2"));

        bucket.put("orders/2", 5, RequestBody.fromString("v5 again"));

        assertThat(count(registry, "zkfence.fence.races", "operation", "PutObject"))
                .isEqualTo(1);
        assertThat(count(registry, "zkfence.fence.writes", "operation", "PutObject", "outcome", "accepted"))
                .isEqualTo(2);
        assertThat(count(registry, "zkfence.fence.writes", "operation", "PutObject", "outcome", "conflict"))
                .isZero();
        assertThat(contentOf("orders/2")).isEqualTo("v5 again");
    }

    @Test
    void aStoreThatIgnoresPreconditionsCountsASelfCheckFailure() throws IOException {
        try (FakeS3Endpoint store = new FakeS3Endpoint(FakeS3Endpoint.Behaviour.ACCEPT_EVERYTHING);
                S3Client client = TestClients.s3(store.endpoint())) {
            FencedBucket bucket = FencedBucket.create(client, S3FenceConfig.of("ignores-conditions"));
            MeterRegistry registry = bound(bucket);
            assertThat(count(registry, "zkfence.fence.selfcheck.failures", "check", "put"))
                    .isZero();

            assertThrows(
                    ConditionalWritesUnsupportedException.class,
                    () -> bucket.put("orders/3", 5, RequestBody.fromString("unfenced")));

            assertThat(count(registry, "zkfence.fence.selfcheck.failures", "adapter", "s3", "check", "put"))
                    .isEqualTo(1);
            assertThat(count(registry, "zkfence.fence.writes", "operation", "PutObject", "outcome", "accepted"))
                    .isZero();
        }
    }
}
