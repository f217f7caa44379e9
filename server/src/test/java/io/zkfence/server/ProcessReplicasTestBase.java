package io.zkfence.server;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Replicas of the service as JVMs of their own ({@link ReplicaProcess}), for tests that pause
 * (SIGSTOP) or kill (SIGKILL) one, over one ensemble per class; a fresh root and key per test.
 */
abstract class ProcessReplicasTestBase {

    static EmbeddedEnsemble ensemble;
    /** Where this test's replicas keep their locks. */
    String root;
    /** A fresh lock key for this test. */
    String key;

    private final List<ReplicaProcess> started = new ArrayList<>();

    @BeforeAll
    static void startEnsemble() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
    }

    @AfterAll
    static void stopEnsemble() {
        ensemble.close();
    }

    @BeforeEach
    void freshRootAndKey() {
        root = "/" + getClass().getSimpleName().toLowerCase(Locale.ROOT) + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    /** A replica in its own JVM over this test's root, with {@code flags} added; stopped after the test. */
    ReplicaProcess replica(String... flags) {
        List<String> args = new ArrayList<>(List.of(
                "--zookeeper",
                ensemble.connectString(),
                "--no-auth",
                "--root",
                root,
                // Ready at once: these tests restart replicas, and the warm-up has its own test.
                "--warm-up-cycles",
                "0"));
        args.addAll(List.of(flags));
        ReplicaProcess replica = new ReplicaProcess(List.of(), args.toArray(String[]::new));
        started.add(replica);
        return replica;
    }

    @AfterEach
    void stopReplicas() {
        for (ReplicaProcess replica : started) {
            replica.resume(); // a paused JVM would not hear SIGTERM
            replica.close();
        }
    }
}
