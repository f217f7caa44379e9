package io.zkfence.jdbc.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceException;
import io.zkfence.jdbc.testing.Engine;
import io.zkfence.jdbc.testing.Engines;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL checks {@code IF NOT EXISTS} against committed catalogs, so a second creator of the
 * same table waits on the first one's uncommitted catalog rows and then fails with a unique
 * violation (on {@code pg_type}) or {@code 42P07}: several pods starting at once.
 */
class PostgresCreateIfMissingTest {

    private final Engine engine = Engines.postgres();
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void createIfMissingSucceedsWhenAnotherProcessCreatesTheTableAtTheSameTime() throws Exception {
        String table = "fences_" + UUID.randomUUID().toString().replace("-", "");
        JdbcFence fence = JdbcFence.create(
                engine.dataSource(),
                FenceConfig.builder(FenceDialect.POSTGRES).table(table).build());
        Future<?> second;
        try (Connection otherPod = engine.connection();
                Statement s = otherPod.createStatement()) {
            otherPod.setAutoCommit(false);
            s.execute(FenceDialect.POSTGRES.ddl().replace("zkfence_fence", table)); // created, not yet committed

            second = executor.submit(fence::createIfMissing);
            Awaitility.await("createIfMissing waiting on the other creator's catalog rows")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> engine.lockWaiters() > 0);
            otherPod.commit();
            otherPod.setAutoCommit(true);
        }

        second.get(60, TimeUnit.SECONDS);
        fence.claim("inventory:sku:1", 4);
        assertThat(fence.currentToken("inventory:sku:1")).hasValue(4);
        engine.execute("drop table " + table);
    }

    @Test
    void createIfMissingStillFailsWhenTheTableIsReallyNotThere() throws SQLException {
        // A name PostgreSQL cannot create (a missing schema): the error is not swallowed.
        JdbcFence fence = JdbcFence.create(
                engine.dataSource(),
                FenceConfig.builder(FenceDialect.POSTGRES)
                        .schema("no_such_schema")
                        .build());

        Assertions.assertThrows(JdbcFenceException.class, fence::createIfMissing);
    }
}
