package io.zkfence.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the service answers with an error: the HTTP status, a stable code (the API's
 * contract), a message naming the problem (the body's {@code detail}), and any extra fields the API promises for that code
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

    /**
     * The JSON body, an RFC 9457 problem details object ({@code application/problem+json}):
     * {@code type} ({@code urn:zkfence:error:<code>}), {@code title}, {@code status},
     * {@code detail} (what was wrong, naming the field or lock), the stable {@code error} code,
     * then the extra fields of that code.
     */
    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "urn:zkfence:error:" + code);
        body.put("title", code.replace('_', ' ').toLowerCase(java.util.Locale.ROOT));
        body.put("status", status);
        body.put("detail", getMessage());
        body.put("error", code);
        body.putAll(extra);
        return body;
    }
}
