package io.zkfence.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the service answers with an error: a stable {@link ErrorCode} (which fixes the HTTP
 * status), a message naming the problem (the body's {@code detail}), and any extra fields the API
 * promises for that code (for example {@code currentOwner} and {@code retryAfterMillis} with
 * {@link ErrorCode#LOCK_ALREADY_HELD}). Messages never carry a lockToken: it is a bearer credential.
 */
final class LockServiceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final transient Map<String, Object> extra;

    LockServiceException(ErrorCode code, String message) {
        this(code, message, Map.of());
    }

    LockServiceException(ErrorCode code, String message, Map<String, Object> extra) {
        super(message);
        this.code = code;
        this.extra = new LinkedHashMap<>(extra);
    }

    LockServiceException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.extra = Map.of();
    }

    static LockServiceException badRequest(String message) {
        return new LockServiceException(ErrorCode.BAD_REQUEST, message);
    }

    ErrorCode code() {
        return code;
    }

    int status() {
        return code.status();
    }

    /** An extra field of the body, or null. */
    Object extra(String field) {
        return extra.get(field);
    }

    /**
     * The JSON body, an RFC 9457 problem details object ({@code application/problem+json}):
     * {@code type} ({@code urn:zkfence:error:<code>}), {@code title}, {@code status},
     * {@code detail} (what was wrong, naming the field or lock), the stable {@code error} code,
     * then the extra fields of that code.
     */
    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", code.type());
        body.put("title", code.title());
        body.put("status", code.status());
        body.put("detail", getMessage());
        body.put("error", code.name());
        body.putAll(extra);
        return body;
    }
}
