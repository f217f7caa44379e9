package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.LockClient;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** {@code ./bench-ab}'s two builds side by side: the jar's lock-core is its own, and both take real locks. */
class ReflectiveLockCoreTest {

    @Test
    void aBuildLoadedFromItsOwnClassesIsIsolatedFromTheClassPathsAndTakesTheSameLocks() throws Exception {
        Path lockCoreClasses = Path.of(LockClient.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        ReflectiveLockCore isolated = ReflectiveLockCore.fromJar("isolated", lockCoreClasses);
        ReflectiveLockCore current = ReflectiveLockCore.current();
        assertThat(isolated.clientClass()).isNotSameAs(LockClient.class);
        assertThat(isolated.clientClass().getName()).isEqualTo(LockClient.class.getName());
        assertThat(current.clientClass()).isSameAs(LockClient.class);

        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.start();
                CuratorFramework a = ZkCluster.curator(ensemble.connectString());
                CuratorFramework b = ZkCluster.curator(ensemble.connectString());
                AutoCloseable isolatedClient = isolated.client(a, "/ab", "isolated");
                AutoCloseable currentClient = current.client(b, "/ab", "current")) {
            AtomicInteger ran = new AtomicInteger();
            long first = isolated.lock(isolatedClient, "shared").run(ran::incrementAndGet);
            long second = current.lock(currentClient, "shared").run(ran::incrementAndGet);
            assertThat(ran).hasValue(2);
            assertThat(second)
                    .as("one queue, one token order, whichever build takes it")
                    .isGreaterThan(first);
        }
    }
}
