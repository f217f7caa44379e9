package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

class ReadTest extends S3MockTestBase {

    @Test
    void readReturnsTheBytesAndTheTokenOfTheWriter() {
        FencedBucket bucket = fencedBucket();
        FencedWrite write =
                bucket.put("report.txt", 42, RequestBody.fromString("numbers"), r -> r.contentType("text/plain"));

        FencedObject object = bucket.read("report.txt").orElseThrow();

        assertThat(object.token()).hasValue(42);
        assertThat(object.asUtf8String()).isEqualTo("numbers");
        assertThat(object.contentLength()).isEqualTo(7);
        assertThat(object.eTag()).isEqualTo(write.eTag());
        assertThat(object.contentType()).contains("text/plain");
        assertThat(object.bucket()).isEqualTo(bucketName);
        assertThat(object.key()).isEqualTo("report.txt");
    }

    @Test
    void readOfAMissingKeyIsEmpty() {
        assertThat(fencedBucket().read("nothing-here")).isEqualTo(Optional.empty());
    }

    @Test
    void objectWrittenWithoutTheFenceHasNoToken() {
        putPlain("legacy.txt", "old", Map.of("author", "cron"));

        FencedObject object = fencedBucket().read("legacy.txt").orElseThrow();

        assertThat(object.token()).isEmpty();
        assertThat(object.metadata()).containsEntry("author", "cron");
    }

    @Test
    void tokenReadsOnlyTheToken() {
        FencedBucket bucket = fencedBucket();
        bucket.put("report.txt", 42, RequestBody.fromString("numbers"));
        log.clear();

        assertThat(bucket.token("report.txt")).hasValue(42);
        assertThat(bucket.token("nothing-here")).isEqualTo(OptionalLong.empty());
        // no object: one HeadBucket tells a missing key from a missing bucket (HEAD answers 404 for both)
        assertThat(log.requests()).containsExactly("HeadObject report.txt", "HeadObject nothing-here", "HeadBucket");
    }
}
