package io.zkfence.server;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error answers (a URI it refuses before any route runs, such as one with an encoded NUL) in the service's one error shape: problem details with a stable {@code error} code,
 * instead of Jetty's HTML page.
 */
final class ProblemErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        ErrorCode error = HttpAnswers.codeOf(code);
        String detail = "the HTTP server refused the request" + (message == null ? "" : ": " + message)
                + (error == ErrorCode.BAD_REQUEST ? " (a lockKey may not contain NUL, even percent-encoded)" : "");
        // One status per code: a URI or header block Jetty finds too long is a 400 BAD_REQUEST here.
        response.setStatus(error.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, HttpAnswers.PROBLEM_JSON);
        response.write(
                true, ByteBuffer.wrap(HttpAnswers.bytes(new LockServiceException(error, detail).body())), callback);
    }
}
