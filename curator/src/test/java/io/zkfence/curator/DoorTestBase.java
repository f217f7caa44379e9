package io.zkfence.curator;

import io.zkfence.testing.Teardown;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One embedded ensemble per class; a fresh lock path and fresh Curator clients per test. */
abstract class DoorTestBase {

    /** The class's ensemble, stopped after its last test. */
    @RegisterExtension
    static final Teardown ensemble = Teardown.afterAll();
    /** The test's Curator clients, closed after it, newest first. */
    @RegisterExtension
    final Teardown clients = Teardown.afterEach();

    static EmbeddedEnsemble zk;
    String path;

    @BeforeAll
    static void startEnsemble() {
        zk = ensemble.closeLater(EmbeddedEnsemble.builder().servers(1).start());
    }

    @BeforeEach
    void freshPath() {
        path = "/locks/door-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** A started Curator client on its own session; closed after the test. */
    CuratorFramework curator() {
        CuratorFramework c = CuratorFrameworkFactory.newClient(
                zk.connectString(), 10_000, 5_000, new ExponentialBackoffRetry(100, 3));
        c.start();
        return clients.closeLater(c);
    }

    static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20));
    }
}
