package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.S3MockServer;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3Client;

/** Every bad input gets a clear exception naming bucket and key, and nothing is written. */
class BadInputTest extends S3MockTestBase {

    @Test
    void zeroOrNegativeTokenIsRefusedBeforeAnyRequest() {
        FencedBucket bucket = fencedBucket();

        IllegalArgumentException put = assertThrows(
                IllegalArgumentException.class, () -> bucket.put("orders/1", -1, RequestBody.fromString("x")));
        IllegalArgumentException delete =
                assertThrows(IllegalArgumentException.class, () -> bucket.delete("orders/1", -5));
        IllegalArgumentException upload = assertThrows(
                IllegalArgumentException.class, () -> bucket.startMultipartUpload("orders/1", Long.MIN_VALUE));
        IllegalArgumentException zero = assertThrows(
                IllegalArgumentException.class, () -> bucket.put("orders/1", 0, RequestBody.fromString("x")));

        assertThat(put.getMessage()).contains("token must be >= 1", "-1", bucketName, "orders/1");
        assertThat(zero.getMessage()).contains("token must be >= 1 but was 0", bucketName, "orders/1");
        assertThat(delete.getMessage()).contains("-5", bucketName, "orders/1");
        assertThat(upload.getMessage()).contains(String.valueOf(Long.MIN_VALUE), bucketName, "orders/1");
        assertThat(log.requests()).isEmpty();
    }

