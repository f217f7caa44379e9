package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

class FencedDeleteTest extends S3MockTestBase {

    @Test
    void deleteWithNewerTokenRemovesTheObject() {
        putPlain("lease.json", "held", Map.of("fence-token", "4"));

        assertThat(fencedBucket().delete("lease.json", 6)).isTrue();

        assertThrows(NoSuchKeyException.class, () -> head("lease.json"));
    }

    @Test
    void deleteWithEqualTokenRemovesTheObject() {
        FencedBucket bucket = fencedBucket();
        bucket.put("lease.json", 6, RequestBody.fromString("held"));

        assertThat(bucket.delete("lease.json", 6)).isTrue();

        assertThrows(NoSuchKeyException.class, () -> head("lease.json"));
    }

    @Test
    void staleTokenDeleteIsRejectedAndTheObjectStays() {
        putPlain("lease.json", "held by 9", Map.of("fence-token", "9"));

        S3StaleTokenException e =
                assertThrows(S3StaleTokenException.class, () -> fencedBucket().delete("lease.json", 8));

        assertThat(e.getMessage()).contains("DeleteObject", bucketName, "lease.json");
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(contentOf("lease.json")).isEqualTo("held by 9");
    }

    @Test
    void staleDeleterHoldingAnOldEtagIsRejectedAfterReRead() {
        FencedBucket paused = fencedBucket();
        paused.put("lease.json", 5, RequestBody.fromString("v5"));
        paused.verifyConditionalWrites();
        FencedBucket.create(plain, config().build()).put("lease.json", 7, RequestBody.fromString("v7"));
        log.clear();

        assertThrows(S3StaleTokenException.class, () -> paused.delete("lease.json", 5));

        assertThat(log.requests()).containsExactly("DeleteObject lease.json", "HeadObject lease.json");
        assertThat(contentOf("lease.json")).isEqualTo("v7");
    }

    @Test
    void deletingAMissingKeyReportsNothingDeleted() {
        assertThat(fencedBucket().delete("never-written", 1)).isFalse();
    }

    @Test
    void aLowerTokenCannotRecreateAKeyThisFenceDeletedWithAHigherOne() {
        FencedBucket bucket = fencedBucket();
        bucket.put("lease.json", 9, RequestBody.fromString("v9"));
        bucket.delete("lease.json", 9);

        S3StaleTokenException e = assertThrows(
                S3StaleTokenException.class, () -> bucket.put("lease.json", 2, RequestBody.fromString("v2")));

        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(plain.listObjectsV2(r -> r.bucket(bucketName)).contents()).isEmpty();
    }

    @Test
    void afterADeleteAFenceThatNeverSawTheKeyStartsItOverWithoutAToken() {
        FencedBucket bucket = fencedBucket();
        bucket.put("lease.json", 9, RequestBody.fromString("v9"));
        bucket.delete("lease.json", 9);

        // documented: the store keeps no token for a deleted key; only a fence that saw it remembers
        fencedBucket().put("lease.json", 2, RequestBody.fromString("v2"));

        assertThat(storedToken("lease.json")).isEqualTo("2");
    }
}
