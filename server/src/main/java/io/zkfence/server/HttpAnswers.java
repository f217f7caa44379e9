package io.zkfence.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the service answers over HTTP: JSON bodies, and every failure in one shape, RFC 9457
 * problem details with a stable {@code error} code ({@link LockServiceException#body()}), with
 * {@code Retry-After} where a retry makes sense and {@code WWW-Authenticate} on a 401.
 */
final class HttpAnswers {

    static final String PROBLEM_JSON = "application/problem+json";

    private static final Logger log = LoggerFactory.getLogger(HttpAnswers.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpAnswers() {}

    /** 200 with {@code body} as JSON. */
    static void ok(Context ctx, Object body) {
        ok(ctx, body, 200);
    }

    /** {@code status} with {@code body} as JSON. */
    static void ok(Context ctx, Object body, int status) {
        ctx.status(status).contentType("application/json").result(bytes(body));
    }

    /** The problem details of {@code e}, with its status and headers. */
    static void problem(Context ctx, LockServiceException e) {
        if (e.code() == ErrorCode.UNAUTHORIZED) {
            ctx.header("WWW-Authenticate", "Bearer");
        }
        if (e.extra("retryAfterMillis") instanceof Number ms) {
            ctx.header("Retry-After", String.valueOf(Math.max(1, (ms.longValue() + 999) / 1000)));
        } else if (e.code().status() == 503) {
            ctx.header("Retry-After", "1");
        }
        ctx.status(e.status()).contentType(PROBLEM_JSON).result(bytes(e.body()));
    }

    /** Any failure of a call: the service's own as they are, the framework's and bugs mapped (a bug logged). */
    static void failed(Context ctx, Exception e) {
        switch (e) {
            case LockServiceException lse -> problem(ctx, lse);
            case HttpResponseException hre ->
                problem(
                        ctx,
                        byTheFramework(
                                hre.getStatus(),
                                hre.getStatus() == 413
                                        ? "request body is larger than " + JsonBody.MAX_BYTES / 1024 + " KiB"
                                        : hre.getMessage()));
            default -> {
                log.error("{} {} failed", ctx.method(), ctx.path(), e);
                problem(ctx, new LockServiceException(ErrorCode.INTERNAL, "the server failed: " + e));
            }
        }
    }

    /**
     * A refusal the HTTP framework made on its own (Javalin's, or Jetty's before any route ran),
     * as the service's error: the code for its status, one status per code.
     */
    static LockServiceException byTheFramework(int status, String detail) {
        return new LockServiceException(codeOf(status), detail);
    }

    /** The service's code for a status the HTTP framework answered by itself. */
    static ErrorCode codeOf(int status) {
        return switch (status) {
            case 404 -> ErrorCode.NOT_FOUND;
            case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
            case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
            case 503 -> ErrorCode.UNAVAILABLE;
            default -> status >= 500 ? ErrorCode.INTERNAL : ErrorCode.BAD_REQUEST;
        };
    }

    /** {@code body} as JSON bytes. */
    static byte[] bytes(Object body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("answer cannot be written as JSON", e);
        }
    }
}
