package io.zkfence.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zkfence.server.ReplicaFixture.Reply;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client for a replica known by its port (one in another JVM, say), and the request bodies tests send. */
final class ServiceHttp {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ServiceHttp() {}

    /** POST {@code body} to {@code /v1/locks/<key>/<action>} of the replica on {@code port}. */
    static Reply post(int port, String key, String action, String body) {
        return send(HttpRequest.newBuilder(uri(port, "/v1/locks/" + key + "/" + action))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    /** GET of any path. */
    static Reply get(int port, String pathAndQuery) {
        return send(HttpRequest.newBuilder(uri(port, pathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build());
    }

    /** GET of a path whose answer is text ({@code /metrics}). */
    static String text(int port, String pathAndQuery) {
        try {
            return HTTP.send(
                            HttpRequest.newBuilder(uri(port, pathAndQuery))
                                    .timeout(Duration.ofSeconds(30))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The sum of every series of one meter in the replica's {@code /metrics} now (0 when absent). */
    static double meterSum(int port, String meter) {
        double sum = 0;
        for (String line : text(port, "/metrics").split("\n")) {
            if (line.startsWith(meter + " ") || line.startsWith(meter + "{")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** An acquire without a wait. */
    static String acquire(String owner, long ttlMillis, String requestId) {
        ObjectNode o = JSON.createObjectNode().put("ownerId", owner).put("ttlMillis", ttlMillis);
        if (requestId != null) {
            o.put("requestId", requestId);
        }
        return o.toString();
    }

    /** An acquire that waits up to {@code waitMillis}. */
    static String acquireWaiting(String owner, long ttlMillis, long waitMillis, String requestId) {
        ObjectNode o = JSON.createObjectNode()
                .put("ownerId", owner)
                .put("ttlMillis", ttlMillis)
                .put("wait", true)
                .put("waitMillis", waitMillis);
        if (requestId != null) {
            o.put("requestId", requestId);
        }
        return o.toString();
    }

    /** A release (or, with {@code ttlMillis}, a renew) body for the grant in {@code grant}. */
    static String token(Reply grant) {
        return JSON.createObjectNode()
                .put("ownerId", grant.body().get("ownerId").asText())
                .put("lockToken", grant.body().get("lockToken").asText())
                .toString();
    }

    static String renew(Reply grant, long ttlMillis) {
        return JSON.createObjectNode()
                .put("ownerId", grant.body().get("ownerId").asText())
                .put("lockToken", grant.body().get("lockToken").asText())
                .put("ttlMillis", ttlMillis)
                .toString();
    }

    private static URI uri(int port, String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }

    /** Sends {@code request} and reads the answer as JSON (a JSON null for an empty body). */
    static Reply send(HttpRequest request) {
        try {
            HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(
                    r.statusCode(),
                    r.headers().firstValue("Content-Type").orElse(""),
                    r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
