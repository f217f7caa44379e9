package io.zkfence.s3;

import io.zkfence.testing.S3MockServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Base of the tests against S3Mock: each test gets its own fresh bucket, a plain client (the
 * "other" writers and the test's own eyes) and a request log on the fenced client.
 */
@ExtendWith(S3MockServer.class)
abstract class S3MockTestBase {

    private static final AtomicInteger BUCKETS = new AtomicInteger();

    protected String bucketName;
    protected S3Client plain;
    protected RequestLog log;
    protected S3Client fencedClient;

    @BeforeEach
    void createBucket() {
        bucketName = "fence-test-" + BUCKETS.incrementAndGet() + "-"
                + ProcessHandle.current().pid();
        plain = TestClients.s3(S3MockServer.endpoint());
        plain.createBucket(b -> b.bucket(bucketName));
        log = new RequestLog();
        fencedClient = TestClients.s3(S3MockServer.endpoint(), log);
    }

    @AfterEach
    void closeClients() {
        fencedClient.close();
        plain.close();
    }

    /** A fenced bucket with test-friendly backoff (1 ms base) on the logged client. */
    protected FencedBucket fencedBucket() {
        return FencedBucket.create(fencedClient, config().build());
    }

    protected S3FenceConfig.Builder config() {
        return S3FenceConfig.builder(bucketName)
                .backoffBase(Duration.ofMillis(1))
                .backoffMax(Duration.ofMillis(20));
    }

    /** Writes an object directly, bypassing the fence (as a foreign or misbehaving writer would). */
    protected void putPlain(String key, String content, Map<String, String> metadata) {
        plain.putObject(b -> b.bucket(bucketName).key(key).metadata(metadata), RequestBody.fromString(content));
    }

    protected String contentOf(String key) {
        return plain.getObjectAsBytes(b -> b.bucket(bucketName).key(key)).asUtf8String();
    }

    protected HeadObjectResponse head(String key) {
        return plain.headObject(b -> b.bucket(bucketName).key(key));
    }

    protected String storedToken(String key) {
        return head(key).metadata().get(S3FenceConfig.DEFAULT_TOKEN_METADATA_KEY);
    }
}
