package io.zkfence.azure.blob;

import io.zkfence.fencing.FencingException;
import java.io.Serial;
import java.util.Objects;
import java.util.Optional;

/**
 * Base of the exceptions the Azure Blob fence throws, a stale token excepted
 * ({@link AzureBlobStaleTokenException}, a sibling under {@link FencingException}). Unchecked;
 * names the container and the blob and keeps the cause. Thrown as it is when the service refused
 * or failed a request for a reason other than a precondition (access denied, a missing container,
 * throttling, a server error, no answer), when the calling thread was interrupted between
 * retries, or when the blob's token metadata is not a number. Its subclasses say more:
 * {@link AzureBlobContentionException} (every attempt lost its race; retry the call) and
 * {@link AzureBlobConditionsIgnoredException} (the service ignores conditions: no fencing).
 *
 * <p>When a write got no answer ({@link #statusCode()} 0, {@link #outcomeUnknown()} true) the
 * service may or may not have applied it: read the blob's token before assuming either.
 */
public class AzureBlobFenceException extends FencingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String container;
    private final String blobName;
    private final int statusCode;
    private final String errorCode;
    private final boolean outcomeUnknown;

    AzureBlobFenceException(
            String container,
            String blobName,
            int statusCode,
            String errorCode,
            boolean outcomeUnknown,
            String message,
            Throwable cause) {
        super(message, cause);
        this.container = Objects.requireNonNull(container, "container");
        this.blobName = Objects.requireNonNull(blobName, "blobName");
        this.statusCode = statusCode;
        this.errorCode = errorCode;
        this.outcomeUnknown = outcomeUnknown;
    }

    /**
     * The container the failed call was about.
     *
     * @return the container name
     */
    public String container() {
        return container;
    }

    /**
     * The blob the failed call was about.
     *
     * @return the blob name
     */
    public String blobName() {
        return blobName;
    }

    /**
     * The HTTP status the service answered with.
     *
     * @return the status, or 0 when no answer arrived (or the failure was not the service's)
     */
    public int statusCode() {
        return statusCode;
    }

    /**
     * The service's error code ({@code AuthorizationFailure}, {@code ContainerNotFound}, ...).
     *
     * @return the code, when the service sent one
     */
    public Optional<String> errorCode() {
        return Optional.ofNullable(errorCode);
    }

    /**
     * True when a write got no answer, so the service may or may not have applied it.
     *
     * @return whether the outcome is unknown
     */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }

    static String location(String container, String blobName) {
        return "azure-blob://" + container + "/" + blobName;
    }
}
