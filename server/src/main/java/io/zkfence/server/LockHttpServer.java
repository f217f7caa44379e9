package io.zkfence.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP face of one replica: JSON over HTTP/1.1 under {@code /v1}, every request on a virtual
 * thread (a waiting acquire parks cheaply). Stateless: everything it knows is in ZooKeeper
 * ({@link LeaseStore}), so a client may send each call to any replica.
 *
 * <p>It runs on the JDK's own HTTP server for now; its issue asks for a well-kept framework
 * (Javalin or Helidon SE), which is still to do (docs/server.md, "Not done yet").
 */
final class LockHttpServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockHttpServer.class);
    private static final String PREFIX = "/v1/locks/";
    static final long MAX_TTL_MILLIS = 3_600_000;
    static final long MAX_WAIT_MILLIS = 300_000;

    private final LeaseStore store;
    private final HttpServer http;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final ObjectMapper json = new ObjectMapper();

    LockHttpServer(LeaseStore store, InetSocketAddress address) throws IOException {
        this.store = store;
        this.http = HttpServer.create(address, 0);
        http.setExecutor(threads);
        http.createContext("/v1/locks/", this::handle);
    }

    void start() {
        http.start();
    }

    int port() {
        return http.getAddress().getPort();
    }

    @Override
    public void close() {
        http.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            try {
                Object body = route(ex);
                send(ex, 200, body);
            } catch (LockServiceException e) {
                send(ex, e.status(), e.body());
            } catch (RuntimeException e) {
                log.error("{} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
                send(ex, 500, Map.of("error", "INTERNAL", "message", String.valueOf(e)));
            }
        }
    }

    private Object route(HttpExchange ex) throws IOException {
        String raw = ex.getRequestURI().getRawPath();
        String rest = raw.substring(PREFIX.length());
        String method = ex.getRequestMethod();
        int slash = rest.indexOf('/');
        String key = decode(slash < 0 ? rest : rest.substring(0, slash));
        String action = slash < 0 ? "" : rest.substring(slash + 1);
        LockKey.znode(key); // 400 for a bad key before anything else
        if (action.isEmpty()) {
            if (!method.equals("GET")) {
                throw new LockServiceException(405, "METHOD_NOT_ALLOWED", method + " " + raw + ": use GET");
            }
            return status(key);
        }
        if (!method.equals("POST")) {
            throw new LockServiceException(405, "METHOD_NOT_ALLOWED", method + " " + raw + ": use POST");
        }
        JsonNode body = body(ex);
        return switch (action) {
            case "acquire" -> acquire(key, body);
            case "renew" -> renew(key, body);
            case "release" -> release(key, body);
            default -> throw new LockServiceException(404, "NOT_FOUND", "no action '" + action + "' on a lock; use"
                    + " acquire, renew or release");
        };
    }

    private Map<String, Object> acquire(String key, JsonNode body) {
        only(body, "ownerId", "ttlMillis", "wait", "waitMillis", "requestId");
        String ownerId = text(body, "ownerId", true);
        long ttl = millis(body, "ttlMillis", true, 1, MAX_TTL_MILLIS);
        boolean wait = body.has("wait") && bool(body, "wait");
        long waitMillis = body.has("waitMillis") ? millis(body, "waitMillis", true, 0, MAX_WAIT_MILLIS) : 0;
        if (body.has("waitMillis") && !wait) {
            throw LockServiceException.badRequest("waitMillis is set but wait is not true");
        }
        if (wait && !body.has("waitMillis")) {
            throw LockServiceException.badRequest("wait is true: waitMillis (the bound on the wait) is required");
        }
        String requestId = text(body, "requestId", false);
        Grant g = store.acquire(key, ownerId, ttl, wait, waitMillis, requestId);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", g.lockKey());
        out.put("lockToken", g.lockToken());
        out.put("fencingToken", g.fencingToken());
        out.put("ownerId", g.ownerId());
        out.put("expiresAt", g.expiresAt());
        return out;
    }

    private Map<String, Object> renew(String key, JsonNode body) {
        only(body, "lockToken", "ownerId", "ttlMillis");
        long expiresAt = store.renew(key, text(body, "lockToken", true), text(body, "ownerId", true),
                millis(body, "ttlMillis", true, 1, MAX_TTL_MILLIS));
        return Map.of("lockKey", key, "expiresAt", expiresAt);
    }

    private Map<String, Object> release(String key, JsonNode body) {
        only(body, "lockToken", "ownerId");
        boolean removed = store.release(key, text(body, "lockToken", true), text(body, "ownerId", true));
        return Map.of("lockKey", key, "status", "RELEASED", "wasHeld", removed);
    }

    private Map<String, Object> status(String key) {
        List<Entry> queue = store.status(key);
        if (queue.isEmpty() || !queue.get(0).granted()) {
            throw new LockServiceException(404, "NOT_LOCKED", "lock '" + key + "' is not held",
                    Map.of("locked", false, "waiters", waiters(queue, 0)));
        }
        Entry holder = queue.get(0);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("lockKey", key);
        out.put("locked", true);
        out.put("ownerId", holder.data().ownerId());
        out.put("fencingToken", holder.fencingToken());
        out.put("expiresAt", holder.data().expiresAt());
        out.put("waiters", waiters(queue, 1));
        return out;
    }

    private static List<Map<String, Object>> waiters(List<Entry> queue, int from) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Entry e : queue.subList(Math.min(from, queue.size()), queue.size())) {
            out.add(Map.of("ownerId", e.data().ownerId()));
        }
        return out;
    }

    // ---- request parsing: every problem is a 400 naming the field ----

    private JsonNode body(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] bytes = in.readNBytes(64 * 1024 + 1);
            if (bytes.length > 64 * 1024) {
                throw LockServiceException.badRequest("request body is larger than 64 KiB");
            }
            JsonNode node = json.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw LockServiceException.badRequest("request body must be a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw LockServiceException.badRequest("request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static void only(JsonNode body, String... allowed) {
        Set<String> known = Set.of(allowed);
        body.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) {
                throw LockServiceException.badRequest("unknown field '" + f + "'; allowed: " + String.join(", ", allowed));
            }
        });
    }

    private static String text(JsonNode body, String field, boolean required) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw LockServiceException.badRequest(field + " is required");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isBlank() || v.asText().length() > 256) {
            throw LockServiceException.badRequest(field + " must be a non-blank string of at most 256 characters");
        }
        return v.asText();
    }

    private static long millis(JsonNode body, String field, boolean required, long min, long max) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw LockServiceException.badRequest(field + " is required");
            }
            return 0;
        }
        if (!v.isIntegralNumber() || v.asLong() < min || v.asLong() > max) {
            throw LockServiceException.badRequest(field + " must be a whole number of milliseconds from " + min + " to "
                    + max + ", was " + v);
        }
        return v.asLong();
    }

    private static boolean bool(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (!v.isBoolean()) {
            throw LockServiceException.badRequest(field + " must be true or false, was " + v);
        }
        return v.asBoolean();
    }

    private static String decode(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw LockServiceException.badRequest("lockKey in the path is not valid percent-encoding: " + segment);
        }
    }

    private void send(HttpExchange ex, int status, Object body) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }
}
