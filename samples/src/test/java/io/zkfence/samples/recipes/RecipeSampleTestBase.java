package io.zkfence.samples.recipes;

import io.zkfence.lock.LockClient;
import io.zkfence.samples.testing.EnsembleClients;
import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The recipes' samples run against the shared test ensemble and a fresh PostgreSQL database. */
abstract class RecipeSampleTestBase {

    protected Ensemble ensemble;
    protected String root;
    protected TestPostgres db;
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

    @BeforeEach
    void setUp() {
        ensemble = Ensemble.shared();
        root = Ensemble.freshRoot(getClass().getSimpleName());
        db = TestPostgres.freshDatabase();
    }

    @AfterEach
    void tearDown() throws Exception {
        while (!closeables.isEmpty()) {
            closeables.pop().close();
        }
    }

    protected <T extends AutoCloseable> T closeLater(T closeable) {
        closeables.push(closeable);
        return closeable;
    }

    /** A pod: a lock client on its own ZooKeeper session. */
    protected LockClient pod(String name) {
        return closeLater(EnsembleClients.lockClient(ensemble, root, name));
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Ensemble.PATIENCE).pollInterval(Duration.ofMillis(50));
    }
}
