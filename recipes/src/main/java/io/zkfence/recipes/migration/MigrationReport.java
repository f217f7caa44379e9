package io.zkfence.recipes.migration;

import java.time.Duration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * What one {@link FencedFlyway#migrate()} call did. On the runner that migrated,
 * {@code migrationsExecuted} counts its steps; on a runner that waited for another one, it is
 * usually 0 and {@code waited} says how long it waited.
 *
 * @param lockName           the migration lock
 * @param token              this runner's fencing token
 * @param waited             how long it waited for the lock
 * @param migrationsExecuted how many migrations this runner applied
 * @param schemaVersion      the schema version after the call, as Flyway reports it (null for
 *                           a schema with no versioned migration)
 * @param flywayResult       Flyway's own result of the {@code migrate()} call
 */
public record MigrationReport(
        String lockName,
        long token,
        Duration waited,
        int migrationsExecuted,
        String schemaVersion,
        MigrateResult flywayResult) {}
