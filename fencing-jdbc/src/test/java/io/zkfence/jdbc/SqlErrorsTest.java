package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;

/** Classification of the vendor errors observed on the real engines (see the contract suites). */
class SqlErrorsTest {

    private static final FenceConfig PG = FenceConfig.defaults(FenceDialect.POSTGRES);
    private static final FenceConfig MARIADB = FenceConfig.defaults(FenceDialect.MARIADB);
    private static final FenceConfig H2 = FenceConfig.defaults(FenceDialect.H2);

    @Test
    void serializationFailuresAndDeadlocksAreRetryable() {
        assertThat(SqlErrors.translate(PG, new SQLException("x", "40001"), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class);
        assertThat(SqlErrors.translate(PG, new SQLException("x", "40P01"), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class);
        assertThat(SqlErrors.translate(
                        MARIADB,
                        new SQLException("Record has changed since last read", "HY000", 1020),
                        "k",
                        3,
                        "advancing"))
                .isInstanceOf(SerializationConflictException.class);
        assertThat(SqlErrors.translate(MARIADB, new SQLException("Deadlock found", "40001", 1213), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class);
        assertThat(SqlErrors.translate(H2, new SQLException("Concurrent update", "90131", 90131), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class);
    }

    @Test
    void lockWaitTimeoutsAreRetryableAndSaySo() {
        assertThat(SqlErrors.translate(
                        PG, new SQLException("canceling statement due to lock timeout", "55P03"), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class)
                .hasMessageContaining("timed out waiting for a lock");
        assertThat(SqlErrors.translate(
                        MARIADB, new SQLException("Lock wait timeout exceeded", "HY000", 1205), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class)
                .hasMessageContaining("timed out waiting for a lock");
        assertThat(SqlErrors.translate(
                        H2, new SQLException("Timeout trying to lock table", "HYT00", 50200), "k", 3, "advancing"))
                .isInstanceOf(SerializationConflictException.class)
                .hasMessageContaining("timed out waiting for a lock");
        assertThat(SqlErrors.isLockWaitTimeout(FenceDialect.H2, new SQLException("x", "HY000", 1205)))
                .isFalse();
    }

    @Test
    void vendorCodesCountOnlyForTheirOwnDialect() {
        assertThat(SqlErrors.isSerializationFailure(FenceDialect.POSTGRES, new SQLException("x", "HY000", 1020)))
                .isFalse();
        assertThat(SqlErrors.isSerializationFailure(FenceDialect.H2, new SQLException("x", "HY000", 1020)))
                .isFalse();
    }

    @Test
    void retryableCauseIsFoundInsideWrappingExceptions() {
        DataAccessException wrapped = new DataAccessException("jOOQ", new SQLException("x", "40001"));

        assertThat((Throwable) SqlErrors.findSqlException(wrapped)).hasMessage("x");
        assertThat(SqlErrors.isSerializationFailure(FenceDialect.POSTGRES, SqlErrors.findSqlException(wrapped)))
                .isTrue();
    }

    @Test
    void otherErrorsKeepKeyTokenTableAndCause() {
        SQLException cause = new SQLException("connection reset", "08006");

        JdbcFenceException e = SqlErrors.translate(PG, cause, "inventory:1", 42, "advancing the fence");

        assertThat(e).isExactlyInstanceOf(JdbcFenceException.class).hasCause(cause);
        assertThat(e.getMessage()).contains("inventory:1", "42", "zkfence_fence", "08006", "connection reset");
        assertThat(e.resourceKey()).hasValue("inventory:1");
        assertThat(e.token()).hasValue(42);
    }
}
