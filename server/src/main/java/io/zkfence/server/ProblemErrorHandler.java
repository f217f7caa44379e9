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
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
        Content.Sink.write(response, true, body(code, message), callback);
    }

    private static String body(int status, String message) {
        String code = status == 400 ? "BAD_REQUEST" : status == 404 ? "NOT_FOUND" : "HTTP_" + status;
        String detail = "the HTTP server refused the request" + (message == null ? "" : ": " + message)
                + (status == 400 ? " (a lockKey may not contain NUL, even percent-encoded)" : "");
        try {
            return JSON.writeValueAsString(new LockServiceException(status, code, detail).body());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("error body cannot be written as JSON", e);
        }
    }
}
