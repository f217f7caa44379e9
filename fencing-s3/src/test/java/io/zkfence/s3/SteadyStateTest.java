package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** Counts the HTTP requests each path sends, through an SDK execution interceptor. */
class SteadyStateTest extends S3MockTestBase {

    @Test
    void rewriteByTheLastWriterSendsExactlyOneConditionalPut() {
        FencedBucket bucket = fencedBucket();
        bucket.put("counter", 3, RequestBody.fromString("1"));
        log.clear();

        bucket.put("counter", 3, RequestBody.fromString("2"));
        bucket.put("counter", 4, RequestBody.fromString("3"));

        assertThat(log.requests()).containsExactly("PutObject counter", "PutObject counter");
        assertThat(contentOf("counter")).isEqualTo("3");
    }

    @Test
    void firstWriteOfAKeyReadsItOnceThenPuts() {
        FencedBucket bucket = fencedBucket();
        bucket.put("warm-up", 1, RequestBody.fromString("x")); // self-check happens here
        log.clear();

        bucket.put("counter", 3, RequestBody.fromString("1"));

        assertThat(log.requests()).containsExactly("HeadObject counter", "PutObject counter");
    }

    @Test
    void withTheCacheDisabledEveryWriteReadsFirst() {
        FencedBucket bucket =
                FencedBucket.create(fencedClient, config().etagCacheSize(0).build());
        bucket.put("counter", 3, RequestBody.fromString("1"));
        log.clear();

        bucket.put("counter", 3, RequestBody.fromString("2"));

        assertThat(log.requests()).containsExactly("HeadObject counter", "PutObject counter");
    }

    @Test
    void rewritingUnchangedBytesAgainReadsFirstAndSendsAOnePartUpload() {
        FencedBucket bucket = fencedBucket();
        bucket.put("heartbeat", 3, RequestBody.fromString("state=ok"));
        bucket.put("heartbeat", 3, RequestBody.fromString("state=ok")); // one-part ETag: not cached
        log.clear();

        bucket.put("heartbeat", 4, RequestBody.fromString("state=ok"));

        assertThat(log.requests())
                .containsExactly(
                        "HeadObject heartbeat",
                        "CreateMultipartUpload heartbeat",
                        "UploadPart heartbeat",
                        "CompleteMultipartUpload heartbeat");
        assertThat(head("heartbeat").eTag()).endsWith("-1\"");
    }

    @Test
    void deleteAfterOwnWriteSendsExactlyOneConditionalDelete() {
        FencedBucket bucket = fencedBucket();
        bucket.put("counter", 3, RequestBody.fromString("1"));
        bucket.verifyConditionalWrites();
        log.clear();

        assertThat(bucket.delete("counter", 3)).isTrue();

        assertThat(log.requests()).containsExactly("DeleteObject counter");
    }

    @Test
    void selfCheckRunsOncePerBucketBeforeTheFirstFencedWrite() {
        FencedBucket bucket = fencedBucket();

        bucket.put("a", 1, RequestBody.fromString("x"));
        assertThat(log.requests())
                .filteredOn(r -> r.contains(S3FenceConfig.DEFAULT_SELF_CHECK_KEY_PREFIX))
                // create probe, If-None-Match over it, If-Match wrong ETag on it, If-Match on a missing key, delete it
                .hasSize(5)
                .allMatch(r -> r.startsWith("PutObject") || r.startsWith("DeleteObject"));
        assertThat(log.requests()).endsWith("HeadObject a", "PutObject a");
        log.clear();

        bucket.put("b", 1, RequestBody.fromString("y"));

        assertThat(log.requests()).containsExactly("HeadObject b", "PutObject b");
        assertThat(plain.listObjectsV2(r -> r.bucket(bucketName)).contents())
                .extracting(o -> o.key())
                .containsExactlyInAnyOrder("a", "b"); // probes cleaned up
    }
}
