package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.PublicApi;
import java.lang.reflect.Modifier;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublicApiTest {

    private static final List<Class<?>> PUBLIC_TYPES = List.of(
            LockClient.class,
            LockClientConfig.class,
            LockClientConfig.Builder.class,
            FencedLock.class,
            Lease.class,
            LeaseState.class,
            LeaseListener.class,
            LockInfo.class,
            LockInfo.Entry.class,
            LockStats.class,
            LockException.class,
            AcquireTimeoutException.class,
            AcquireInterruptedException.class,
            LeaseLostException.class,
            LeaseSuspendedException.class,
            CoordinationException.class,
            LockClientClosedException.class,
            LockClientMetrics.class,
            LockClientMetrics.Builder.class);

    @Test
    void noPublicMethodOrConstructorDeclaresACheckedException() {
        assertThat(PublicApi.declaringCheckedExceptions(PUBLIC_TYPES)).isEmpty();
    }

    @Test
    void everyExceptionIsUncheckedAndALockException() {
        PUBLIC_TYPES.stream().filter(Throwable.class::isAssignableFrom).forEach(t -> {
            assertThat(RuntimeException.class).isAssignableFrom(t);
            assertThat(LockException.class).isAssignableFrom(t);
        });
    }

    @Test
    void thePackageExposesOnlyTheListedTypes() throws Exception {
        // Internals stay package-private: a new public type must be a deliberate API decision.
        List<String> internals = List.of(
                "Acquisition",
                "Grant",
                "GrantRegistry",
                "GuidSource",
                "LockPaths",
                "LockRuntime",
                "NodeData",
                "NodeReaper",
                "OwnNodeWatchSweeper",
                "QueueInspector",
                "QueueNode",
                "SessionMonitor",
                "StatsRecorder",
                "QueuePosition",
                "Ahead",
                "ReleaseRecord",
                "HoldCount",
                "HoldLifecycle",
                "RetryLog",
                "LockObserver");
        for (String name : internals) {
            Class<?> c = Class.forName("io.zkfence.lock." + name);
            assertThat(Modifier.isPublic(c.getModifiers())).as(name).isFalse();
        }
        assertThat(PUBLIC_TYPES).allMatch(c -> Modifier.isPublic(c.getModifiers()));
    }
}
