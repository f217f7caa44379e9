package io.zkfence.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error answers (a URI it refuses before any route runs, such as one with an encoded NUL) in the service's one error shape: problem details with a stable {@code error} code,
 * instead of Jetty's HTML page.
 */
final class ProblemErrorHandler extends ErrorHandler {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        ErrorCode error = codeFor(code);
        // One status per code: a URI or header block Jetty finds too long is a 400 BAD_REQUEST here.
        response.setStatus(error.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
        Content.Sink.write(response, true, body(error, message), callback);
    }

    private static ErrorCode codeFor(int status) {
        return switch (status) {
            case 404 -> ErrorCode.NOT_FOUND;
            case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
            case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
            case 503 -> ErrorCode.UNAVAILABLE;
            default -> status >= 500 ? ErrorCode.INTERNAL : ErrorCode.BAD_REQUEST;
        };
    }

    private static String body(ErrorCode code, String message) {
        String detail = "the HTTP server refused the request" + (message == null ? "" : ": " + message)
                + (code == ErrorCode.BAD_REQUEST ? " (a lockKey may not contain NUL, even percent-encoded)" : "");
        try {
            return JSON.writeValueAsString(new LockServiceException(code, detail).body());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("error body cannot be written as JSON", e);
        }
    }
}
