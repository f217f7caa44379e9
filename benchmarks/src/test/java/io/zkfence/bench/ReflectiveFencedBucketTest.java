package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.FencingException;
import io.zkfence.s3.FencedBucket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** {@code ./bench-ab --fencing-s3}'s builds side by side: each its own classes, all fencing one bucket alike. */
class ReflectiveFencedBucketTest {

    @Test
    void aBuildLoadedFromItsOwnClassesIsIsolatedAndFencesTheSameObjects() throws Exception {
        Path s3Classes = location(FencedBucket.class);
        Path apiClasses = location(FencingException.class);
        ReflectiveFencedBucket isolated = ReflectiveFencedBucket.fromJars("isolated", List.of(s3Classes, apiClasses));
        ReflectiveFencedBucket current = ReflectiveFencedBucket.current();
        assertThat(isolated.bucketClass()).isNotSameAs(FencedBucket.class);
        assertThat(isolated.bucketClass().getName()).isEqualTo(FencedBucket.class.getName());
        assertThat(current.bucketClass()).isSameAs(FencedBucket.class);

        try (S3MockServer s3mock = S3MockServer.start();
                S3Client a = s3mock.client();
                S3Client b = s3mock.client()) {
            a.createBucket(r -> r.bucket("bench-ab"));
            ReflectiveFencedBucket.Put isolatedPut = isolated.open(a, "bench-ab");
            ReflectiveFencedBucket.Put currentPut = current.open(b, "bench-ab");
            currentPut.put("shared", 8, RequestBody.fromString("newer"));
            // The isolated build's own exception type: not this class path's, but a RuntimeException.
            RuntimeException stale = assertThrows(
                    RuntimeException.class, () -> isolatedPut.put("shared", 7, RequestBody.fromString("older")));
            assertThat(stale.getClass().getName()).isEqualTo("io.zkfence.s3.S3StaleTokenException");
            assertThat(stale).isNotInstanceOf(FencingException.class);
            isolatedPut.put("shared", 9, RequestBody.fromString("newest"));
            assertThat(a.getObjectAsBytes(r -> r.bucket("bench-ab").key("shared"))
                            .asUtf8String())
                    .isEqualTo("newest");
        }
    }

    private static Path location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
