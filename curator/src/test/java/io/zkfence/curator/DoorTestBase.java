package io.zkfence.curator;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** One embedded ensemble per class; a fresh lock path and fresh Curator clients per test. */
abstract class DoorTestBase {

    static EmbeddedEnsemble zk;
    String path;
    private final Deque<CuratorFramework> clients = new ArrayDeque<>();

    @BeforeAll
    static void startEnsemble() {
        zk = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopEnsemble() {
        zk.close();
    }

    @BeforeEach
    void freshPath() {
        path = "/locks/door-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeClients() {
        while (!clients.isEmpty()) {
            clients.pop().close();
        }
    }

    /** A started Curator client on its own session; closed after the test. */
    CuratorFramework curator() {
        CuratorFramework c = CuratorFrameworkFactory.newClient(zk.connectString(), 10_000, 5_000,
                new ExponentialBackoffRetry(100, 3));
        c.start();
        clients.push(c);
        return c;
    }

    static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20));
    }
}
