package io.zkfence.azure.blob;

import java.io.Serial;

/**
 * Every conditional attempt lost a race against concurrent writes carrying an equal or lower
 * token, and {@link AzureBlobFenceConfig#maxConflictRetries()} is used up. Nothing was written by
 * the call; it is safe to retry. Writers holding one lock grant (equal tokens) on several threads
 * or processes cause it; a newer grant winning the race is an {@link AzureBlobStaleTokenException}
 * instead.
 */
public final class AzureBlobContentionException extends AzureBlobFenceException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final long token;
    private final int attempts;

    AzureBlobContentionException(
            String container,
            String blobName,
            String operation,
            long token,
            int attempts,
            String detail,
            Throwable cause) {
        super(
                container,
                blobName,
                0,
                null,
                false,
                operation + " on " + location(container, blobName) + " with token " + token + " gave up after "
                        + attempts + " conditional attempt(s): " + detail + "; nothing was written",
                cause);
        this.token = token;
        this.attempts = attempts;
    }

    /**
     * The token the caller presented.
     *
     * @return the token
     */
    public long token() {
        return token;
    }

    /**
     * How many conditional requests were sent before giving up.
     *
     * @return the count
     */
    public int attempts() {
        return attempts;
    }
}
