package io.zkfence.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.zkfence.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The test JVM's Redis as the tests use it: the shared server ({@link RedisServer#shared()}), one
 * Lettuce client with short timeouts, and a fence over it seeded once (floor 1).
 */
final class Redis {

    /** Command timeout: a call to a dead server fails in this time, not Lettuce's default minute. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static boolean seeded;

    private Redis() {}

    static RedisServer server() {
        return RedisServer.shared();
    }

    /** A client for {@code server} whose commands time out after {@link #TIMEOUT}. */
    static RedisClient client(RedisServer server) {
        RedisURI uri = RedisURI.create(server.uri());
        uri.setTimeout(TIMEOUT);
        RedisClient c = RedisClient.create(uri);
        c.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
                .build());
        return c;
    }

    /** The shared connection to the shared server (thread-safe, as Lettuce connections are). */
    static synchronized StatefulRedisConnection<String, String> connection() {
        if (connection == null) {
            client = client(server());
            connection = client.connect();
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown, "stop-lettuce"));
        }
        return connection;
    }

    /** Plain commands on the shared server: the tests' own eyes and the unfenced writers. */
    static RedisCommands<String, String> plain() {
        return connection().sync();
    }

    /** The names of the function libraries a server holds ({@code FUNCTION LIST}). */
    static List<String> libraries(RedisCommands<String, String> redis) {
        List<String> names = new ArrayList<>();
        for (Map<String, Object> library : redis.functionList()) {
            names.add((String) library.get("library_name"));
        }
        return names;
    }

    /** A fence over the shared connection, counting what it sends; the server is seeded (floor 1). */
    static RedisFence fence(CountingConnector counting) {
        seedOnce();
        return RedisFence.create(counting);
    }

    /** Seeds the shared server once (floor 1), through a connector of its own: nothing is counted. */
    static synchronized void seedOnce() {
        if (!seeded) {
            RedisFence.create(LettuceConnector.of(connection())).seed(1);
            seeded = true;
        }
    }

    /** A connector that counts the scripts it runs (each one request to the server). */
    static final class CountingConnector implements RedisConnector {
        private final RedisConnector delegate;
        private final AtomicLong calls = new AtomicLong();

        CountingConnector(RedisConnector delegate) {
            this.delegate = delegate;
        }

        long calls() {
            return calls.get();
        }

        @Override
        public Object eval(String sha1, String source, List<String> keys, List<String> args) {
            calls.incrementAndGet();
            return delegate.eval(sha1, source, keys, args);
        }

        @Override
        public Object fcall(String function, String library, List<String> keys, List<String> args) {
            calls.incrementAndGet();
            return delegate.fcall(function, library, keys, args);
        }

        @Override
        public List<Object> evalEach(String sha1, String source, List<List<String>> keys, List<List<String>> args) {
            calls.addAndGet(keys.size());
            return delegate.evalEach(sha1, source, keys, args);
        }

        @Override
        public String describe() {
            return delegate.describe();
        }
    }
}
