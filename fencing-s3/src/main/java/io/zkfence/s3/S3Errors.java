package io.zkfence.s3;

import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Sorts SDK failures into "lost a race, re-read" and everything else, which becomes a {@link StoreException}. */
final class S3Errors {

    private S3Errors() {}

    /**
     * True when a conditional request failed because the object is not in the state we expected:
     * 412 Precondition Failed, 409 ConditionalRequestConflict (a concurrent conditional write), or
     * 404 NoSuchKey on an If-Match (the object was deleted since we read it).
     */
    static boolean isLostRace(SdkException e) {
        if (!(e instanceof S3Exception s)) {
            return false;
        }
        String code = errorCode(s);
        return s.statusCode() == 412
                || (s.statusCode() == 409 && "ConditionalRequestConflict".equals(code))
                || (s.statusCode() == 404 && "NoSuchKey".equals(code));
    }

    static boolean isConditionalConflict409(SdkException e) {
        return e instanceof S3Exception s && s.statusCode() == 409 && "ConditionalRequestConflict".equals(errorCode(s));
    }

    static boolean hasStatus(SdkException e, int status) {
        return e instanceof S3Exception s && s.statusCode() == status;
    }

    static boolean hasErrorCode(SdkException e, String code) {
        return e instanceof S3Exception s && code.equals(errorCode(s));
    }

    /**
     * Wraps any SDK failure with bucket, key and operation. {@code write} marks requests that change
     * the store, whose outcome is unknown when no clear answer came back.
     */
    static StoreException translate(SdkException e, String bucket, String key, String operation, boolean write) {
        String where = operation + " on " + S3FenceException.location(bucket, key);
        if (e instanceof S3Exception s) {
            int status = s.statusCode();
            String code = errorCode(s);
            String detail = "HTTP " + status + (code == null ? "" : " " + code)
                    + (s.awsErrorDetails() != null && s.awsErrorDetails().errorMessage() != null
                            ? ": " + s.awsErrorDetails().errorMessage()
                            : "");
            boolean unknown = write && status >= 500;
            String message;
            if (status == 403) {
                message = where + " was denied by the store (" + detail + "): the credentials may not do this on"
                        + " this bucket or key; nothing was written"
                        + (operation.contains("HeadObject")
                                ? " (S3 also answers 403 instead of 404 for a missing key when the caller lacks"
                                        + " s3:ListBucket on the bucket)"
                                : "");
            } else if ("NoSuchBucket".equals(code)) {
                message = "bucket '" + bucket + "' does not exist (" + where + ", " + detail + "); nothing was written";
            } else {
                message = where + " failed (" + detail + ")"
                        + (unknown ? "; the store may or may not have applied it" : "; nothing was written");
            }
            return new StoreException(bucket, key, operation, status, code, unknown, message, e);
        }
        if (e instanceof AbortedException || hasInterruptedCause(e)) {
            Thread.currentThread().interrupt();
        }
        String message = where + " got no response (" + e.getMessage() + ")"
                + (write ? "; the store may or may not have applied it" : "");
        return new StoreException(bucket, key, operation, 0, null, write, message, e);
    }

    private static String errorCode(S3Exception s) {
        return s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
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
