package io.zkfence.azure.blob;

import io.zkfence.fencing.StaleTokenException;
import java.io.Serial;

/**
 * The blob already carries a fencing token higher than the one presented: the caller's lock grant
 * has been superseded, so the write or delete was refused and nothing was changed. Stop acting on
 * the lock; do not retry with this token.
 *
 * <p>It extends the shared {@link StaleTokenException}: {@link #resource()} is the
 * {@code azure-blob://container/blob} location, {@link #storedToken()} the higher token. It does
 * not extend {@link AzureBlobFenceException}: catch {@link io.zkfence.fencing.FencingException}
 * for both.
 */
public final class AzureBlobStaleTokenException extends StaleTokenException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String container;
    private final String blobName;

    AzureBlobStaleTokenException(
            String container, String blobName, String operation, long presented, long stored, boolean blobGone) {
        super(
                operation + " on " + AzureBlobFenceException.location(container, blobName)
                        + " refused: stale fencing token " + presented
                        + (blobGone
                                ? "; the blob is gone but this fence saw it carry token " + stored
                                        + " (a lower token may not re-create it)"
                                : ", the blob already carries token " + stored
                                        + " (a token lower than the stored one is rejected)")
                        + "; nothing was written",
                AzureBlobFenceException.location(container, blobName),
                presented,
                stored);
        this.container = container;
        this.blobName = blobName;
    }

    /**
     * The container of the refused call.
     *
     * @return the container name
     */
    public String container() {
        return container;
    }

    /**
     * The blob of the refused call.
     *
     * @return the blob name
     */
    public String blobName() {
        return blobName;
    }
}
