package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.S3MockServer;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;

/** Store answers the fence cannot work with are fencing exceptions naming bucket and key. */
class StoreAnswersTest extends S3MockTestBase {

    /** Plays a store or proxy that answers 200 without an ETag header. */
    private static final class StripEtag implements ExecutionInterceptor {
        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            return context.httpResponse().toBuilder().removeHeader("ETag").build();
        }
    }

    @Test
    void answerWithoutAnEtagIsAStoreExceptionNamingBucketAndKey() {
        putPlain("orders/1", "v", Map.of("fence-token", "3"));
        try (S3Client stripping = TestClients.s3(S3MockServer.endpoint(), new StripEtag())) {
            FencedBucket bucket = FencedBucket.create(stripping, config().build());

            StoreException e = assertThrows(StoreException.class, () -> bucket.token("orders/1"));

            assertThat(e.bucket()).isEqualTo(bucketName);
            assertThat(e.key()).isEqualTo("orders/1");
            assertThat(e.getMessage()).contains("without an ETag", bucketName, "orders/1");
        }
    }

    @Test
    void writeToAKeyTheStoreAnswersWithoutAnEtagWritesNothing() {
        putPlain("orders/1", "v", Map.of("fence-token", "3"));
        try (S3Client stripping = TestClients.s3(S3MockServer.endpoint(), new StripEtag())) {
            FencedBucket bucket = FencedBucket.create(stripping, config().build());

            assertThrows(StoreException.class, () -> bucket.put("orders/1", 4, RequestBody.fromString("new")));
        }
        assertThat(contentOf("orders/1")).isEqualTo("v");
        assertThat(storedToken("orders/1")).isEqualTo("3");
    }

    @Test
    void tokenOfAKeyInAMissingBucketIsAnErrorNotNoObject() {
        FencedBucket bucket = FencedBucket.create(fencedClient, S3FenceConfig.of("no-such-bucket-here"));

        StoreException e = assertThrows(StoreException.class, () -> bucket.token("orders/1"));

        assertThat(e.isNoSuchBucket()).isTrue();
        assertThat(e.getMessage()).contains("no-such-bucket-here", "orders/1");
    }

    @Test
    void tokenOfAMissingKeyIsEmpty() {
        assertThat(fencedBucket().token("never-written")).isEmpty();
    }
}
