package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each fence meter moves when its outcome happens, on a real H2 database. */
class JdbcFenceMetricsTest {

    private JdbcDataSource dataSource;
    private JdbcFence fence;
    private MeterRegistry registry;

    @BeforeEach
    void fenceWithMeters() {
        dataSource = new JdbcDataSource();
        // A database of its own; lock waits bounded so a blocked advance fails fast as a conflict.
        dataSource.setURL("jdbc:h2:mem:metrics-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=200");
        dataSource.setUser("sa");
        fence = JdbcFence.create(dataSource, FenceConfig.defaults(FenceDialect.H2));
        fence.createIfMissing();
        registry = new SimpleMeterRegistry();
        JdbcFenceMetrics.of(fence).bindTo(registry);
    }

    private double writes(String operation, String outcome) {
        return registry.get("zkfence.fence.writes")
                .tags("adapter", "jdbc", "operation", operation, "outcome", outcome)
                .counter()
                .count();
    }

    @Test
    void theFenceTableIsTheResourceTag() {
        assertThat(registry.get("zkfence.fence.writes").counter().getId().getTag("resource"))
                .isEqualTo(fence.config().qualifiedTable());
    }

    @Test
    void everySeriesExistsFromZero() {
        assertThat(registry.find("zkfence.fence.writes").counters())
                .hasSize(6)
                .allSatisfy(c -> assertThat(c.count()).isZero());
    }

    @Test
    void anAcceptedTransactionAndAnAcceptedAdvanceAreCounted() throws SQLException {
        fence.claim("orders:1", 5);
        fence.inTransaction("orders:1", 5, c -> "written");
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            fence.advance(c, "orders:1", 6);
            c.commit();
        }
        assertThat(writes("transaction", "accepted")).isEqualTo(2);
        assertThat(writes("advance", "accepted")).isEqualTo(1);
        assertThat(writes("transaction", "stale")).isZero();
    }

    @Test
    void aStaleTokenIsCountedAsAStaleRejectionNotAsAWrite() {
        fence.claim("orders:2", 10);
        assertThrows(JdbcStaleTokenException.class, () -> fence.inTransaction("orders:2", 3, c -> "late write"));
        assertThat(writes("transaction", "stale")).isEqualTo(1);
        assertThat(writes("transaction", "accepted")).isEqualTo(1);
    }

    @Test
    void aLockWaitTimeoutIsCountedAsARetryableConflict() throws SQLException {
        fence.claim("orders:3", 1);
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            fence.advance(holder, "orders:3", 2); // the row stays locked until holder ends
            assertThrows(SerializationConflictException.class, () -> fence.inTransaction("orders:3", 3, c -> null));
            holder.rollback();
        }
        assertThat(writes("transaction", "conflict")).isEqualTo(1);
        assertThat(writes("transaction", "stale")).isZero();
    }

    @Test
    void aSecondBinderOnTheSameRegistryDoesNotCountTwice() {
        JdbcFenceMetrics.of(fence).bindTo(registry);
        JdbcFenceMetrics.of(fence).bindTo(registry);
        fence.claim("orders:4", 1);
        assertThat(writes("transaction", "accepted")).isEqualTo(1);
    }
}
