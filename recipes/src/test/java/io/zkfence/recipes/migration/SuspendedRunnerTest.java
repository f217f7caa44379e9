package io.zkfence.recipes.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LeaseSuspendedException;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.recipes.migration.TestMigrations.Pause;
import io.zkfence.testing.Ensemble;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.listen.UnaryListenerManager;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.junit.jupiter.api.Test;

/**
 * A runner whose connection to ZooKeeper is still suspended after it waited the lease TTL before
 * a step does not know whether it still holds the lock, but nobody is known to have taken over:
 * it stops before the step and reports a failure, not a fencing.
 */
class SuspendedRunnerTest extends MigrationTestBase {

    private static final Duration SESSION = Duration.ofSeconds(4);

    @Test
    void aRunnerStillSuspendedAfterWaitingTheLeaseTtlStopsBeforeTheStepWithAFailureNotAFencing() {
        FreezableProxy proxy = proxy();
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch unstall = new CountDownLatch(1);
        CuratorFramework curator = curatorThrough(proxy);
        LockClient pod = closeLater(LockClient.create(
                curator,
                LockClientConfig.builder()
                        .rootPath(root)
                        .ownerId("pod")
                        .operationTimeout(Duration.ofSeconds(1))
                        .build()));
        // Added after the lock client's own listener, so it runs after the leases became SUSPECT.
        // It then holds Curator's connection-state thread, which is also the thread that would
        // give the session up (LOST) once it has been suspended for the session timeout: the
        // lease stays SUSPECT, however long the runner waits.
        curator.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                stalled.countDown();
                await(unstall);
            }
        });
        closeLater((AutoCloseable) unstall::countDown);
        Callback cutOffBeforeV2 = beforeStep("2", () -> {
            proxy.freeze();
            await(stalled);
        });
        FencedFlyway runner = FencedFlyway.builder(
                        pod,
                        lockName,
                        flyway(new TestMigrations.V2__Pausable_step(Pause.none()))
                                .callbacks(cutOffBeforeV2))
                .build();

        long started = System.nanoTime();
        MigrationFailedException e = assertThrows(MigrationFailedException.class, runner::migrate);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(SESSION);
        assertThat(e.getCause()).isInstanceOf(LeaseSuspendedException.class);
        assertThat(e)
                .hasMessageContaining("suspended")
                .hasMessageContaining("V2 Pausable step")
                .hasMessageContaining("lease TTL")
                .hasMessageContaining(lockName);
        assertThat(e.token()).isPresent();
        assertThat(e.getSuppressed()).hasSize(1); // Flyway's own report of the failed callback
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1)); // V2 never ran
        assertThat(history()).containsExactly("1:true");
        // The fence still holds the runner's own token: nobody newer claimed it.
        assertThat(JdbcFence.create(db).currentToken(lockName))
                .hasValue(e.token().orElseThrow());
    }

    /** A Curator client through {@code proxy} that calls its connection listeners in the order they were added. */
    private CuratorFramework curatorThrough(FreezableProxy proxy) {
        CuratorFramework c = closeLater(CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .ensembleTracker(false) // keep to the proxy
                .sessionTimeoutMs((int) SESSION.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 500))
                .connectionStateListenerManagerFactory(client -> new InOrder())
                .build());
        c.start();
        try {
            assertThat(c.blockUntilConnected((int) Ensemble.PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return c;
    }

    /**
     * A callback that runs {@code action} right before migration {@code version}. Flyway runs
     * callbacks in the order of their names, so "a-..." runs before the runner's own.
     */
    private static Callback beforeStep(String version, Runnable action) {
        return new Callback() {
            @Override
            public boolean supports(Event event, Context context) {
                return event == Event.BEFORE_EACH_MIGRATE;
            }

            @Override
            public boolean canHandleInTransaction(Event event, Context context) {
                return true;
            }

            @Override
            public void handle(Event event, Context context) {
                if (context.getMigrationInfo().getVersion().getVersion().equals(version)) {
                    action.run();
                }
            }

            @Override
            public String getCallbackName() {
                return "a-cut-off";
            }
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Connection listeners called in the order they were added (Curator's own manager keeps no order). */
    private static final class InOrder implements UnaryListenerManager<ConnectionStateListener> {

        private record Entry(ConnectionStateListener listener, Executor executor) {}

        private final List<Entry> entries = new CopyOnWriteArrayList<>();

        @Override
        public void addListener(ConnectionStateListener listener) {
            addListener(listener, Runnable::run);
        }

        @Override
        public void addListener(ConnectionStateListener listener, Executor executor) {
            entries.add(new Entry(listener, executor));
        }

        @Override
        public void removeListener(ConnectionStateListener listener) {
            entries.removeIf(e -> e.listener() == listener);
        }

        @Override
        public void clear() {
            entries.clear();
        }

        @Override
        public int size() {
            return entries.size();
        }

        @Override
        public void forEach(Consumer<ConnectionStateListener> function) {
            for (Entry e : entries) {
                e.executor().execute(() -> function.accept(e.listener()));
            }
        }
    }
}
