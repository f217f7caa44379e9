package io.zkfence.samples.testing;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testing.Ensemble;
import java.time.Duration;

/** Lock clients on the test ensemble (test-support cannot make them: it must not depend on lock-core). */
public final class EnsembleClients {

    private EnsembleClients() {}

    /** A lock client on its own 10 s session on the whole ensemble, under {@code root}. */
    public static LockClient lockClient(Ensemble ensemble, String root, String ownerId) {
        return LockClient.connect(
                ensemble.connectString(),
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId(ownerId)
                        .sessionTimeout(Duration.ofSeconds(10))
                        .build());
    }
}
