package io.zkfence.azure.blob;

import java.util.Objects;
import java.util.Optional;

/**
 * A fenced write the service accepted: the blob now carries {@code token} and has ETag
 * {@code eTag}.
 *
 * @param container the container written to
 * @param blobName the blob written
 * @param token the fencing token now stored with the blob
 * @param eTag the blob's new ETag, as the service returned it
 * @param versionId the new version's id when the account keeps versions, empty otherwise
 */
public record FencedBlobWrite(String container, String blobName, long token, String eTag, Optional<String> versionId) {

    /**
     * Checks the parts.
     *
     * @param container the container
     * @param blobName the blob
     * @param token the token
     * @param eTag the ETag
     * @param versionId the version id
     */
    public FencedBlobWrite {
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(blobName, "blobName");
        Objects.requireNonNull(versionId, "versionId");
    }
}
