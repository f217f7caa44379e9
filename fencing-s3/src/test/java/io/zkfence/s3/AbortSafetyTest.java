package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * S3Mock 5.2.0's AbortMultipartUpload also deletes the object at the key. A stale holder's calls
 * must never remove or replace the newer holder's object there, whatever they go through.
 */
class AbortSafetyTest extends S3MockTestBase {

    @Test
    void selfCheckLearnsThatAnAbortRemovesACommittedObjectOnS3Mock() {
        SelfCheck check = new SelfCheck(plain, bucketName, S3FenceConfig.DEFAULT_SELF_CHECK_KEY_PREFIX);

        check.ensure(SelfCheck.Kind.COMPLETE_MULTIPART, "any");

        assertThat(check.abortMayRemoveObjects()).isTrue();
    }

    @Test
    void staleCompletionLeavesTheNewerHoldersObjectInPlace() {
        putPlain("export.csv", "by 3", Map.of("fence-token", "3"));
        FencedBucket stale = fencedBucket();
        FencedMultipartUpload upload = stale.startMultipartUpload("export.csv", 5);
        upload.uploadPart(1, RequestBody.fromString("stale data"));
        FencedBucket.create(plain, config().build()).put("export.csv", 6, RequestBody.fromString("by 6"));

        assertThrows(S3StaleTokenException.class, upload::complete);
        upload.close();

        assertThat(contentOf("export.csv")).isEqualTo("by 6");
        assertThat(storedToken("export.csv")).isEqualTo("6");
    }

    @Test
    void staleHolderRetryingAfterAStaleCompletionCannotCreateTheKey() {
        putPlain("export.csv", "by 3", Map.of("fence-token", "3"));
        FencedBucket stale = fencedBucket();
        FencedMultipartUpload upload = stale.startMultipartUpload("export.csv", 5);
        upload.uploadPart(1, RequestBody.fromString("stale data"));
        FencedBucket.create(plain, config().build()).put("export.csv", 6, RequestBody.fromString("by 6"));
        assertThrows(S3StaleTokenException.class, upload::complete);

        S3StaleTokenException e = assertThrows(
                S3StaleTokenException.class, () -> stale.put("export.csv", 5, RequestBody.fromString("stale retry")));

        assertThat(e.storedToken()).isEqualTo(6);
        assertThat(contentOf("export.csv")).isEqualTo("by 6");
        assertThat(storedToken("export.csv")).isEqualTo("6");
    }

    @Test
    void staleHolderResendingBytesItHoldsTheEtagOfDoesNotRemoveTheNewerObject() {
        FencedBucket stale = fencedBucket();
        stale.put("report.txt", 5, RequestBody.fromString("same bytes"));
        FencedBucket.create(plain, config().build()).put("report.txt", 6, RequestBody.fromString("same bytes"));

        S3StaleTokenException e = assertThrows(
                S3StaleTokenException.class, () -> stale.put("report.txt", 5, RequestBody.fromString("same bytes")));

        assertThat(e.storedToken()).isEqualTo(6);
        assertThat(contentOf("report.txt")).isEqualTo("same bytes");
        assertThat(storedToken("report.txt")).isEqualTo("6");
    }

    @Test
    void staleWriterCannotRecreateAnObjectItSawAHigherTokenOn() {
        FencedBucket stale = fencedBucket();
        putPlain("report.txt", "by 6", Map.of("fence-token", "6"));
        assertThat(stale.token("report.txt")).hasValue(6);
        plain.deleteObject(r -> r.bucket(bucketName).key("report.txt"));

        S3StaleTokenException e = assertThrows(
                S3StaleTokenException.class, () -> stale.put("report.txt", 5, RequestBody.fromString("stale")));

        assertThat(e.storedToken()).isEqualTo(6);
        assertThat(plain.listObjectsV2(r -> r.bucket(bucketName)).contents()).isEmpty();
    }

    @Test
    void staleHolderCannotStartAnUploadOnAKeyWhoseNewerObjectIsGone() {
        FencedBucket stale = fencedBucket();
        FencedBucket.create(plain, config().build()).put("export.csv", 6, RequestBody.fromString("by 6"));
        assertThat(stale.token("export.csv")).hasValue(6);
        plain.deleteObject(r -> r.bucket(bucketName).key("export.csv"));

        assertThrows(S3StaleTokenException.class, () -> stale.startMultipartUpload("export.csv", 5));

        assertThat(plain.listMultipartUploads(r -> r.bucket(bucketName)).uploads())
                .isEmpty();
    }
}
