package io.zkfence.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.recipes.cache.CacheRebuild;
import io.zkfence.recipes.cache.CacheRebuildException;
import io.zkfence.recipes.cache.CacheRebuildTimeoutException;
import io.zkfence.recipes.cache.CacheStore;
import io.zkfence.recipes.cache.CachedValue;
import io.zkfence.recipes.cache.JdbcCacheStore;
import io.zkfence.recipes.files.FilePass;
import io.zkfence.recipes.files.FileProcessor;
import io.zkfence.recipes.files.FileTask;
import io.zkfence.recipes.jobs.JobOutcome;
import io.zkfence.recipes.jobs.JobRun;
import io.zkfence.recipes.jobs.JobRunner;
import io.zkfence.recipes.jobs.JobSchedule;
import io.zkfence.recipes.jobs.JobTask;
import io.zkfence.recipes.jobs.RunOnceJob;
import io.zkfence.recipes.leader.Leader;
import io.zkfence.recipes.leader.LeaderElection;
import io.zkfence.recipes.leader.Leadership;
import io.zkfence.recipes.leader.LeadershipListener;
import io.zkfence.recipes.migration.FencedFlyway;
import io.zkfence.recipes.migration.MigrationException;
import io.zkfence.recipes.migration.MigrationFailedException;
import io.zkfence.recipes.migration.MigrationFencedException;
import io.zkfence.recipes.migration.MigrationLockTimeoutException;
import io.zkfence.recipes.migration.MigrationReport;
import io.zkfence.testing.PublicApi;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class PublicApiTest {

    private static final List<Class<?>> PUBLIC_TYPES = List.of(
            LeaderElection.class,
            LeaderElection.Builder.class,
            Leadership.class,
            LeadershipListener.class,
            Leader.class,
            JobRunner.class,
            RunOnceJob.class,
            RunOnceJob.Builder.class,
            JobRun.class,
            JobTask.class,
            JobOutcome.class,
            JobSchedule.class,
            FencedFlyway.class,
            FencedFlyway.Builder.class,
            MigrationReport.class,
            MigrationException.class,
            MigrationLockTimeoutException.class,
            MigrationFencedException.class,
            MigrationFailedException.class,
            CacheRebuild.class,
            CacheRebuild.Builder.class,
            CacheStore.class,
            CachedValue.class,
            JdbcCacheStore.class,
            CacheRebuildException.class,
            CacheRebuildTimeoutException.class,
            FileProcessor.class,
            FileProcessor.Builder.class,
            FileTask.class,
            FilePass.class);

    @Test
    void noPublicMethodOrConstructorDeclaresACheckedException() {
        assertThat(PublicApi.declaringCheckedExceptions(PUBLIC_TYPES)).isEmpty();
    }

    @Test
    void theMigrationRunnersExceptionsAreUncheckedMigrationExceptions() {
        PUBLIC_TYPES.stream()
                .filter(Throwable.class::isAssignableFrom)
                .filter(t -> t.getPackageName().endsWith(".migration"))
                .forEach(t -> {
                    assertThat(RuntimeException.class).isAssignableFrom(t);
                    assertThat(MigrationException.class).isAssignableFrom(t);
                });
    }

    @Test
    void everyOtherClassOfTheModuleIsPackagePrivate() throws IOException {
        Path classes = Path.of("target/classes/io/zkfence/recipes");
        List<String> publicTypes = PUBLIC_TYPES.stream().map(Class::getName).toList();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = classes.getParent()
                        .getParent()
                        .getParent()
                        .relativize(f)
                        .toString()
                        .replace('/', '.')
                        .replaceAll("\\.class$", "");
                Class<?> c = loadQuietly(name);
                if (c.isAnonymousClass() || c.isSynthetic() || c.isLocalClass()) {
                    continue;
                }
                boolean exposed = Modifier.isPublic(c.getModifiers())
                        && (c.getEnclosingClass() == null
                                || Modifier.isPublic(c.getEnclosingClass().getModifiers()));
                assertThat(exposed).as(name).isEqualTo(publicTypes.contains(name));
            }
        }
    }

    /**
     * Flyway, jOOQ and fencing-jdbc are optional dependencies, for the migration runner only: a
     * user of leader election or run-once jobs must not need them on the class path.
     */
    @Test
    void leaderElectionAndJobsDoNotReferToFlywayOrJdbcFencing() throws IOException {
        for (String pkg : List.of("leader", "jobs")) {
            Path dir = Path.of("target/classes/io/zkfence/recipes", pkg);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    String bytes;
                    try (InputStream in = Files.newInputStream(f)) {
                        bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                    }
                    assertThat(bytes)
                            .as(f.toString())
                            .doesNotContain("org/flywaydb")
                            .doesNotContain("io/zkfence/jdbc")
                            .doesNotContain("org/jooq")
                            .doesNotContain("java/sql");
                }
            }
        }
    }

    @Test
    void theCacheRebuildsExceptionsAreUncheckedCacheRebuildExceptions() {
        PUBLIC_TYPES.stream()
                .filter(Throwable.class::isAssignableFrom)
                .filter(t -> t.getPackageName().endsWith(".cache"))
                .forEach(t -> {
                    assertThat(RuntimeException.class).isAssignableFrom(t);
                    assertThat(CacheRebuildException.class).isAssignableFrom(t);
                });
    }

    /** A cache on another store (Redis, S3) must not need fencing-jdbc: only JdbcCacheStore refers to it. */
    @Test
    void onlyTheJdbcCacheStoreRefersToJdbcFencing() throws IOException {
        Path dir = Path.of("target/classes/io/zkfence/recipes/cache");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> !p.getFileName().toString().startsWith("JdbcCacheStore"))
                    .toList()) {
                String bytes;
                try (InputStream in = Files.newInputStream(f)) {
                    bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                }
                assertThat(bytes)
                        .as(f.toString())
                        .doesNotContain("io/zkfence/jdbc")
                        .doesNotContain("java/sql")
                        .doesNotContain("org/jooq");
            }
        }
    }

    private static Class<?> loadQuietly(String name) {
        try {
            return Class.forName(name, false, PublicApiTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
