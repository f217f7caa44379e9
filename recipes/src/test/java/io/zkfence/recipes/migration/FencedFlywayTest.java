package io.zkfence.recipes.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.migration.TestMigrations.Pause;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;

class FencedFlywayTest extends MigrationTestBase {

    @Test
    void twoRunnersStartedTogetherApplyEachMigrationOnceAndTheSecondWaitsForTheFirst() throws Exception {
        LockClient observer = client("observer");
        Pause pause = new Pause(); // whoever migrates first stops in V2 until the other is seen waiting
        FencedFlyway a = FencedFlyway.builder(
                        client("pod-a"), lockName, flyway(new TestMigrations.V2__Pausable_step(pause)))
                .build();
        FencedFlyway b = FencedFlyway.builder(
                        client("pod-b"), lockName, flyway(new TestMigrations.V2__Pausable_step(pause)))
                .build();
        CyclicBarrier together = new CyclicBarrier(2);
        CompletableFuture<MigrationReport> ra = async(() -> migrateAfter(together, a));
        CompletableFuture<MigrationReport> rb = async(() -> migrateAfter(together, b));

        assertThat(pause.entered.await(60, TimeUnit.SECONDS)).isTrue();
        eventually().until(() -> observer.inspect(lockName).waiters().size() == 1); // the other pod waits at the lock
        pause.release.countDown();
        MigrationReport first = ra.get(60, TimeUnit.SECONDS);
        MigrationReport second = rb.get(60, TimeUnit.SECONDS);
        if (first.migrationsExecuted() == 0) {
            MigrationReport t = first;
            first = second;
            second = t;
        }

        assertThat(first.migrationsExecuted()).isEqualTo(3);
        assertThat(second.migrationsExecuted()).isZero();
        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.waited()).isPositive();
        assertThat(first.schemaVersion()).isEqualTo("3");
        assertThat(second.schemaVersion()).isEqualTo("3");
        assertThat(second.lockName()).isEqualTo(lockName);
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1, "V2", 1, "V3", 1));
        assertThat(history()).containsExactly("1:true", "2:true", "3:true");
        assertThat(JdbcFence.create(db).currentToken(lockName)).hasValue(second.token());
    }

    @Test
    void aRunnerPausedMidMigrationPastItsSessionIsFencedOutAndTheNewerRunnerCompletes() throws Exception {
        LockClient observer = client("observer");
        FreezableProxy proxy = proxy();
        LockClient pausedPod = clientThrough(proxy, "paused-pod", SHORT_SESSION, Duration.ofSeconds(1));
        Pause pause = new Pause();
        FencedFlyway paused = FencedFlyway.builder(
                        pausedPod, lockName, flyway(new TestMigrations.V2__Pausable_step(pause)))
                .build();
        FencedFlyway newer = FencedFlyway.builder(
                        client("newer-pod"), lockName, flyway(new TestMigrations.V2__Pausable_step(pause)))
                .build();
        JdbcFence fence = JdbcFence.create(db);

        CompletableFuture<MigrationReport> pausedRun = async(paused::migrate);
        assertThat(pause.entered.await(60, TimeUnit.SECONDS)).isTrue(); // V1 applied, V2 half done
        long pausedToken = fence.currentToken(lockName).orElseThrow();
        CompletableFuture<MigrationReport> newerRun = async(newer::migrate);
        eventually().until(() -> observer.inspect(lockName).waiters().size() == 1);

        // The paused runner is cut off past its session: the servers expire it, the newer runner
        // is granted the lock and claims the fence with its higher token.
        proxy.freeze();
        eventually().until(() -> fence.currentToken(lockName).orElseThrow() > pausedToken);
        long newerToken = fence.currentToken(lockName).orElseThrow();

        // The paused runner wakes up and finishes V2's statements: the fence rejects the step.
        pause.release.countDown();
        ExecutionException failure = assertThrows(ExecutionException.class, () -> pausedRun.get(60, TimeUnit.SECONDS));
        MigrationFencedException fenced = (MigrationFencedException) failure.getCause();
        assertThat(fenced.rejectedByFence()).isTrue();
        assertThat(fenced.storedToken()).hasValue(newerToken);
        assertThat(fenced.token()).hasValue(pausedToken);
        assertThat(fenced.lockName()).isEqualTo(lockName);
        assertThat(fenced.migration()).startsWith("V2 Pausable step");
        assertThat(fenced.getCause()).isInstanceOf(JdbcStaleTokenException.class);
        assertThat(fenced).hasMessageContaining(lockName).hasMessageContaining(Long.toString(pausedToken));

        MigrationReport report = newerRun.get(60, TimeUnit.SECONDS);
        assertThat(report.token()).isEqualTo(newerToken);
        assertThat(report.migrationsExecuted()).isEqualTo(2);
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1, "V2", 1, "V3", 1)); // the paused V2 was rolled back
        assertThat(history()).containsExactly("1:true", "2:true", "3:true");
        proxy.thaw();
    }

    @Test
    void aRunnerThatWaitsLongerThanItsWaitTimeoutFailsNamingTheHolder() {
        LockClient holderClient = client("pod-busy");
        FencedFlyway waiting = FencedFlyway.builder(
                        client("pod-waiting"), lockName, flyway(new TestMigrations.V2__Pausable_step(Pause.none())))
                .waitTimeout(Duration.ofSeconds(1))
                .build();
        try (Lease busy = holderClient.lock(lockName).acquire()) {
            MigrationLockTimeoutException e = assertThrows(MigrationLockTimeoutException.class, waiting::migrate);
            assertThat(e.lockName()).isEqualTo(lockName);
            assertThat(e.waited()).isEqualTo(Duration.ofSeconds(1));
            assertThat(e.holder()).contains("pod-busy (token " + busy.token() + ")");
            assertThat(e).hasMessageContaining(lockName).hasMessageContaining("pod-busy");
            assertThat(e.token()).isEmpty();
        }
        assertThat(tableExists("flyway_schema_history")).isFalse();
        assertThat(waiting.migrate().migrationsExecuted()).isEqualTo(3); // once the lock is free
    }

    @Test
    void whenARunnerFailsTheNextOneInLineTakesOver() {
        AtomicBoolean failNext = new AtomicBoolean(true);
        FencedFlyway a = FencedFlyway.builder(
                        client("pod-a"), lockName, flyway(new TestMigrations.V2__Fails_once(failNext)))
                .build();
        FencedFlyway b = FencedFlyway.builder(
                        client("pod-b"), lockName, flyway(new TestMigrations.V2__Fails_once(failNext)))
                .build();

        MigrationFailedException e = assertThrows(MigrationFailedException.class, a::migrate);
        assertThat(e.getCause()).isInstanceOf(FlywayException.class);
        assertThat(e)
                .hasMessageContaining(lockName)
                .hasMessageContaining("token " + e.token().orElseThrow());
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1)); // V2 rolled back
        assertThat(history()).containsExactly("1:true");

        MigrationReport report = b.migrate();
        assertThat(report.migrationsExecuted()).isEqualTo(2);
        assertThat(report.token()).isGreaterThan(e.token().orElseThrow());
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1, "V2", 1, "V3", 1));
    }

    @Test
    void migratingAnUpToDateSchemaAppliesNothing() {
        FencedFlyway runner = FencedFlyway.builder(
                        client("pod"), lockName, flyway(new TestMigrations.V2__Pausable_step(Pause.none())))
                .build();
        MigrationReport first = runner.migrate();
        MigrationReport again = runner.migrate();
        assertThat(first.migrationsExecuted()).isEqualTo(3);
        assertThat(again.migrationsExecuted()).isZero();
        assertThat(again.schemaVersion()).isEqualTo("3");
        assertThat(again.token()).isGreaterThan(first.token());
        assertThat(again.flywayResult().success).isTrue();
        assertThat(List.of(first.waited(), again.waited())).allMatch(d -> !d.isNegative());
    }

    private static MigrationReport migrateAfter(CyclicBarrier barrier, FencedFlyway runner) {
        try {
            barrier.await(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return runner.migrate();
    }
}
