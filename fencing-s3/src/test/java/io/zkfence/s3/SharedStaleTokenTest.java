package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import io.zkfence.testing.PublicApi;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/** A stale token at the object store is the shared {@code io.zkfence.fencing} type, fully populated. */
class SharedStaleTokenTest extends S3MockTestBase {

    @Test
    void aStalePutIsCaughtAsTheSharedStaleTokenExceptionWithResourceAndBothTokens() {
        fencedBucket().put("orders/1", 9, RequestBody.fromString("from holder 9"));

        StaleTokenException e = assertThrows(
                StaleTokenException.class,
                () -> fencedBucket().put("orders/1", 8, RequestBody.fromString("from holder 8")));

        assertThat(e).isInstanceOf(S3StaleTokenException.class);
        assertThat(e.resource()).isEqualTo("s3://" + bucketName + "/orders/1");
        assertThat(e.presentedToken()).isEqualTo(8);
        assertThat(e.storedToken()).isEqualTo(9);
        assertThat(contentOf("orders/1")).isEqualTo("from holder 9");
    }

    @Test
    void oneCatchOfTheSharedBaseHandlesEveryExceptionTheModuleDeclares() {
        List<Class<?>> exceptions = PublicApi.publicTypesOf(FencedBucket.class).stream()
                .filter(Throwable.class::isAssignableFrom)
                .toList();

        assertThat(exceptions).contains(S3FenceException.class, S3StaleTokenException.class);
        assertThat(exceptions).allMatch(FencingException.class::isAssignableFrom, "is a FencingException");
    }

    @Test
    void theModuleBaseAndTheStaleExceptionShareTheFencingBaseButNotEachOther() {
        assertThat(FencingException.class).isAssignableFrom(S3FenceException.class);
        assertThat(FencingException.class).isAssignableFrom(S3StaleTokenException.class);
        assertThat(S3FenceException.class.isAssignableFrom(S3StaleTokenException.class))
                .isFalse();
    }
}
