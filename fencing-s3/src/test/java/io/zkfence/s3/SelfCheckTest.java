package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The fail-closed self-check against a store that ignores preconditions: a fake endpoint that
 * answers every write with success. (That S3Mock passes the check is covered by every other
 * test, which writes through it, and by {@link SteadyStateTest}.)
 */
class SelfCheckTest {

    private static final String BUCKET = "ignores-conditions";

    private FakeS3Endpoint store;
    private S3Client client;
    private FencedBucket bucket;

    @BeforeEach
    void startFakeStore() throws IOException {
        store = new FakeS3Endpoint(FakeS3Endpoint.Behaviour.ACCEPT_EVERYTHING);
        client = TestClients.s3(store.endpoint());
        bucket = FencedBucket.create(client, S3FenceConfig.of(BUCKET));
    }

    @AfterEach
    void stopFakeStore() {
        client.close();
        store.close();
    }

    private long requestsForKey(String key) {
        return store.requests().stream()
                .filter(r -> r.contains("/" + BUCKET + "/" + key))
                .count();
    }

    @Test
    void putIsRefusedOnAStoreThatIgnoresConditionsAndTheKeyIsNeverWritten() {
        ConditionalWritesUnsupportedException e = assertThrows(
                ConditionalWritesUnsupportedException.class,
                () -> bucket.put("orders/1", 5, RequestBody.fromString("unfenced")));

        assertThat(e.bucket()).isEqualTo(BUCKET);
        assertThat(e.key()).isEqualTo("orders/1");
        assertThat(e.probeKey()).startsWith(S3FenceConfig.DEFAULT_SELF_CHECK_KEY_PREFIX);
        assertThat(e.getMessage()).contains(BUCKET, "orders/1", "If-None-Match", "was accepted");
        assertThat(requestsForKey("orders/1")).isZero();
    }

    @Test
    void verdictIsRememberedAndEveryLaterPutFailsWithoutProbing() {
        assertThrows(
                ConditionalWritesUnsupportedException.class,
                () -> bucket.put("orders/1", 5, RequestBody.fromString("x")));
        int requestsAfterFirstCheck = store.requests().size();

        ConditionalWritesUnsupportedException again = assertThrows(
                ConditionalWritesUnsupportedException.class,
                () -> bucket.put("orders/2", 6, RequestBody.fromString("y")));

        assertThat(again.key()).isEqualTo("orders/2");
        assertThat(store.requests()).hasSize(requestsAfterFirstCheck);
    }

    @Test
    void deleteIsRefusedOnAStoreThatIgnoresConditions() {
        ConditionalWritesUnsupportedException e =
                assertThrows(ConditionalWritesUnsupportedException.class, () -> bucket.delete("orders/1", 5));

        assertThat(e.getMessage()).contains("DeleteObject", "If-Match", "wrong ETag", "orders/1");
        assertThat(requestsForKey("orders/1")).isZero();
    }

    @Test
    void multipartUploadIsRefusedOnAStoreThatIgnoresConditions() {
        ConditionalWritesUnsupportedException e = assertThrows(
                ConditionalWritesUnsupportedException.class, () -> bucket.startMultipartUpload("exports/big.csv", 5));

        assertThat(e.getMessage()).contains("CompleteMultipartUpload", "exports/big.csv");
        assertThat(requestsForKey("exports/big.csv")).isZero();
    }

    @Test
    void verifyConditionalWritesFailsFastAtStartup() {
        ConditionalWritesUnsupportedException e =
                assertThrows(ConditionalWritesUnsupportedException.class, bucket::verifyConditionalWrites);

        assertThat(e.bucket()).isEqualTo(BUCKET);
    }
}
