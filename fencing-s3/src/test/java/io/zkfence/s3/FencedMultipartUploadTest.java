package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.S3MockServer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

class FencedMultipartUploadTest extends S3MockTestBase {

    private static final int FIVE_MIB = 5 * 1024 * 1024;

    private static byte[] bytes(int size, char fill) {
        return String.valueOf(fill).repeat(size).getBytes();
    }

    private int openUploads() {
        return plain.listMultipartUploads(r -> r.bucket(bucketName)).uploads().size();
    }

    @Test
    void completedUploadStoresThePartsAndTheToken() {
        putPlain("export.csv", "old", Map.of("fence-token", "3"));

        FencedWrite write;
        try (FencedMultipartUpload upload =
                fencedBucket().startMultipartUpload("export.csv", 5, r -> r.contentType("text/csv"))) {
            upload.uploadPart(1, RequestBody.fromBytes(bytes(FIVE_MIB, 'a')));
            upload.uploadPart(2, RequestBody.fromString("tail"));
            write = upload.complete();
        }

        assertThat(write.token()).isEqualTo(5);
        assertThat(write.eTag()).isEqualTo(head("export.csv").eTag()).endsWith("-2\"");
        assertThat(storedToken("export.csv")).isEqualTo("5");
        assertThat(head("export.csv").contentType()).isEqualTo("text/csv");
        assertThat(head("export.csv").contentLength()).isEqualTo(FIVE_MIB + 4L);
        assertThat(openUploads()).isZero();
    }

    @Test
    void partsUploadedFromSeveralThreadsAreJoinedInPartNumberOrder() {
        try (FencedMultipartUpload upload = fencedBucket().startMultipartUpload("export.csv", 5)) {
            CompletableFuture<String> last =
                    CompletableFuture.supplyAsync(() -> upload.uploadPart(2, RequestBody.fromString("tail")));
            CompletableFuture<String> first = CompletableFuture.supplyAsync(
                    () -> upload.uploadPart(1, RequestBody.fromBytes(bytes(FIVE_MIB, 'a'))));
            CompletableFuture.allOf(first, last).join();

            upload.complete();
        }

        String content = contentOf("export.csv");
        assertThat(content).hasSize(FIVE_MIB + 4).startsWith("aaaa").endsWith("atail");
    }

    @Test
    void uploadCreatesAMissingObject() {
        try (FencedMultipartUpload upload = fencedBucket().startMultipartUpload("new.bin", 1)) {
            upload.uploadPart(1, RequestBody.fromString("only part"));
            upload.complete();
        }

        assertThat(contentOf("new.bin")).isEqualTo("only part");
        assertThat(storedToken("new.bin")).isEqualTo("1");
    }

    @Test
    void staleHolderCannotStartAnUpload() {
        putPlain("export.csv", "by 9", Map.of("fence-token", "9"));

        S3StaleTokenException e =
                assertThrows(S3StaleTokenException.class, () -> fencedBucket().startMultipartUpload("export.csv", 8));

        assertThat(e.getMessage()).contains("CreateMultipartUpload");
        assertThat(openUploads()).isZero();
        assertThat(contentOf("export.csv")).isEqualTo("by 9");
    }

    @Test
    void newerTokenWrittenDuringTheUploadMakesCompletionStaleWithoutAnAbortOnS3Mock() {
        putPlain("export.csv", "by 3", Map.of("fence-token", "3"));
        // S3Mock 5.2.0's AbortMultipartUpload also deletes the object at the key (real S3 leaves it
        // alone): the self-check learns that, and the fence then sends no abort at all.
        try (S3Client client = TestClients.s3(S3MockServer.endpoint(), log)) {
            FencedMultipartUpload upload =
                    FencedBucket.create(client, config().build()).startMultipartUpload("export.csv", 5);
            upload.uploadPart(1, RequestBody.fromString("stale data"));
            FencedBucket.create(plain, config().build()).put("export.csv", 6, RequestBody.fromString("by 6"));
            log.clear();

            S3StaleTokenException e = assertThrows(S3StaleTokenException.class, upload::complete);

            assertThat(e.presentedToken()).isEqualTo(5);
            assertThat(e.storedToken()).isEqualTo(6);
        }
        // the conditional completion (If-Match on the ETag seen at start) got 412, the re-read found token 6
        assertThat(log.requests()).containsExactly("CompleteMultipartUpload export.csv", "HeadObject export.csv");
        assertThat(contentOf("export.csv")).isEqualTo("by 6");
        assertThat(storedToken("export.csv")).isEqualTo("6");
        assertThat(openUploads()).isEqualTo(1);
    }

    @Test
    void completionThatLosesARaceToALowerTokenReReadsAndSucceeds() {
        putPlain("export.csv", "by 3", Map.of("fence-token", "3"));
        BeforeRequest olderHolderWrites = new BeforeRequest(
                "CompleteMultipartUpload",
                "export.csv",
                1,
                () -> putPlain("export.csv", "by 4", Map.of("fence-token", "4")));
        try (S3Client client = TestClients.s3(S3MockServer.endpoint(), log, olderHolderWrites);
                FencedMultipartUpload upload =
                        FencedBucket.create(client, config().build()).startMultipartUpload("export.csv", 5)) {
            upload.uploadPart(1, RequestBody.fromString("by 5"));
            log.clear();

            upload.complete();
        }

        // the first completion got 412 (the upload survives it), the re-read found token 4, the second won
        assertThat(log.requests())
                .containsExactly(
                        "CompleteMultipartUpload export.csv",
                        "HeadObject export.csv",
                        "CompleteMultipartUpload export.csv");
        assertThat(contentOf("export.csv")).isEqualTo("by 5");
        assertThat(storedToken("export.csv")).isEqualTo("5");
    }

    @Test
    void closingWithoutCompletingLeavesTheUploadToALifecycleRuleOnAStoreWhoseAbortDeletesObjects() {
        putPlain("export.csv", "by 6", Map.of("fence-token", "6"));
        try (FencedMultipartUpload upload = fencedBucket().startMultipartUpload("export.csv", 6)) {
            upload.uploadPart(1, RequestBody.fromString("never completed"));
            assertThat(openUploads()).isEqualTo(1);
        }

        // S3Mock's abort would delete the object at the key: the fence sends none
        assertThat(openUploads()).isEqualTo(1);
        assertThat(contentOf("export.csv")).isEqualTo("by 6");
    }

    @Test
    void completingWithoutPartsIsRefused() {
        try (FencedMultipartUpload upload = fencedBucket().startMultipartUpload("export.csv", 5)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, upload::complete);
            assertThat(e.getMessage()).contains("no part", bucketName, "export.csv");
        }
    }

    @Test
    void completedUploadCannotTakeMoreParts() {
        FencedMultipartUpload upload = fencedBucket().startMultipartUpload("export.csv", 5);
        upload.uploadPart(1, RequestBody.fromString("x"));
        upload.complete();

        assertThrows(IllegalStateException.class, () -> upload.uploadPart(2, RequestBody.fromString("y")));
        assertThrows(IllegalStateException.class, upload::complete);
    }
}
