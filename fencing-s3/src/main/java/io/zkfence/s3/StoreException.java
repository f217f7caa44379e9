package io.zkfence.s3;

import java.util.Optional;

/**
 * The store refused or failed a request for a reason other than a precondition: access denied,
 * a missing bucket, a throttle, a server error, or no response at all (network failure, timeout).
 * The underlying SDK exception is the cause.
 *
 * <p>When a write got no response ({@link #statusCode()} is 0 and {@link #outcomeUnknown()} is
 * true) the store may or may not have applied it: read the object (its token and ETag tell) before
 * assuming either.
 */
public final class StoreException extends S3FenceException {

    private final String operation;
    private final int statusCode;
    private final String errorCode;
    private final boolean outcomeUnknown;

    StoreException(
            String bucket,
            String key,
            String operation,
            int statusCode,
            String errorCode,
            boolean outcomeUnknown,
            String message,
            Throwable cause) {
        super(bucket, key, message, cause);
        this.operation = operation;
        this.statusCode = statusCode;
        this.errorCode = errorCode;
        this.outcomeUnknown = outcomeUnknown;
    }

    /** The S3 operation that failed, for example {@code PutObject}. */
    public String operation() {
        return operation;
    }

    /** The HTTP status the store answered with, or 0 when no response arrived. */
    public int statusCode() {
        return statusCode;
    }

    /** The S3 error code ({@code AccessDenied}, {@code NoSuchBucket}, ...) when the store sent one. */
    public Optional<String> errorCode() {
        return Optional.ofNullable(errorCode);
    }

    /** True when the store answered 403: the credentials may not do this on this bucket or key. */
    public boolean isAccessDenied() {
        return statusCode == 403;
    }

    /** True when the store said the bucket does not exist. */
    public boolean isNoSuchBucket() {
        return "NoSuchBucket".equals(errorCode);
    }

    /** True when a write got no answer, so the store may or may not have applied it. */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
