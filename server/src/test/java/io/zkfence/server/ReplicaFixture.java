package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;

/** One replica of the service on a random port, with its own ZooKeeper session, and a real HTTP client for it. */
final class ReplicaFixture implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    final CuratorFramework zk;
    final LockHttpServer server;
    final LeaseService service;
    private final String apiKey;
    private boolean closed;

    /** A response: status, content type and JSON body. */
    record Reply(int status, String contentType, JsonNode body) {}

    /** A replica without authentication. */
    ReplicaFixture(String connectString, String root) {
        this(connectString, root, ApiKeys.open(), null);
    }

    /** A replica with {@code keys}, whose client sends {@code apiKey} (null: none). */
    ReplicaFixture(String connectString, String root, ApiKeys keys, String apiKey) {
        this(
                connectString,
                new LeaseService.Settings(
                        root,
                        3,
                        LeaseService.Settings.DEFAULT_REQUEST_RETENTION_MILLIS,
                        LeaseService.Settings.DEFAULT_MAX_WAITERS,
                        StoreUnderTest.TEST_ENSEMBLE_LAG_BOUND_MS),
                keys,
                apiKey);
    }

    /** A replica with the protocol's {@code settings}, {@code keys}, and a client that sends {@code apiKey}. */
    ReplicaFixture(String connectString, LeaseService.Settings settings, ApiKeys keys, String apiKey) {
        this.apiKey = apiKey;
        zk = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new ExponentialBackoffRetry(100, 3));
        zk.start();
        service = new LeaseService(zk, ZooDefs.Ids.OPEN_ACL_UNSAFE, Clock.systemUTC(), settings).start();
        server = new LockHttpServer(
                service,
                ServerSettings.local(keys),
                () -> zk.getZookeeperClient().isConnected());
        server.start();
    }

    private ReplicaFixture(ReplicaFixture same, String apiKey) {
        this.zk = same.zk;
        this.server = same.server;
        this.service = same.service;
        this.apiKey = apiKey;
        this.closed = true; // a view: closing it closes nothing
    }

    /** The same replica, called with another API key. */
    ReplicaFixture as(String otherKey) {
        return new ReplicaFixture(this, otherKey);
    }

    Reply post(String key, String action, String body) {
        return send(request(uri("/v1/locks/" + key + "/" + action))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    /** POST {@code body} to any path ({@code /v1/leases/renew}, say). */
    Reply postTo(String path, String body) {
        return send(request(uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    }

    Reply get(String key) {
        return path("/v1/locks/" + key);
    }

    /** GET of any path (with its query). */
    Reply path(String pathAndQuery) {
        return send(request(uri(pathAndQuery)).GET().build());
    }

    /** GET of a path whose answer is text: the body is a JSON string node holding it. */
    Reply text(String pathAndQuery) {
        try {
            HttpResponse<String> r =
                    HTTP.send(request(uri(pathAndQuery)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(
                    r.statusCode(),
                    r.headers().firstValue("Content-Type").orElse(""),
                    JSON.getNodeFactory().textNode(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The value of one series of this replica's {@code /metrics} now (0 when absent), e.g. {@code zkfence_service_waits_open}. */
    double meter(String series) {
        return meter(text("/metrics").body().asText(), series);
    }

    /** The value of one series in a scrape of {@code /metrics} (0 when absent). */
    static double meter(String scrape, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+-]+)$")
                .matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Any method on any path, with an empty body. */
    Reply call(String method, String pathAndQuery) {
        return send(request(uri(pathAndQuery))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build());
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        return apiKey == null ? b : b.header("Authorization", "Bearer " + apiKey);
    }

    private URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + server.port() + pathAndQuery);
    }

    private static Reply send(HttpRequest request) {
        return ServiceHttp.send(request);
    }

    /**
     * Stops the replica as a crash would: its ZooKeeper session ends first, so nothing it wrote is
     * cleaned up (a waiting acquire's entry stays behind), then its HTTP side stops. Idempotent
     * with {@link #close()}.
     */
    synchronized void crash() {
        if (!closed) {
            closed = true;
            zk.close();
            server.close();
        }
    }

    /** Stops the replica (a test may stop one early); idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            server.close();
            service.close();
            zk.close();
        }
    }
}
