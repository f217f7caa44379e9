package io.zkfence.server.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A replica's HTTP API through the JDK's HTTP client, as any client would call it. */
final class HttpApi {

    /** One answer: the status and the body (JSON, or the raw text as a JSON string). */
    record Answer(int status, JsonNode body, String text) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final URI base;

    HttpApi(int port) {
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    Answer get(String path, String apiKey) {
        return send(request(path, apiKey).GET());
    }

    Answer post(String path, String apiKey, String json) {
        return send(request(path, apiKey)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private HttpRequest.Builder request(String path, String apiKey) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        return b;
    }

    private Answer send(HttpRequest.Builder request) {
        HttpRequest built = request.build();
        try {
            HttpResponse<String> r = client.send(built, HttpResponse.BodyHandlers.ofString());
            String text = r.body();
            JsonNode body;
            try {
                body = JSON.readTree(text);
            } catch (IOException notJson) {
                body = JSON.getNodeFactory().textNode(text);
            }
            return new Answer(r.statusCode(), body, text);
        } catch (IOException e) {
            throw new UncheckedIOException(built.method() + " " + built.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
