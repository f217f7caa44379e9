package io.zkfence.recipes.cache;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.testing.PostgresServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;

/**
 * Simulated pods: each its own lock client (own ZooKeeper session) and its own store object, all
 * on one real PostgreSQL database and one shared test clock.
 */
abstract class CacheTestBase extends ZooKeeperTestBase {

    protected static final Duration FRESH_FOR = Duration.ofMinutes(5);
    protected static final Duration MAX_STALENESS = Duration.ofMinutes(1);
    /** Long enough for a loaded 2-core machine; tests that time out on purpose set their own. */
    protected static final Duration WAIT = Duration.ofSeconds(60);

    protected final TestClock clock = new TestClock();
    protected DataSource db;
    protected String key;

    @BeforeEach
    void freshDatabaseAndKey() {
        db = PostgresServer.shared().freshDatabase().dataSource();
        key = "product-list-" + UUID.randomUUID().toString().substring(0, 8);
        store().createTableIfMissing();
    }

    protected JdbcCacheStore<String> store() {
        return JdbcCacheStore.create(
                db, JdbcFence.create(db), JdbcCacheStore.DEFAULT_TABLE, Function.identity(), Function.identity());
    }

    protected CacheRebuild.Builder<String> pod(LockClient client) {
        return CacheRebuild.builder(client, store())
                .clock(clock)
                .freshFor(FRESH_FOR)
                .maxStaleness(MAX_STALENESS)
                .waitTimeout(WAIT);
    }

    protected static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("latch not released within " + WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
