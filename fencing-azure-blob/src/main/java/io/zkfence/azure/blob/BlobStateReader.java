package io.zkfence.azure.blob;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobStorageException;
import io.zkfence.fencing.internal.ObjectState;
import io.zkfence.fencing.internal.StateCache;

/** Reads a blob's current ETag and token with one Get Blob Properties request, and remembers what it saw. */
final class BlobStateReader {

    private final BlobContainerClient container;
    private final String containerName;
    private final TokenMetadata tokens;
    private final StateCache cache;

    BlobStateReader(BlobContainerClient container, TokenMetadata tokens, StateCache cache) {
        this.container = container;
        this.containerName = container.getBlobContainerName();
        this.tokens = tokens;
        this.cache = cache;
    }

    /** The blob's state now; a missing container is an error, a missing blob is absent. */
    ObjectState read(String blobName) {
        BlobProperties properties;
        try {
            properties = container.getBlobClient(blobName).getProperties();
        } catch (RuntimeException e) {
            if (e instanceof BlobStorageException s
                    && s.getStatusCode() == 404
                    && !"ContainerNotFound".equals(AzureErrors.code(s))) {
                cache.forget(blobName);
                return ObjectState.absent();
            }
            if (!AzureErrors.isStoreFailure(e)) {
                throw e;
            }
            throw AzureErrors.translate(e, containerName, blobName, "GetBlobProperties", false);
        }
        if (properties.getETag() == null || properties.getETag().isEmpty()) {
            // Without an ETag there is nothing to compare-and-set on: fail closed, never write.
            throw new AzureBlobFenceException(
                    containerName,
                    blobName,
                    200,
                    null,
                    false,
                    "the service answered GetBlobProperties on "
                            + AzureBlobFenceException.location(containerName, blobName)
                            + " without an ETag; conditional writes need one, so the fence cannot work with this"
                            + " service or proxy; nothing was written",
                    null);
        }
        ObjectState state = ObjectState.present(properties.getETag(), tokens.parse(blobName, properties.getMetadata()));
        cache.remember(blobName, state);
        return state;
    }
}
