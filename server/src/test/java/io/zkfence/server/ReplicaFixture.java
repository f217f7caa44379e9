package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** One replica of the service on a random port, with its own ZooKeeper session, and a real HTTP client for it. */
final class ReplicaFixture implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    final CuratorFramework zk;
    final LockHttpServer server;

    /** A response: status and JSON body. */
    record Reply(int status, JsonNode body) {}

    ReplicaFixture(String connectString, String root) {
        zk = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new ExponentialBackoffRetry(100, 3));
        zk.start();
        try {
            server = new LockHttpServer(new LeaseStore(zk, root, Clock.systemUTC()), new InetSocketAddress("127.0.0.1", 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.start();
    }

    Reply post(String key, String action, String body) {
        return send(HttpRequest.newBuilder(uri(key + "/" + action)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    Reply get(String key) {
        return send(HttpRequest.newBuilder(uri(key)).GET().build());
    }

    private URI uri(String rest) {
        return URI.create("http://127.0.0.1:" + server.port() + "/v1/locks/" + rest);
    }

    private static Reply send(HttpRequest request) {
        try {
            HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), JSON.readTree(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private boolean closed;

    /** Stops the replica (a test may stop one early); idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            server.close();
            zk.close();
        }
    }
}
