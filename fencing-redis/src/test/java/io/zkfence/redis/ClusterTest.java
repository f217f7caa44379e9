package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.zkfence.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.HostAndPort;

/**
 * A real Redis Cluster of three primaries (Debian's redis-server with {@code cluster-enabled},
 * the slots split in three): the slot function is the server's, the floors reach every node, a
 * fence works in every node's slots, the server itself refuses a script over keys of two slots, and
 * one node that restarts without persistence refuses its own slots' calls while the others go on.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {

    private static final int[][] RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};

    private static final List<RedisServer> nodes = new ArrayList<>();
    private static final List<RedisClient> nodeClients = new ArrayList<>();
    private static RedisClusterClient cluster;
    private static StatefulRedisClusterConnection<String, String> connection;
    private static RedisFence fence;

    @BeforeAll
    static void startCluster() {
        for (int i = 0; i < RANGES.length; i++) {
            RedisServer node = RedisServer.start(List.of(
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "5000"));
            nodes.add(node);
            RedisClient client = Redis.client(node);
            nodeClients.add(client);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                c.sync()
                        .clusterAddSlots(IntStream.rangeClosed(RANGES[i][0], RANGES[i][1])
                                .toArray());
            }
        }
        try (StatefulRedisConnection<String, String> c = nodeClients.get(0).connect()) {
            for (int i = 1; i < nodes.size(); i++) {
                c.sync().clusterMeet("127.0.0.1", nodes.get(i).port());
            }
        }
        awaitClusterOk();
        RedisURI seed = RedisURI.create(nodes.get(0).uri());
        seed.setTimeout(Redis.TIMEOUT);
        cluster = RedisClusterClient.create(seed);
        cluster.setOptions(ClusterClientOptions.builder()
                .timeoutOptions(io.lettuce.core.TimeoutOptions.enabled(Redis.TIMEOUT))
                .build());
        connection = cluster.connect();
        fence = RedisFence.create(LettuceConnector.of(connection));
        fence.seed(1);
    }

    private static void awaitClusterOk() {
        for (RedisClient client : nodeClients) {
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                Awaitility.await("cluster state ok on every node")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .ignoreExceptions()
                        .until(() -> c.sync().clusterInfo().contains("cluster_state:ok"));
            }
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.shutdown();
        }
        nodeClients.forEach(RedisClient::shutdown);
        nodes.forEach(RedisServer::close);
    }

    /** A fence key in a slot served by node {@code index}. */
    private static String fenceOnNode(int index, String name) {
        for (int i = 0; ; i++) {
            String candidate = name + ":{" + i + "}";
            int slot = Slots.of(candidate);
            if (slot >= RANGES[index][0] && slot <= RANGES[index][1]) {
                return candidate;
            }
        }
    }

    @Test
    void theSlotOfEveryKeyIsTheServersOwn() {
        Random random = new Random(11);
        for (int i = 0; i < 500; i++) {
            String key = "k" + random.nextInt() + (random.nextBoolean() ? "{tag" + random.nextInt(50) + "}" : "")
                    + (random.nextBoolean() ? "ä😀" : "");
            assertThat(Slots.of(key))
                    .as("slot of %s", key)
                    .isEqualTo(connection.sync().clusterKeyslot(key).intValue());
        }
    }

    @Test
    void theFloorsReachEveryNode() {
        for (int i = 0; i < nodes.size(); i++) {
            try (StatefulRedisConnection<String, String> c = nodeClients.get(i).connect()) {
                List<String> floors = c.sync().keys("zkfence:floor:*");
                assertThat(floors).as("floors on node %d", i).hasSize(RANGES[i][1] - RANGES[i][0] + 1);
            }
        }
    }

    @Test
    void aFenceWorksInTheSlotsOfEveryNode() {
        for (int i = 0; i < nodes.size(); i++) {
            String f = fenceOnNode(i, "inventory-" + System.nanoTime());
            String stock = "stock:" + f.substring(f.indexOf('{'));
            fence.write(f, 5, RedisWrite.set(stock, "by 5"), RedisWrite.incrBy(stock + ":n", 1));
            fence.write(f, 7, RedisWrite.set(stock, "by 7"));

            assertThrows(RedisStaleTokenException.class, () -> fence.write(f, 5, RedisWrite.set(stock, "late")));
            assertThat(connection.sync().get(stock)).isEqualTo("by 7");
            assertThat(fence.token(f)).hasValue(7);
        }
    }

    /** One miss loads the library on every primary, through each connector. */
    @Test
    void theFunctionsAreLoadedOnEveryPrimary() {
        HostAndPort first = new HostAndPort("127.0.0.1", nodes.get(0).port());
        try (redis.clients.jedis.RedisClusterClient jedis = redis.clients.jedis.RedisClusterClient.create(first)) {
            for (RedisFence each : List.of(fence, RedisFence.create(JedisConnector.of(jedis)))) {
                for (RedisClient client : nodeClients) {
                    try (StatefulRedisConnection<String, String> c = client.connect()) {
                        c.sync().functionFlush(FlushMode.SYNC);
                    }
                }

                each.claim(fenceOnNode(0, "functions-" + System.nanoTime()), 3);

                for (int i = 0; i < nodes.size(); i++) {
                    try (StatefulRedisConnection<String, String> c =
                            nodeClients.get(i).connect()) {
                        assertThat(Redis.libraries(c.sync()))
                                .as("libraries on node %d", i)
                                .contains(Scripts.LIBRARY.name());
                    }
                    String f = fenceOnNode(i, "functions-" + System.nanoTime());
                    each.claim(f, 3);
                    assertThrows(RedisStaleTokenException.class, () -> each.claim(f, 2));
                }
            }
        }
    }

    @Test
    void theServerItselfRefusesAScriptOverKeysOfTwoSlots() {
        RedisConnector raw = LettuceConnector.of(connection);
        String f = fenceOnNode(0, "cross");
        String elsewhere = null; // a key on the same node, in another slot
        for (int i = 0; elsewhere == null; i++) {
            int slot = Slots.of("elsewhere-" + i);
            if (slot <= RANGES[0][1] && slot != Slots.of(f)) {
                elsewhere = "elsewhere-" + i;
            }
        }
        String other = elsewhere;
        FenceKeys keys = new FenceKeys("zkfence:");
        String record = keys.record(f, "test");

        RedisConnector.ServerError e = assertThrows(
                RedisConnector.ServerError.class,
                () -> raw.eval(
                        Scripts.WRITES.sha1(),
                        Scripts.WRITES.source(),
                        List.of(record, keys.floor(Slots.of(record)), other),
                        List.of("9", "strict", "1", "SET", "1", "1", "x")));

        assertThat(e.getMessage()).containsAnyOf("CROSSSLOT", "cross slot", "non local key");
        assertThat(connection.sync().exists(other)).isZero();
    }

    /**
     * Next to last (it restarts a node): loading the library after a miss fails on a primary that is
     * down, and the call goes on on the primary it needs, which did load it.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void aPrimaryThatIsDownDoesNotStopTheCallThatLoadsTheLibraryOnAnother() {
        String onNode0 = fenceOnNode(0, "load-" + System.nanoTime());
        fence.claim(onNode0, 3);
        RedisServer node2 = nodes.get(2);
        node2.kill();
        try (StatefulRedisConnection<String, String> c = nodeClients.get(0).connect()) {
            c.sync().functionFlush(FlushMode.SYNC);
        }

        fence.claim(onNode0, 4);

        assertThat(fence.token(onNode0)).hasValue(4);
        try (StatefulRedisConnection<String, String> c = nodeClients.get(0).connect()) {
            assertThat(Redis.libraries(c.sync())).contains(Scripts.LIBRARY.name());
        }
        node2.restart();
        awaitClusterOk();
        // Node 2 came back without its data (no persistence): its slots need floors again.
        Awaitility.await("node 2 seeded again")
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptionsInstanceOf(RedisFenceException.class)
                .until(() -> fence.seed(2) >= 2);
    }

    /** Last: it seeds every slot with a higher floor. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aNodeThatRestartsWithoutPersistenceRefusesItsSlotsUntilSeededWhileTheOthersGoOn() {
        String onNode1 = fenceOnNode(1, "restart-" + System.nanoTime());
        String onNode0 = fenceOnNode(0, "steady-" + System.nanoTime());
        fence.claim(onNode1, 7);
        fence.claim(onNode0, 7);

        RedisServer node1 = nodes.get(1);
        node1.kill();
        node1.restart();
        awaitClusterOk();

        Awaitility.await("node 1's slots answer again")
                .atMost(Duration.ofSeconds(60))
                .ignoreExceptionsInstanceOf(RedisFenceException.class)
                .until(() -> {
                    try {
                        fence.claim(onNode1, 5);
                        return false;
                    } catch (RedisFenceNotSeededException e) {
                        return true;
                    }
                });
        fence.claim(onNode0, 7);
        assertThrows(RedisStaleTokenException.class, () -> fence.claim(onNode0, 5));

        fence.seed(8);
        assertThrows(RedisStaleTokenException.class, () -> fence.claim(onNode1, 7));
        fence.claim(onNode1, 8);
    }
}
