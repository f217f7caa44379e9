package io.zkfence.recipes.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.recipes.migration.TestMigrations.Pause;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.junit.jupiter.api.Test;

/**
 * Each step checks the fence, whatever kind of step it is: a newer runner's claim that lands
 * just before a step (here from a user callback that Flyway runs before the runner's own) stops
 * the older runner at that step.
 */
class StepFencingTest extends MigrationTestBase {

    @Test
    void aTransactionalStepIsRolledBackWhenANewerRunnerClaimedTheFenceWhileItRan() {
        FencedFlyway runner = FencedFlyway.builder(
                        client("pod"),
                        lockName,
                        flyway(new TestMigrations.V2__Pausable_step(Pause.none()))
                                .callbacks(newerRunnerClaimsBefore("2")))
                .build();

        MigrationFencedException e = assertThrows(MigrationFencedException.class, runner::migrate);

        assertThat(e.rejectedByFence()).isTrue();
        assertThat(e.migration()).startsWith("V2 Pausable step");
        assertThat(e.storedToken()).hasValue(e.token().orElseThrow() + 1);
        assertThat(e.getCause()).isInstanceOf(JdbcStaleTokenException.class);
        assertThat(e.getSuppressed()).hasSize(1); // Flyway's own report of the failed callback
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1)); // V2's insert was rolled back with the step
        assertThat(history()).containsExactly("1:true");
    }

    @Test
    void aNonTransactionalStepDoesNotRunWhenANewerRunnerClaimedTheFenceBeforeIt() {
        FencedFlyway runner = FencedFlyway.builder(
                        client("pod"),
                        lockName,
                        flyway(new TestMigrations.V2__Outside_transaction()).callbacks(newerRunnerClaimsBefore("2")))
                .build();

        MigrationFencedException e = assertThrows(MigrationFencedException.class, runner::migrate);

        assertThat(e.rejectedByFence()).isTrue();
        assertThat(e.migration()).startsWith("V2 Outside transaction");
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1)); // V2 never ran
        assertThat(history()).containsExactly("1:true");
    }

    @Test
    void aNonTransactionalStepRunsAfterAFreshClaimWhenNobodyNewerIsAround() {
        FencedFlyway runner = FencedFlyway.builder(
                        client("pod"), lockName, flyway(new TestMigrations.V2__Outside_transaction()))
                .build();
        MigrationReport report = runner.migrate();
        assertThat(report.migrationsExecuted()).isEqualTo(3);
        assertThat(stepCounts()).isEqualTo(Map.of("V1", 1, "V2", 1, "V3", 1));
        assertThat(JdbcFence.create(db).currentToken(lockName)).hasValue(report.token());
    }

    @Test
    void theUsersOwnCallbacksStillRun() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Callback recorder = new Callback() {
            @Override
            public boolean supports(Event event, Context context) {
                return event == Event.AFTER_MIGRATE;
            }

            @Override
            public boolean canHandleInTransaction(Event event, Context context) {
                return true;
            }

            @Override
            public void handle(Event event, Context context) {
                seen.add(event.getId());
            }

            @Override
            public String getCallbackName() {
                return "recorder";
            }
        };
        FencedFlyway.builder(
                        client("pod"),
                        lockName,
                        flyway(new TestMigrations.V2__Pausable_step(Pause.none()))
                                .callbacks(recorder))
                .build()
                .migrate();
        assertThat(seen).containsExactly("afterMigrate");
    }

    @Test
    void aCustomFenceKeyIsTheOneAdvanced() {
        MigrationReport report = FencedFlyway.builder(
                        client("pod"), lockName, flyway(new TestMigrations.V2__Pausable_step(Pause.none())))
                .fenceKey("schema:orders")
                .build()
                .migrate();
        JdbcFence fence = JdbcFence.create(db);
        assertThat(fence.currentToken("schema:orders")).hasValue(report.token());
        assertThat(fence.currentToken(lockName)).isEmpty();
    }

    /**
     * A callback that, right before migration {@code version} runs, advances the fence to one
     * more than the runner's token, as a newer runner's claim would. Flyway runs callbacks in the
     * order of their names, so "a-..." runs before the runner's own.
     */
    private Callback newerRunnerClaimsBefore(String version) {
        JdbcFence fence = JdbcFence.create(db);
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
                    String key = lockName;
                    fence.claim(key, fence.currentToken(key).orElseThrow() + 1);
                }
            }

            @Override
            public String getCallbackName() {
                return "a-newer-runner";
            }
        };
    }
}
