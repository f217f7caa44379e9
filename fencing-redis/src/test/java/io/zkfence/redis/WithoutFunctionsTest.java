package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.CommandType;
import io.zkfence.testing.RedisServer;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Where the fence cannot call Redis functions (a server before Redis 7.0, or a connector that does
 * not implement {@link RedisConnector#fcall}, a user whose ACL forbids {@code FCALL}) it sends its writes as scripts, with the same promises.
 * A server whose {@code FCALL} is renamed away answers as Redis 6 does: {@code ERR unknown command}.
 */
class WithoutFunctionsTest {

    private static void holdersWriteAndTheStaleOneIsRefused(RedisFence fence, RedisCommands<String, String> redis) {
        String tag = "{" + UUID.randomUUID() + "}";
        String f = "inventory:" + tag;
        String stock = "stock:" + tag;
        fence.write(f, 5, RedisWrite.set(stock, "by 5"));
        fence.write(f, 7, RedisWrite.set(stock, "by 7"), RedisWrite.incrBy(stock + ":n", 1));

        RedisStaleTokenException e =
                assertThrows(RedisStaleTokenException.class, () -> fence.write(f, 5, RedisWrite.set(stock, "late")));
        assertThat(e.storedToken()).isEqualTo(7);
        assertThat(redis.get(stock)).isEqualTo("by 7");
        assertThat(fence.token(f)).hasValue(7);
    }

    @Test
    void aServerWithoutFcallGetsTheWritesAsScripts() {
        try (RedisServer server = RedisServer.start(List.of("--rename-command", "FCALL", ""))) {
            RedisClient client = Redis.client(server);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisFence fence = RedisFence.create(LettuceConnector.of(connection));
                fence.seed(1);

                holdersWriteAndTheStaleOneIsRefused(fence, connection.sync());

                assertThat(Redis.libraries(connection.sync())).isEmpty();
                assertThat(connection.sync().info("commandstats")).contains("cmdstat_evalsha:calls=");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void aUserWhoseAclForbidsFunctionsGetsTheWritesAsScripts() {
        Redis.seedOnce();
        String user = "no-functions-" + UUID.randomUUID();
        Redis.plain()
                .aclSetuser(
                        user,
                        AclSetuserArgs.Builder.on()
                                .addPassword("secret")
                                .allKeys()
                                .allChannels()
                                .allCommands()
                                .removeCommand(CommandType.FCALL)
                                .removeCommand(CommandType.FUNCTION));
        RedisURI uri = RedisURI.builder(RedisURI.create(Redis.server().uri()))
                .withAuthentication(user, "secret")
                .withTimeout(Redis.TIMEOUT)
                .build();
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            holdersWriteAndTheStaleOneIsRefused(RedisFence.create(LettuceConnector.of(connection)), Redis.plain());
        } finally {
            client.shutdown();
            Redis.plain().aclDeluser(user);
        }
    }

    /** Redis 6 quotes the command with backticks where Redis 7 uses single quotes. */
    @Test
    void redis6sWordingOfAnUnknownCommandAlsoSendsTheWritesAsScripts() {
        RedisConnector lettuce = LettuceConnector.of(Redis.connection());
        RedisConnector redis6 = new RedisConnector() {
            @Override
            public Object eval(String sha1, String source, List<String> keys, List<String> args) {
                return lettuce.eval(sha1, source, keys, args);
            }

            @Override
            public Object fcall(String function, String library, List<String> keys, List<String> args) {
                throw new ServerError(
                        "ERR unknown command `FCALL`, with args beginning with: `" + function + "`, `3`, ", null);
            }

            @Override
            public String describe() {
                return "as Redis 6 answers";
            }
        };
        Redis.seedOnce();

        holdersWriteAndTheStaleOneIsRefused(RedisFence.create(redis6), Redis.plain());
    }

    @Test
    void aConnectorWithoutFcallGetsTheWritesAsScripts() {
        RedisConnector lettuce = LettuceConnector.of(Redis.connection());
        RedisConnector evalOnly = new RedisConnector() {
            @Override
            public Object eval(String sha1, String source, List<String> keys, List<String> args) {
                return lettuce.eval(sha1, source, keys, args);
            }

            @Override
            public String describe() {
                return "eval only";
            }
        };
        Redis.seedOnce();

        holdersWriteAndTheStaleOneIsRefused(RedisFence.create(evalOnly), Redis.plain());
    }
}
