package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The lock service's HTTP API as the metrics run's clients call it ({@code java.net.http},
 * HTTP/1.1, keep-alive), on one replica's port, without an API key ({@code EmbeddedServer} runs
 * with {@code --no-auth}).
 */
final class ServiceClient {

    /** One answer: the status and the JSON body. */
    record Answer(int status, JsonNode body) {
        String lockToken() {
            return body.path("lockToken").asText();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final int port;

    ServiceClient(HttpClient http, int port) {
        this.http = http;
        this.port = port;
    }

    int port() {
        return port;
    }

    /** POST acquire; {@code waitMillis} 0 means no wait. */
    Answer acquire(String key, String owner, long ttlMillis, long waitMillis, String requestId) {
        ObjectNode body = JSON.createObjectNode()
                .put("ownerId", owner)
                .put("ttlMillis", ttlMillis)
                .put("requestId", requestId);
        if (waitMillis > 0) {
            body.put("wait", true).put("waitMillis", waitMillis);
        }
        return post("/v1/locks/" + key + "/acquire", body);
    }

    Answer renew(String key, String owner, String lockToken, long ttlMillis) {
        return post(
                "/v1/locks/" + key + "/renew",
                JSON.createObjectNode()
                        .put("ownerId", owner)
                        .put("lockToken", lockToken)
                        .put("ttlMillis", ttlMillis));
    }

    Answer release(String key, String owner, String lockToken) {
        return post(
                "/v1/locks/" + key + "/release",
                JSON.createObjectNode().put("ownerId", owner).put("lockToken", lockToken));
    }

    Answer forceRelease(String key, String reason) {
        return post(
                "/v1/locks/" + key + "/force-release", JSON.createObjectNode().put("reason", reason));
    }

    /** GET /metrics: the replica's meters in Prometheus' text format, as a scrape reads them. */
    String metrics() {
        return send(HttpRequest.newBuilder(uri("/metrics")).GET().build()).body();
    }

    /**
     * A waiting acquire sent on a raw socket and left waiting: closing the socket is a caller that
     * gives up (the replica sees the connection close and removes the queue entry).
     */
    Socket waitOnRawSocket(String key, String owner, long waitMillis) {
        String body = JSON.createObjectNode()
                .put("ownerId", owner)
                .put("ttlMillis", 5_000)
                .put("wait", true)
                .put("waitMillis", waitMillis)
                .toString();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/locks/" + key + "/acquire HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        try {
            Socket socket = new Socket("127.0.0.1", port);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            return socket;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send a waiting acquire to port " + port, e);
        }
    }

    private Answer post(String path, ObjectNode body) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build());
        try {
            return new Answer(r.statusCode(), JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON from " + path + ": " + r.body(), e);
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** A keep-alive HTTP/1.1 client for the run's calls. */
    static HttpClient http() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }
}
