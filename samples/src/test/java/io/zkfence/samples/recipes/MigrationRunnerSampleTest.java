package io.zkfence.samples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.recipes.migration.MigrationReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MigrationRunnerSampleTest extends RecipeSampleTestBase {

    @Test
    void threePodsStartingTogetherMigrateOnceAndAllSeeTheCurrentSchema() throws Exception {
        ExecutorService pods = Executors.newFixedThreadPool(3);
        closeLater(pods::shutdownNow);
        List<CompletableFuture<MigrationReport>> reports = List.of("pod-1", "pod-2", "pod-3").stream()
                .map(name -> pod(name))
                .map(client ->
                        CompletableFuture.supplyAsync(() -> MigrationRunnerSample.migrate(client, db.dataSource), pods))
                .toList();
        List<MigrationReport> done = reports.stream()
                .map(f -> f.orTimeout(60, TimeUnit.SECONDS).join())
                .toList();

        assertThat(done).extracting(MigrationReport::migrationsExecuted).containsExactlyInAnyOrder(2, 0, 0);
        assertThat(done).extracting(MigrationReport::schemaVersion).containsOnly("2");
        assertThat(db.rows("select version from flyway_schema_history order by installed_rank"))
                .containsExactly("1", "2");
        assertThat(db.rows("select column_name from information_schema.columns where table_name = 'orders'"
                        + " and column_name = 'status'"))
                .containsExactly("status");
    }

    @Test
    void theMainMigratesAndSaysWhatItDid() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            MigrationRunnerSample.main(new String[] {ensemble.connectString(), db.jdbcUrl(), "postgres", ""});
        } finally {
            System.setOut(original);
        }
        // (The library's log lines may come to the same stream.)
        assertThat(out.toString(StandardCharsets.UTF_8))
                .containsPattern(
                        "(?m)^schema at version 2: applied 2 migrations with token \\d+ after waiting \\d+ ms$");
    }
}
