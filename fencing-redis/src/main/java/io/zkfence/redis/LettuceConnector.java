package io.zkfence.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.sync.RedisFunctionCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A {@link RedisConnector} over a Lettuce connection with the UTF-8 string codec, to one Redis
 * ({@link StatefulRedisConnection}) or a Redis Cluster ({@link StatefulRedisClusterConnection},
 * which sends each script to the node serving its keys' slot). Lettuce connections are
 * thread-safe and meant to be shared: give the fence the application's connection, or one of its
 * own from the application's {@code RedisClient}:
 *
 * <pre>{@code
 * RedisClient client = RedisClient.create("redis://localhost:6379");
 * RedisFence fence = RedisFence.create(LettuceConnector.of(client.connect()));
 * }</pre>
 *
 * <p>The connection stays the caller's to close. Lettuce reconnects by itself; a command cut off
 * by a lost connection fails with Lettuce's exception, which the fence reports as an unknown
 * outcome.
 */
public final class LettuceConnector implements RedisConnector {

    private final StatefulConnection<String, String> connection;
    private final RedisScriptingCommands<String, String> sync;
    private final RedisScriptingAsyncCommands<String, String> async;
    private final RedisFunctionCommands<String, String> functions;
    private final Consumer<String> load;

    private LettuceConnector(
            StatefulConnection<String, String> connection,
            RedisScriptingCommands<String, String> sync,
            RedisScriptingAsyncCommands<String, String> async,
            RedisFunctionCommands<String, String> functions,
            Consumer<String> load) {
        this.connection = connection;
        this.sync = sync;
        this.async = async;
        this.functions = functions;
        this.load = load;
    }

    /**
     * A connector over a connection to one Redis server (or a Sentinel-managed primary).
     *
     * @param connection a connection with a UTF-8 string codec ({@code client.connect()})
     * @return the connector
     */
    public static LettuceConnector of(StatefulRedisConnection<String, String> connection) {
        Objects.requireNonNull(connection, "connection");
        RedisCommands<String, String> sync = connection.sync();
        return new LettuceConnector(
                connection, sync, connection.async(), sync, library -> sync.functionLoad(library, true));
    }

    /**
     * A connector over a Redis Cluster connection.
     *
     * @param connection a cluster connection with a UTF-8 string codec ({@code clusterClient.connect()})
     * @return the connector
     */
    public static LettuceConnector of(StatefulRedisClusterConnection<String, String> connection) {
        Objects.requireNonNull(connection, "connection");
        RedisAdvancedClusterCommands<String, String> sync = connection.sync();
        // Lettuce routes FUNCTION LOAD to one node; the library must be on every primary.
        return new LettuceConnector(
                connection,
                sync,
                connection.async(),
                sync,
                library -> sync.upstream().commands().functionLoad(library, true));
    }

    @Override
    public Object eval(String sha1, String source, List<String> keys, List<String> args) {
        String[] k = keys.toArray(String[]::new);
        String[] a = args.toArray(String[]::new);
        try {
            try {
                return sync.evalsha(sha1, ScriptOutputType.MULTI, k, a);
            } catch (RedisNoScriptException e) {
                return sync.eval(source, ScriptOutputType.MULTI, k, a);
            }
        } catch (RedisCommandExecutionException e) {
            throw new ServerError(e.getMessage(), e);
        }
    }

    @Override
    public Object fcall(String function, String library, List<String> keys, List<String> args) {
        String[] k = keys.toArray(String[]::new);
        String[] a = args.toArray(String[]::new);
        try {
            return Library.call(
                    () -> functions.fcall(function, ScriptOutputType.MULTI, k, a),
                    () -> load.accept(library),
                    RedisCommandExecutionException.class);
        } catch (RedisCommandExecutionException e) {
            throw new ServerError(e.getMessage(), e);
        }
    }

    /** Pipelined: every EVALSHA is sent before the first answer is awaited. */
    @Override
    public List<Object> evalEach(String sha1, String source, List<List<String>> keys, List<List<String>> args) {
        List<RedisFuture<Object>> futures = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            futures.add(async.evalsha(
                    sha1,
                    ScriptOutputType.MULTI,
                    keys.get(i).toArray(String[]::new),
                    args.get(i).toArray(String[]::new)));
        }
        Duration timeout = connection.getTimeout();
        long deadline = System.nanoTime() + timeout.toNanos() * Math.max(1, keys.size() / 1000);
        List<Object> replies = new ArrayList<>(keys.size());
        for (int i = 0; i < futures.size(); i++) {
            try {
                replies.add(futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RedisNoScriptException) {
                    // This node has not seen the script yet (a cluster has one cache per node).
                    replies.add(eval(sha1, source, keys.get(i), args.get(i)));
                } else if (e.getCause() instanceof RedisCommandExecutionException c) {
                    throw new ServerError(c.getMessage(), c);
                } else if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                } else {
                    throw new IllegalStateException(e.getCause());
                }
            } catch (TimeoutException e) {
                throw new io.lettuce.core.RedisCommandTimeoutException(
                        "no answer to " + (futures.size() - i) + " of " + futures.size() + " pipelined scripts");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new io.lettuce.core.RedisCommandInterruptedException(e);
            }
        }
        return replies;
    }

    @Override
    public String describe() {
        return "lettuce " + connection;
    }
}