    @Test
    void emptyKeyIsRefusedBeforeAnyRequest() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> fencedBucket().put("", 1, RequestBody.fromString("x")));

        assertThat(e.getMessage()).contains("key must be", bucketName);
        assertThat(log.requests()).isEmpty();
    }

    @Test
    void requestThatSetsWhatTheFenceOwnsIsRefused() {
        FencedBucket bucket = fencedBucket();

        IllegalArgumentException condition = assertThrows(
                IllegalArgumentException.class,
                () -> bucket.put("orders/1", 1, RequestBody.fromString("x"), r -> r.ifMatch("\"abc\"")));
        IllegalArgumentException token = assertThrows(
                IllegalArgumentException.class,
                () -> bucket.put(
                        "orders/1", 1, RequestBody.fromString("x"), r -> r.metadata(Map.of("fence-token", "99"))));

        assertThat(condition.getMessage()).contains("If-Match", bucketName, "orders/1");
        assertThat(token.getMessage()).contains("fence-token", bucketName, "orders/1");
        assertThat(log.requests()).isEmpty();
    }

    @Test
    void missingBucketIsReportedWithBucketAndKey() {
        FencedBucket bucket = FencedBucket.create(fencedClient, S3FenceConfig.of("no-such-bucket-here"));

        StoreException e =
                assertThrows(StoreException.class, () -> bucket.put("orders/1", 1, RequestBody.fromString("x")));

        assertThat(e.isNoSuchBucket()).isTrue();
        assertThat(e.statusCode()).isEqualTo(404);
        assertThat(e.bucket()).isEqualTo("no-such-bucket-here");
        assertThat(e.key()).isEqualTo("orders/1");
        assertThat(e.getMessage()).contains("bucket 'no-such-bucket-here' does not exist", "orders/1");
        assertThat(e.getCause()).isNotNull();
    }

    @Test
    void missingBucketIsReportedByReadAndDelete() {
        FencedBucket bucket = FencedBucket.create(fencedClient, S3FenceConfig.of("no-such-bucket-here"));

        StoreException read = assertThrows(StoreException.class, () -> bucket.read("orders/1"));
        StoreException delete = assertThrows(StoreException.class, () -> bucket.delete("orders/1", 1));

        assertThat(read.isNoSuchBucket()).isTrue();
        assertThat(delete.isNoSuchBucket()).isTrue();
        assertThat(delete.getMessage()).contains("no-such-bucket-here", "orders/1");
    }

    @Test
    void accessDeniedEverywhereIsReportedWithBucketAndKey() throws IOException {
        try (FakeS3Endpoint denying = new FakeS3Endpoint(FakeS3Endpoint.Behaviour.DENY_EVERYTHING);
                S3Client client = TestClients.s3(denying.endpoint())) {
            FencedBucket bucket = FencedBucket.create(client, S3FenceConfig.of("locked-down"));

            StoreException e =
                    assertThrows(StoreException.class, () -> bucket.put("orders/1", 1, RequestBody.fromString("x")));

            assertThat(e.isAccessDenied()).isTrue();
            assertThat(e.errorCode()).contains("AccessDenied");
            assertThat(e.bucket()).isEqualTo("locked-down");
            assertThat(e.key()).isEqualTo("orders/1");
            assertThat(e.getMessage()).contains("denied", "locked-down", "orders/1", "self-check");
        }
    }

    /** Reads reach S3Mock; PUTs of one key are sent to an endpoint that denies them (a read-only grant). */
    @Test
    void accessDeniedOnTheWriteLeavesTheObjectUnchanged() throws IOException {
        putPlain("orders/1", "v3", Map.of("fence-token", "3"));
        try (FakeS3Endpoint denying = new FakeS3Endpoint(FakeS3Endpoint.Behaviour.DENY_EVERYTHING);
                S3Client client =
                        TestClients.s3(S3MockServer.endpoint(), log, new DenyPutsOf("orders/1", denying.port()))) {
            FencedBucket bucket = FencedBucket.create(client, config().build());

            StoreException e =
                    assertThrows(StoreException.class, () -> bucket.put("orders/1", 5, RequestBody.fromString("v5")));

            assertThat(e.isAccessDenied()).isTrue();
            assertThat(e.operation()).isEqualTo("PutObject");
            assertThat(e.getMessage()).contains("PutObject", bucketName, "orders/1", "denied", "nothing was written");
            assertThat(denying.requests()).hasSize(1);
        }
        assertThat(contentOf("orders/1")).isEqualTo("v3");
        assertThat(storedToken("orders/1")).isEqualTo("3");
    }

    @Test
    void nonNumericStoredTokenIsRefusedAndTheObjectIsUnchanged() {
        putPlain("orders/1", "foreign", Map.of("fence-token", "abc"));
        FencedBucket bucket = fencedBucket();

        InvalidStoredTokenException put = assertThrows(
                InvalidStoredTokenException.class, () -> bucket.put("orders/1", 5, RequestBody.fromString("mine")));
        InvalidStoredTokenException delete =
                assertThrows(InvalidStoredTokenException.class, () -> bucket.delete("orders/1", 5));
        InvalidStoredTokenException read =
                assertThrows(InvalidStoredTokenException.class, () -> bucket.read("orders/1"));

        assertThat(put.storedValue()).isEqualTo("abc");
        assertThat(put.metadataKey()).isEqualTo("fence-token");
        assertThat(put.getMessage()).contains(bucketName, "orders/1", "x-amz-meta-fence-token='abc'");
        assertThat(delete.key()).isEqualTo("orders/1");
        assertThat(read.bucket()).isEqualTo(bucketName);
        assertThat(contentOf("orders/1")).isEqualTo("foreign");
        assertThat(log.requests())
                .filteredOn(r -> r.endsWith("orders/1"))
                .allMatch(r -> r.startsWith("HeadObject") || r.startsWith("GetObject"));
    }

    @Test
    void negativeStoredTokenIsRefused() {
        putPlain("orders/1", "foreign", Map.of("fence-token", "-4"));

        InvalidStoredTokenException e = assertThrows(
                InvalidStoredTokenException.class,
                () -> fencedBucket().put("orders/1", 5, RequestBody.fromString("mine")));

        assertThat(e.storedValue()).isEqualTo("-4");
        assertThat(contentOf("orders/1")).isEqualTo("foreign");
    }

    /** Sends the PutObject requests of one key to another port, where access is denied. */
    private record DenyPutsOf(String key, int deniedPort) implements ExecutionInterceptor {
        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
            SdkHttpRequest request = context.httpRequest();
            if (request.method() == SdkHttpMethod.PUT && request.encodedPath().endsWith("/" + key)) {
                return request.toBuilder().port(deniedPort).build();
            }
            return request;
        }
    }
}
