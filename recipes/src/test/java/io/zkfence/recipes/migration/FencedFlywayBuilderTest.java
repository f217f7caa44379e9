package io.zkfence.recipes.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class FencedFlywayBuilderTest extends ZooKeeperTestBase {

    private final FluentConfiguration flyway = Flyway.configure().dataSource(new PGSimpleDataSource());

    @Test
    void theFenceKeyDefaultsToTheLockName() {
        FencedFlyway runner =
                FencedFlyway.builder(client("c"), "db-migration:orders", flyway).build();
        assertThat(runner.lockName()).isEqualTo("db-migration:orders");
        assertThat(runner.fenceKey()).isEqualTo("db-migration:orders");
    }

    @Test
    void badSettingsAreRejectedNamingTheSettingAndTheLock() {
        LockClient c = client("c");
        assertThrows(
                IllegalArgumentException.class,
                () -> FencedFlyway.builder(c, null, flyway).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> FencedFlyway.builder(c, " ", flyway).build());
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> FencedFlyway.builder(c, "m", flyway)
                                .waitTimeout(Duration.ZERO)
                                .build()))
                .hasMessageContaining("waitTimeout")
                .hasMessageContaining("'m'");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> FencedFlyway.builder(c, "m", flyway).fenceKey(" ").build()))
                .hasMessageContaining("fenceKey");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> FencedFlyway.builder(c, "m", flyway)
                                .fenceKey("k".repeat(256))
                                .build()))
                .hasMessageContaining("fenceKey")
                .hasMessageContaining("255");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> FencedFlyway.builder(c, "m".repeat(256), flyway).build()))
                .hasMessageContaining("fenceKey");
    }

    @Test
    void aFlywayConfigurationWithoutADataSourceNeedsAnExplicitFence() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> FencedFlyway.builder(client("c"), "m", Flyway.configure()).build());
        assertThat(e).hasMessageContaining("data source").hasMessageContaining("fence(");
    }
}
