package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.FencingException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** A stale token at the object store is the shared {@code io.zkfence.fencing} type, fully populated. */
class SharedStaleTokenTest extends S3MockTestBase {

    @Test
    void aStalePutIsCaughtAsTheSharedStaleTokenExceptionWithResourceAndBothTokens() {
        fencedBucket().put("orders/1", 9, RequestBody.fromString("from holder 9"));

        io.zkfence.fencing.StaleTokenException e = assertThrows(
                io.zkfence.fencing.StaleTokenException.class,
                () -> fencedBucket().put("orders/1", 8, RequestBody.fromString("from holder 8")));

        assertThat(e).isInstanceOf(StaleTokenException.class);
        assertThat(e.resource()).isEqualTo("s3://" + bucketName + "/orders/1");
        assertThat(e.presentedToken()).isEqualTo(8);
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(contentOf("orders/1")).isEqualTo("from holder 9");
    }

    @Test
    void theModuleBaseAndTheStaleExceptionShareTheFencingBaseButNotEachOther() {
        assertThat(FencingException.class).isAssignableFrom(FenceException.class);
        assertThat(FencingException.class).isAssignableFrom(StaleTokenException.class);
        assertThat(FenceException.class.isAssignableFrom(StaleTokenException.class))
                .isFalse();
    }
}
