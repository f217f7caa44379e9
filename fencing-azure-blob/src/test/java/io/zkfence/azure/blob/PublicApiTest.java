package io.zkfence.azure.blob;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import io.zkfence.testing.PublicApi;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The module's public surface is deliberate, small, unchecked and shares fencing-api's exceptions. */
class PublicApiTest {

    private static final List<Class<?>> PUBLIC_TYPES = List.of(
            FencedContainer.class,
            AzureBlobFenceConfig.class,
            FencedBlobWrite.class,
            FencedBlob.class,
            AzureBlobFenceException.class,
            AzureBlobStaleTokenException.class,
            AzureBlobContentionException.class,
            AzureBlobConditionsIgnoredException.class);

    @Test
    void thePackageExposesOnlyTheListedTypes() {
        assertThat(PublicApi.publicTypesOf(FencedContainer.class)).containsExactlyInAnyOrderElementsOf(PUBLIC_TYPES);
    }

    @Test
    void noPublicMethodOrConstructorDeclaresACheckedException() {
        assertThat(PublicApi.declaringCheckedExceptions(PUBLIC_TYPES)).isEmpty();
    }

    @Test
    void everyExceptionIsAFencingExceptionAndTheStaleOneTheSharedType() {
        assertThat(PUBLIC_TYPES.stream().filter(Throwable.class::isAssignableFrom))
                .allMatch(FencingException.class::isAssignableFrom, "is a FencingException");
        assertThat(StaleTokenException.class).isAssignableFrom(AzureBlobStaleTokenException.class);
        assertThat(AzureBlobFenceException.class.isAssignableFrom(AzureBlobStaleTokenException.class))
                .isFalse();
    }
}
