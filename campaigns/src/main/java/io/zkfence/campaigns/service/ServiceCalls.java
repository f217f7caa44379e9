package io.zkfence.campaigns.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The lock service's three calls over HTTP, as a client in any language makes them: JSON in, JSON
 * or problem+json out, a timeout per call. A transport failure (timeout, connection refused or
 * reset) is an {@link Answer} with status 0, never an exception: the caller decides whether to
 * retry. Ready for the protocol's next version: {@code validForMillis} is read when an answer has it.
 * An acquire can be cancelled while it is out ({@link Pending#cancel()}): its connection is closed,
 * as a hedging client closes the copy it no longer needs, so that the replica sees its caller go.
 */
final class ServiceCalls {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    /**
     * What one call got back.
     *
     * @param status         the HTTP status, or 0 for a transport failure
     * @param code           the problem's {@code error} code, {@code timeout} or {@code io} for a transport
     *                       failure, null for a success
     * @param fencingToken   a grant's fencing token (0 otherwise)
     * @param lockToken      a grant's lock token (never logged: a bearer credential)
     * @param expiresAt      a grant's or renewal's {@code expiresAt} (0 otherwise)
     * @param validForMillis {@code validForMillis} when the answer has it, else -1
     * @param currentOwner   a 409 {@code LOCK_ALREADY_HELD}'s {@code currentOwner}
     * @param retryAfterMillis a 409 or 429's {@code retryAfterMillis} (0 when absent)
     * @param wasHeld        a release's {@code wasHeld} (null otherwise)
     * @param outcome        a 409 {@code REQUEST_FINISHED}'s {@code outcome}
     * @param detail         the problem's {@code detail}, or the transport failure
     */
    record Answer(
            int status,
            String code,
            long fencingToken,
            String lockToken,
            long expiresAt,
            long validForMillis,
            String currentOwner,
            long retryAfterMillis,
            Boolean wasHeld,
            String outcome,
            String detail) {

        static Answer transport(Throwable e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            String code = cause instanceof HttpTimeoutException
                    ? "timeout"
                    : cause instanceof CancellationException ? CANCELLED : "io";
            return new Answer(0, code, 0, null, 0, -1, null, 0, null, null, String.valueOf(cause));
        }
    }

    /** The transport code of a call its caller cancelled (its connection closed before an answer). */
    static final String CANCELLED = "cancelled";

    /**
     * A call that is out: its answer when it comes, and the exchange, which {@link #cancel()} aborts.
     * The JDK's client closes an HTTP/1.1 connection whose exchange is cancelled
     * ({@code ServiceCallsTest} checks it), which is what the replica sees as its caller gone.
     */
    record Pending(CompletableFuture<Answer> answer, CompletableFuture<?> exchange) {

        /** Closes the call's connection unless its answer is in; the answer is then a transport failure, {@value ServiceCalls#CANCELLED}. */
        void cancel() {
            exchange.cancel(true);
        }
    }

    /** An acquire, which the caller may cancel while it is out; {@link Pending#answer()} is its answer. */
    Pending acquire(
            String base,
            String key,
            String owner,
            String requestId,
            long ttlMillis,
            boolean wait,
            long waitMillis,
            Duration timeout) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ownerId", owner);
        body.put("ttlMillis", ttlMillis);
        if (wait) {
            body.put("wait", true);
            body.put("waitMillis", waitMillis);
        }
        body.put("requestId", requestId);
        return send(base, key, "acquire", body, timeout);
    }

    CompletableFuture<Answer> renew(
            String base, String key, String owner, String lockToken, long ttlMillis, Duration timeout) {
        return post(
                base, key, "renew", Map.of("ownerId", owner, "lockToken", lockToken, "ttlMillis", ttlMillis), timeout);
    }

    CompletableFuture<Answer> release(String base, String key, String owner, String lockToken, Duration timeout) {
        return post(base, key, "release", Map.of("ownerId", owner, "lockToken", lockToken), timeout);
    }

    private CompletableFuture<Answer> post(
            String base, String key, String call, Map<String, Object> body, Duration timeout) {
        return send(base, key, call, body, timeout).answer();
    }

    private Pending send(String base, String key, String call, Map<String, Object> body, Duration timeout) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(
                            base + "/v1/locks/" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "/" + call))
                    .timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CompletableFuture<HttpResponse<byte[]>> exchange =
                http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        return new Pending(exchange.thenApply(ServiceCalls::answer).exceptionally(Answer::transport), exchange);
    }

    private static Answer answer(HttpResponse<byte[]> response) {
        JsonNode b;
        try {
            b = JSON.readTree(response.body());
        } catch (IOException e) {
            b = null;
        }
        if (b == null || !b.isObject()) {
            return new Answer(response.statusCode(), "UNREADABLE", 0, null, 0, -1, null, 0, null, null, "no JSON body");
        }
        return new Answer(
                response.statusCode(),
                response.statusCode() == 200 ? null : b.path("error").asText("NO_CODE"),
                b.path("fencingToken").asLong(0),
                b.hasNonNull("lockToken") ? b.get("lockToken").asText() : null,
                b.path("expiresAt").asLong(0),
                b.hasNonNull("validForMillis") ? b.get("validForMillis").asLong() : -1,
                b.hasNonNull("currentOwner") ? b.get("currentOwner").asText() : null,
                b.path("retryAfterMillis").asLong(0),
                b.hasNonNull("wasHeld") ? b.get("wasHeld").asBoolean() : null,
                b.hasNonNull("outcome") ? b.get("outcome").asText() : null,
                b.hasNonNull("detail") ? b.get("detail").asText() : null);
    }
}
