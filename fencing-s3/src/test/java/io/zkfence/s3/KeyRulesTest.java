package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;

/** Every key the fence accepts round-trips exactly; the others are refused before any request. */
class KeyRulesTest extends S3MockTestBase {

    static List<String> oddKeys() {
        return List.of(
                "ä/ö ü",
                "emoji 😀 key",
                "a+b=c&d?e#f",
                "sp ace",
                "percent%20sign",
                "tab\tkey",
                "trailing/",
                "semi;colon,comma",
                "𝄞".repeat(256),
                "x".repeat(1024),
                "日本語/キー",
                "quote\"'`");
    }

    @ParameterizedTest
    @MethodSource("oddKeys")
    void acceptedKeyRoundTripsExactly(String key) {
        FencedBucket bucket = fencedBucket();

        bucket.put(key, 3, RequestBody.fromString("v3"));

        assertThat(plain.listObjectsV2(r -> r.bucket(bucketName)).contents())
                .extracting(o -> o.key())
                .containsExactly(key);
        assertThat(bucket.read(key))
                .hasValueSatisfying(o -> assertThat(o.token()).hasValue(3));
        assertThat(bucket.token(key)).hasValue(3);
        assertThat(bucket.delete(key, 3)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"x\uD800", "\uDC00y", "a\uDC00\uD800b", "nul\0key", ""})
    void keyOutsideTheRulesIsRefusedBeforeAnyRequest(String key) {
        FencedBucket bucket = fencedBucket();

        IllegalArgumentException put =
                assertThrows(IllegalArgumentException.class, () -> bucket.put(key, 1, RequestBody.fromString("x")));
        assertThrows(IllegalArgumentException.class, () -> bucket.delete(key, 1));
        assertThrows(IllegalArgumentException.class, () -> bucket.token(key));
        assertThrows(IllegalArgumentException.class, () -> bucket.read(key));
        assertThrows(IllegalArgumentException.class, () -> bucket.startMultipartUpload(key, 1));

        assertThat(put.getMessage()).contains("key must", bucketName);
        assertThat(log.requests()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"x\uD800", "nul\0key"})
    void refusalNamesTheRule(String key) {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> fencedBucket().put(key, 1, RequestBody.fromString("x")));

        assertThat(e.getMessage()).containsAnyOf("unpaired surrogate", "NUL");
    }

    @org.junit.jupiter.api.Test
    void keyOverTenTwentyFourUtf8BytesIsRefusedEvenWhenShortInCharacters() {
        String key = "ä".repeat(513); // 513 characters, 1026 bytes

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> fencedBucket().put(key, 1, RequestBody.fromString("x")));

        assertThat(e.getMessage()).contains("1024 bytes in UTF-8", "1026");
        assertThat(log.requests()).isEmpty();
    }
}
