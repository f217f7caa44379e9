package io.zkfence.redis;

import java.io.Serial;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link RedisFence} reaches Redis: it runs Lua scripts and functions and nothing else, so a
 * client library needs only this much to carry fenced writes. zkfence ships {@link LettuceConnector}
 * (Lettuce, what Spring Data Redis uses) and {@link JedisConnector} (Jedis); another client
 * implements {@link #eval} and {@link #describe}, and {@link #fcall} for the cheaper fenced writes of
 * Redis 7 (without it the fence sends every write as a script, as on Redis 6).
 *
 * <p>Contract for implementations:
 * <ul>
 * <li>{@link #eval} sends {@code EVALSHA sha1}; when the server answers {@code NOSCRIPT} (its
 *     script cache does not hold it: after a restart, a failover, {@code SCRIPT FLUSH}) it sends
 *     {@code EVAL source} with the same keys and arguments. On Redis Cluster the call goes to the
 *     node serving the first key's slot (every key of a call is in one slot).</li>
 * <li>{@link #fcall} sends {@code FCALL function}; when the server answers that it has no such
 *     function ({@code ERR Function not found}: a new server, a restart without persistence,
 *     {@code FUNCTION FLUSH}) it loads the library ({@code FUNCTION LOAD REPLACE}; on Redis Cluster
 *     on every primary) and sends the {@code FCALL} again. Routed as {@link #eval} is.</li>
 * <li>Replies are mapped to Java as: integer to {@link Long}, bulk and status strings to
 *     {@link String} (UTF-8), array to {@link List} of these, nil to {@code null}.</li>
 * <li>An error reply from the server is thrown as {@link ServerError}; any other exception (a
 *     timeout, a closed connection) is thrown as the client's own, and the fence reports that the
 *     call's outcome is unknown.</li>
 * <li>Thread-safe: a fence calls it from every thread that writes.</li>
 * </ul>
 */
public interface RedisConnector {

    /**
     * Runs one script.
     *
     * @param sha1 the script's SHA1, as {@code EVALSHA} takes it
     * @param source the script, sent when the server does not know the SHA1
     * @param keys the script's {@code KEYS}, all in one hash slot
     * @param args the script's {@code ARGV}
     * @return the reply, mapped as the interface says
     * @throws ServerError when the server answered with an error
     */
    Object eval(String sha1, String source, List<String> keys, List<String> args);

    /**
     * Calls one function of a Redis 7 function library, loading the library first when the server
     * does not have it.
     *
     * <p>The default throws {@link UnsupportedOperationException}: a fence then sends its writes
     * with {@link #eval}, as it does on a server without functions (Redis before 7.0).
     *
     * @param function the function's name, as {@code FCALL} takes it
     * @param library the library's source, as {@code FUNCTION LOAD} takes it, sent when the server
     *     does not know the function
     * @param keys the function's keys, all in one hash slot
     * @param args the function's arguments
     * @return the reply, mapped as the interface says
     * @throws ServerError when the server answered with an error (a server without {@code FCALL}
     *     answers {@code ERR unknown command})
     * @throws UnsupportedOperationException when this connector does not call functions
     */
    default Object fcall(String function, String library, List<String> keys, List<String> args) {
        throw new UnsupportedOperationException(describe() + " does not call Redis functions");
    }

    /**
     * Runs one script once per entry of {@code keys} (with the matching {@code args}), sent
     * together where the client can pipeline; {@link RedisFence#seed(long)} uses it for the
     * floors of all 16,384 slots. The default runs them one after the other.
     *
     * @param sha1 the script's SHA1
     * @param source the script
     * @param keys the keys of each call
     * @param args the arguments of each call
     * @return the replies, in order
     * @throws ServerError when the server answered a call with an error
     */
    default List<Object> evalEach(String sha1, String source, List<List<String>> keys, List<List<String>> args) {
        List<Object> replies = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            replies.add(eval(sha1, source, keys.get(i), args.get(i)));
        }
        return replies;
    }

    /**
     * What this connector talks to, for messages ({@code lettuce redis://10.0.0.5:6379}).
     *
     * @return a short description
     */
    String describe();

    /** The server answered a call with an error reply; its message is the server's. */
    final class ServerError extends RuntimeException {

        @Serial
        private static final long serialVersionUID = 1L;

        /**
         * Creates it.
         *
         * @param message the server's error, e.g. {@code ERR Error running script ...}
         * @param cause the client's exception
         */
        public ServerError(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
