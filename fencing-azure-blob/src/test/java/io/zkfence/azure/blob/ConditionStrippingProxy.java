package io.zkfence.azure.blob;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A store that ignores conditions, as a misconfigured gateway in front of Azure would be: an HTTP
 * proxy on the loopback that forwards every request to Azurite without its {@code If-Match} and
 * {@code If-None-Match} headers. Clients reach it with a SAS token (a shared-key signature covers
 * those headers, so Azurite would refuse the stripped request instead of applying it). Records each
 * request as "METHOD path".
 */
final class ConditionStrippingProxy implements AutoCloseable {

    /** Headers the JDK's client sets itself, or that describe the hop rather than the request. */
    private static final Set<String> NOT_FORWARDED =
            Set.of("host", "content-length", "connection", "expect", "upgrade", "if-match", "if-none-match");

    private final HttpServer server;
    private final HttpClient client = HttpClient.newHttpClient();
    private final String target;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    ConditionStrippingProxy(String target) throws IOException {
        this.target = target;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::forward);
        server.start();
    }

    /** The account's Blob endpoint through the proxy. */
    String blobEndpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/devstoreaccount1";
    }

    List<String> requests() {
        return List.copyOf(requests);
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.add(
                    exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath());
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI()))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> h :
                    exchange.getRequestHeaders().entrySet()) {
                if (!NOT_FORWARDED.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    for (String v : h.getValue()) {
                        request.header(h.getKey(), v);
                    }
                }
            }
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            response.headers().map().forEach((name, values) -> {
                if (!name.equalsIgnoreCase("content-length") && !name.equalsIgnoreCase("transfer-encoding")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] bytes = response.body();
            boolean noBody = exchange.getRequestMethod().equals("HEAD") || bytes.length == 0;
            exchange.sendResponseHeaders(response.statusCode(), noBody ? -1 : bytes.length);
            if (!noBody) {
                exchange.getResponseBody().write(bytes);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        client.close();
    }
}
