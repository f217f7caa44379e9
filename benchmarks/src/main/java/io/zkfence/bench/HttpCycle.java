package io.zkfence.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.server.EmbeddedServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's acquire + release of one key over HTTP: the acquire to one replica, the release
 * to another (or the same). An answer other than 200, or a failed exchange, is counted in
 * {@code errors} and the cycle moves on.
 */
final class HttpCycle {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ERRORS_SHOWN = 5;
    /** Longer than any wait a benchmark acquire asks for (60 s): a read never times out first. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    /** Sends one JSON POST to one replica: the answer's JSON if 200, else null. */
    private interface Poster {
        JsonNode post(String path, String json);
    }

    private final Poster acquireVia;
    private final Poster releaseVia;
    private final String acquirePath;
    private final String releasePath;
    private final String acquireBody;
    private final String owner;
    private final boolean requestId;
    private long requests;

    private HttpCycle(Poster acquireVia, Poster releaseVia, String key, String owner, Acquire how) {
        this.acquireVia = acquireVia;
        this.releaseVia = releaseVia;
        this.acquirePath = "/v1/locks/" + key + "/acquire";
        this.releasePath = "/v1/locks/" + key + "/release";
        this.acquireBody = "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":" + how.ttlMillis()
                + (how.waiting() ? ",\"wait\":true,\"waitMillis\":60000" : "");
        this.owner = owner;
        this.requestId = how.requestId();
    }

    /**
     * What an acquire sends besides its owner and TTL.
     *
     * @param waiting   {@code wait: true} with a 60 s {@code waitMillis}
     * @param requestId a new {@code requestId} per acquire, as a client that may retry sends
     * @param ttlMillis the TTL asked for (30 s unless {@link #withTtl})
     */
    record Acquire(boolean waiting, boolean requestId, long ttlMillis) {
        static final Acquire PLAIN = new Acquire(false, false, 30_000);
        static final Acquire WITH_REQUEST_ID = new Acquire(false, true, 30_000);
        static final Acquire WAITING = new Acquire(true, true, 30_000);

        Acquire withTtl(long millis) {
            return new Acquire(waiting, requestId, millis);
        }
    }

    /**
     * A client on blocking keep-alive connections ({@link KeepAliveHttp}, one per replica), which
     * {@code closer} closes.
     */
    static HttpCycle keepAlive(
            Closer closer,
            EmbeddedServer acquireVia,
            EmbeddedServer releaseVia,
            String key,
            String owner,
            Acquire how,
            AtomicLong errors) {
        return keepAlive(closer, acquireVia.port(), releaseVia.port(), key, owner, how, errors);
    }

    /** {@link #keepAlive(Closer, EmbeddedServer, EmbeddedServer, String, String, Acquire, AtomicLong)} by port. */
    static HttpCycle keepAlive(
            Closer closer, int acquirePort, int releasePort, String key, String owner, Acquire how, AtomicLong errors) {
        return new HttpCycle(
                keepAlive(closer, acquirePort, errors), keepAlive(closer, releasePort, errors), key, owner, how);
    }

    /** A client on a shared {@code java.net.http} client (HTTP/1.1, its own connection pool). */
    static HttpCycle javaNetHttp(
            HttpClient http,
            EmbeddedServer acquireVia,
            EmbeddedServer releaseVia,
            String key,
            String owner,
            Acquire how,
            AtomicLong errors) {
        return new HttpCycle(
                javaNetHttp(http, acquireVia, errors), javaNetHttp(http, releaseVia, errors), key, owner, how);
    }

    void run() {
        String body =
                requestId ? acquireBody + ",\"requestId\":\"" + owner + "-" + (++requests) + "\"}" : acquireBody + "}";
        JsonNode grant = acquireVia.post(acquirePath, body);
        if (grant != null) {
            releaseVia.post(
                    releasePath,
                    "{\"ownerId\":\"" + owner + "\",\"lockToken\":\""
                            + grant.get("lockToken").asText() + "\"}");
        }
    }

    private static Poster keepAlive(Closer closer, int port, AtomicLong errors) {
        KeepAliveHttp connection = closer.add(new KeepAliveHttp("127.0.0.1", port, READ_TIMEOUT));
        return (path, json) -> {
            try {
                KeepAliveHttp.Answer a = connection.post(path, json);
                return ok(a.status(), a.body(), errors);
            } catch (IOException e) {
                if (errors.incrementAndGet() <= ERRORS_SHOWN) {
                    System.err.println("bench: a failed exchange: " + e);
                }
                return null;
            }
        };
    }

    private static Poster javaNetHttp(HttpClient http, EmbeddedServer replica, AtomicLong errors) {
        String base = "http://127.0.0.1:" + replica.port();
        return (path, json) -> {
            try {
                HttpResponse<byte[]> r = http.send(
                        HttpRequest.newBuilder(URI.create(base + path))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(json))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                return ok(r.statusCode(), r.body(), errors);
            } catch (IOException e) {
                errors.incrementAndGet();
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during a benchmark request", e);
            }
        };
    }

    private static JsonNode ok(int status, byte[] body, AtomicLong errors) throws IOException {
        if (status != 200) {
            if (errors.incrementAndGet() <= ERRORS_SHOWN) {
                // The report counts them; the first few are shown, so that a failed run says why.
                System.err.println(
                        "bench: an answer other than 200: " + status + " " + new String(body, StandardCharsets.UTF_8));
            }
            return null;
        }
        return JSON.readTree(body);
    }
}
