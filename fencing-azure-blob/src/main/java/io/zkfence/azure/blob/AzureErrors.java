package io.zkfence.azure.blob;

import com.azure.core.exception.HttpResponseException;
import com.azure.storage.blob.models.BlobStorageException;
import io.zkfence.fencing.FencingException;

/**
 * Sorts the Azure SDK's failures into "lost a race, read again" and everything else, which
 * becomes an {@link AzureBlobFenceException} naming container, blob and operation.
 */
final class AzureErrors {

    private AzureErrors() {}

    /**
     * Whether {@code e} came from a request to the service (not from the fence's own code). The
     * SDK's failures have no common type (a {@code BlobStorageException}, an
     * {@code UncheckedIOException}, a reactor wrapper around a connection error), so this names
     * what is not one: the fence's own exceptions and programming errors.
     */
    static boolean isStoreFailure(RuntimeException e) {
        return !(e instanceof FencingException
                || e instanceof IllegalArgumentException
                || e instanceof NullPointerException);
    }

    /**
     * True when a conditional request failed because the blob is not in the state the request
     * expected: 412 ConditionNotMet (If-Match on another ETag), 409 BlobAlreadyExists
     * (If-None-Match: * on a blob that exists), 404 BlobNotFound (If-Match on a blob deleted since
     * it was read).
     */
    static boolean isLostRace(RuntimeException e) {
        if (!(e instanceof BlobStorageException s)) {
            return false;
        }
        String code = code(s);
        return s.getStatusCode() == 412
                || (s.getStatusCode() == 409 && "BlobAlreadyExists".equals(code))
                || (s.getStatusCode() == 404 && "BlobNotFound".equals(code));
    }

    static boolean hasStatus(RuntimeException e, int status) {
        return e instanceof HttpResponseException h
                && h.getResponse() != null
                && h.getResponse().getStatusCode() == status;
    }

    static String code(BlobStorageException e) {
        return e.getErrorCode() == null ? null : e.getErrorCode().toString();
    }

    /**
     * Wraps any failure of a request with container, blob and operation. {@code write} marks
     * requests that change the blob, whose outcome is unknown when no clear answer came back.
     */
    static AzureBlobFenceException translate(
            RuntimeException e, String container, String blobName, String operation, boolean write) {
        String where = operation + " on " + AzureBlobFenceException.location(container, blobName);
        if (e instanceof HttpResponseException h && h.getResponse() != null) {
            int status = h.getResponse().getStatusCode();
            String code = e instanceof BlobStorageException s ? code(s) : null;
            boolean unknown = write && status >= 500;
            String detail = "HTTP " + status + (code == null ? "" : " " + code);
            String message;
            if (status == 403) {
                message = where + " was denied by the service (" + detail + "): the credentials may not do this on"
                        + " this container or blob; nothing was written";
            } else if ("ContainerNotFound".equals(code)) {
                message = "container '" + container + "' does not exist (" + where + ", " + detail
                        + "); nothing was written";
            } else {
                message = where + " failed (" + detail + ")"
                        + (unknown ? "; the service may or may not have applied it" : "; nothing was written");
            }
            return new AzureBlobFenceException(container, blobName, status, code, unknown, message, e);
        }
        if (hasInterruptedCause(e)) {
            Thread.currentThread().interrupt();
        }
        return new AzureBlobFenceException(
                container,
                blobName,
                0,
                null,
                write,
                where + " got no response (" + e + ")" + (write ? "; the service may or may not have applied it" : ""),
                e);
    }

    private static boolean hasInterruptedCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }
}
