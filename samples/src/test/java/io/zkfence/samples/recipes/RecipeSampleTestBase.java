package io.zkfence.samples.recipes;

import io.zkfence.lock.LockClient;
import io.zkfence.samples.testing.EnsembleClients;
import io.zkfence.testing.Ensemble;
import io.zkfence.testing.Teardown;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The recipes' samples run against the shared test ensemble and a fresh PostgreSQL database. */
abstract class RecipeSampleTestBase {

    protected Ensemble ensemble;
    protected String root;
    protected TestPostgres db;

    @RegisterExtension
    final Teardown teardown = Teardown.afterEach();

    @BeforeEach
    void setUp() {
        ensemble = Ensemble.shared();
        root = Ensemble.freshRoot(getClass().getSimpleName());
        db = TestPostgres.freshDatabase();
    }

    protected <T extends AutoCloseable> T closeLater(T closeable) {
        return teardown.closeLater(closeable);
    }

    /** A pod: a lock client on its own ZooKeeper session. */
    protected LockClient pod(String name) {
        return closeLater(EnsembleClients.lockClient(ensemble, root, name));
    }

    protected static ConditionFactory eventually() {
        return Awaitility.await().atMost(Ensemble.PATIENCE).pollInterval(Duration.ofMillis(50));
    }
}
