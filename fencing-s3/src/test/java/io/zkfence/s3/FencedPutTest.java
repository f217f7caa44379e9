package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

class FencedPutTest extends S3MockTestBase {

    @Test
    void firstWriteCreatesTheObjectWithItsToken() {
        FencedBucket bucket = fencedBucket();

        FencedWrite write = bucket.put("orders/1", 7, RequestBody.fromString("v1"));

        assertThat(write.token()).isEqualTo(7);
        assertThat(write.eTag()).isEqualTo(head("orders/1").eTag());
        assertThat(contentOf("orders/1")).isEqualTo("v1");
        assertThat(storedToken("orders/1")).isEqualTo("7");
    }

    @Test
    void newerTokenOverwrites() {
        FencedBucket bucket = fencedBucket();
        bucket.put("orders/1", 7, RequestBody.fromString("v1"));

        bucket.put("orders/1", 9, RequestBody.fromString("v2"));

        assertThat(contentOf("orders/1")).isEqualTo("v2");
        assertThat(storedToken("orders/1")).isEqualTo("9");
    }

    @Test
    void equalTokenOverwrites() {
        FencedBucket bucket = fencedBucket();
        bucket.put("orders/1", 7, RequestBody.fromString("v1"));

        bucket.put("orders/1", 7, RequestBody.fromString("v2"));

        assertThat(contentOf("orders/1")).isEqualTo("v2");
        assertThat(storedToken("orders/1")).isEqualTo("7");
    }

    @Test
    void staleTokenWriteIsRejectedAndTheObjectIsUnchanged() {
        FencedBucket bucket = fencedBucket();
        FencedWrite newer = bucket.put("orders/1", 9, RequestBody.fromString("from holder 9"));

        S3StaleTokenException e = assertThrows(
                S3StaleTokenException.class,
                () -> fencedBucket().put("orders/1", 8, RequestBody.fromString("from holder 8")));

        assertThat(e.bucket()).isEqualTo(bucketName);
        assertThat(e.key()).isEqualTo("orders/1");
        assertThat(e.presentedToken()).isEqualTo(8);
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(e.getMessage()).contains(bucketName, "orders/1", "8", "9");
        assertThat(contentOf("orders/1")).isEqualTo("from holder 9");
        assertThat(head("orders/1").eTag()).isEqualTo(newer.eTag());
    }

    @Test
    void staleTokenIsRejectedByTheWriterThatCachedTheNewerState() {
        FencedBucket bucket = fencedBucket();
        bucket.put("orders/1", 9, RequestBody.fromString("from holder 9"));

        assertThrows(S3StaleTokenException.class, () -> bucket.put("orders/1", 3, RequestBody.fromString("old")));

        assertThat(contentOf("orders/1")).isEqualTo("from holder 9");
        assertThat(storedToken("orders/1")).isEqualTo("9");
    }

    @Test
    void objectWrittenWithoutTheFenceIsAdoptedByTheFirstFencedWrite() {
        putPlain("legacy", "unfenced", Map.of());

        fencedBucket().put("legacy", 1, RequestBody.fromString("fenced"));

        assertThat(contentOf("legacy")).isEqualTo("fenced");
        assertThat(storedToken("legacy")).isEqualTo("1");
    }

    @Test
    void callerHeadersAndMetadataTravelWithTheToken() {
        fencedBucket()
                .put(
                        "report.json",
                        4,
                        RequestBody.fromString("{}"),
                        r -> r.contentType("application/json").metadata(Map.of("author", "job-17")));

        assertThat(head("report.json").contentType()).isEqualTo("application/json");
        assertThat(head("report.json").metadata())
                .containsEntry("author", "job-17")
                .containsEntry("fence-token", "4");
    }

    @Test
    void customTokenMetadataKeyIsUsed() {
        FencedBucket bucket = FencedBucket.create(
                fencedClient, config().tokenMetadataKey("lock-epoch").build());

        bucket.put("k", 12, RequestBody.fromString("x"));

        assertThat(head("k").metadata()).containsEntry("lock-epoch", "12").doesNotContainKey("fence-token");
        assertThrows(S3StaleTokenException.class, () -> bucket.put("k", 11, RequestBody.fromString("y")));
    }
}
