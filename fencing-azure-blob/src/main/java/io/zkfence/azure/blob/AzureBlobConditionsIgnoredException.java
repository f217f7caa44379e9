package io.zkfence.azure.blob;

import java.io.Serial;

/**
 * The service does not enforce conditional requests ({@code If-Match}, {@code If-None-Match}), so
 * fencing cannot work on it and the fence refuses to write. Found by the self-check, which sends
 * probe requests whose precondition must fail (a put with {@code If-Match} on a wrong ETag, ...)
 * before the first fenced request of each kind; a proxy or emulator that drops the headers would
 * otherwise let stale writers through silently. The verdict is remembered per
 * {@link FencedContainer}. Nothing was written to the blob named.
 */
public final class AzureBlobConditionsIgnoredException extends AzureBlobFenceException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String probeBlob;

    AzureBlobConditionsIgnoredException(String container, String blobName, String probeBlob, String finding) {
        super(
                container,
                blobName,
                0,
                null,
                false,
                "container '" + container + "' does not enforce conditional requests: " + finding + " (probe blob '"
                        + probeBlob + "'). Fencing cannot work on this service, so nothing was written to "
                        + location(container, blobName),
                null);
        this.probeBlob = probeBlob;
    }

    /**
     * The blob the self-check probed with.
     *
     * @return the probe blob's name
     */
    public String probeBlob() {
        return probeBlob;
    }
}
