package io.zkfence.server;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** Two replicas of the service ({@link #a}, {@link #b}) on a fresh root of one ensemble per class. */
abstract class TwoReplicasTestBase {

    private static EmbeddedEnsemble ensemble;
    ReplicaFixture a;
    ReplicaFixture b;
    /** Where both replicas keep their locks, fresh for each test. */
    String root;

    @BeforeAll
    static void startEnsemble() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    @BeforeEach
    void twoReplicas() {
        root = "/service-" + UUID.randomUUID().toString().substring(0, 8);
        a = new ReplicaFixture(ensemble.connectString(), root);
        b = new ReplicaFixture(ensemble.connectString(), root);
    }

    /** The ensemble's connect string, for a third replica or a raw client. */
    static String connectString() {
        return ensemble.connectString();
    }

    @AfterEach
    void stopReplicas() {
        a.close();
        b.close();
    }
}
