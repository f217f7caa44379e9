package io.zkfence.samples.recipes;

import io.zkfence.lock.LockClient;
import io.zkfence.recipes.migration.FencedFlyway;
import io.zkfence.recipes.migration.MigrationReport;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * What every pod of a deployment runs at start-up, before it serves: one pod migrates the
 * schema, the others wait for it and then go on with the schema current. Start it several times
 * at once against the same database: one prints "applied 2", the others "applied 0".
 *
 * <pre>
 * MigrationRunnerSample &lt;zookeeper&gt; &lt;jdbc-url&gt; &lt;user&gt; &lt;password&gt;
 * </pre>
 */
public final class MigrationRunnerSample {

    private MigrationRunnerSample() {}

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: MigrationRunnerSample <zookeeper> <jdbc-url> <user> <password>");
            System.exit(2);
        }
        try (LockClient client = LockClient.connect(args[0])) {
            MigrationReport report = migrate(client, SampleDatabase.postgres(args[1], args[2], args[3]));
            System.out.println("schema at version " + report.schemaVersion() + ": applied "
                    + report.migrationsExecuted() + " migrations with token " + report.token() + " after waiting "
                    + report.waited().toMillis() + " ms");
        }
    }

    // snippet:migrate
    /** At start-up, on every pod: returns once the schema is current, whoever migrated it. */
    static MigrationReport migrate(LockClient client, DataSource dataSource) {
        FencedFlyway migrations = FencedFlyway.builder(
                        client,
                        "db-migration:orders",
                        Flyway.configure().dataSource(dataSource).locations("classpath:db/orders"))
                .waitTimeout(Duration.ofMinutes(10)) // longer than the slowest migration you expect
                .build();
        return migrations.migrate(); // MigrationLockTimeoutException after 10 min: do not start serving
    }
    // end:migrate
}
