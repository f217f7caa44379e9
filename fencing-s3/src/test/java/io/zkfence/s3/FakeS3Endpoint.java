package io.zkfence.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny HTTP server on the loopback that plays a broken S3-compatible store, for the cases S3Mock
 * cannot play: a store that ignores preconditions (answers every write with success) and a store
 * that denies every request with 403 AccessDenied. Records each request as "METHOD /path?query".
 */
final class FakeS3Endpoint implements AutoCloseable {

    enum Behaviour {
        ACCEPT_EVERYTHING,
        DENY_EVERYTHING
    }

    private final HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    FakeS3Endpoint(Behaviour behaviour) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
                try (InputStream body = exchange.getRequestBody()) {
                    body.transferTo(OutputStream.nullOutputStream());
                }
                switch (behaviour) {
                    case ACCEPT_EVERYTHING -> accept(exchange);
                    case DENY_EVERYTHING -> deny(exchange);
                }
            }
        });
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    int port() {
        return server.getAddress().getPort();
    }

    List<String> requests() {
        return List.copyOf(requests);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** Every write succeeds, whatever its preconditions; reads find nothing. */
    private static void accept(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String query = exchange.getRequestURI().getRawQuery();
        query = query == null ? "" : query;
        exchange.getResponseHeaders().add("ETag", "\"0123456789abcdef0123456789abcdef\"");
        switch (method) {
            case "PUT" -> send(exchange, 200, "");
            case "DELETE" -> send(exchange, 204, null);
            case "POST" -> {
                if (query.contains("uploads")) {
                    send(
                            exchange,
                            200,
                            "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key>"
                                    + "<UploadId>fake-upload</UploadId></InitiateMultipartUploadResult>");
                } else {
                    send(
                            exchange,
                            200,
                            "<CompleteMultipartUploadResult><ETag>\"fedcba9876543210fedcba9876543210-1\""
                                    + "</ETag></CompleteMultipartUploadResult>");
                }
            }
            default ->
                send(
                        exchange,
                        404,
                        "HEAD".equals(method)
                                ? null
                                : "<Error><Code>NoSuchKey</Code><Message>not found</Message></Error>");
        }
    }

    private static void deny(HttpExchange exchange) throws IOException {
        send(
                exchange,
                403,
                "HEAD".equals(exchange.getRequestMethod())
                        ? null
                        : "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
    }

    private static void send(HttpExchange exchange, int status, String xml) throws IOException {
        if (xml == null) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/xml");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
