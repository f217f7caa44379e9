package io.zkfence.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the service answers with an error: the HTTP status, a stable code (the API's
 * contract), a message naming the problem, and any extra fields the API promises for that code
 * (for example {@code currentOwner} and {@code retryAfterMillis} with {@code LOCK_ALREADY_HELD}).
 */
final class LockServiceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final transient Map<String, Object> extra;

    LockServiceException(int status, String code, String message) {
        this(status, code, message, Map.of());
    }

    LockServiceException(int status, String code, String message, Map<String, Object> extra) {
        super(message);
        this.status = status;
        this.code = code;
        this.extra = new LinkedHashMap<>(extra);
    }

    static LockServiceException badRequest(String message) {
        return new LockServiceException(400, "BAD_REQUEST", message);
    }

    int status() {
        return status;
    }

    String code() {
        return code;
    }

    /** The JSON body: {@code error}, {@code message}, then the extra fields. */
    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", getMessage());
        body.putAll(extra);
        return body;
    }
}
