package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** A body that can be read only once is refused with a fencing exception naming the key. */
class OneShotBodyTest extends S3MockTestBase {

    private static RequestBody oneShot(String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        // no mark/reset: the stream can be read exactly once
        return RequestBody.fromInputStream(
                new FilterInputStream(new ByteArrayInputStream(bytes)) {
                    @Override
                    public boolean markSupported() {
                        return false;
                    }
                },
                bytes.length);
    }

    @Test
    void oneShotBodyOverAnExistingObjectIsAFenceExceptionNamingTheKey() {
        putPlain("orders/1", "old", Map.of("fence-token", "3"));

        S3FenceException e =
                assertThrows(S3FenceException.class, () -> fencedBucket().put("orders/1", 4, oneShot("new")));

        assertThat(e.key()).isEqualTo("orders/1");
        assertThat(e.getMessage()).contains(bucketName, "orders/1", "re-readable");
        assertThat(contentOf("orders/1")).isEqualTo("old");
        assertThat(storedToken("orders/1")).isEqualTo("3");
    }
}
