package io.zkfence.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcFence#inTransaction} hands a data source's connection back as it found it, whatever
 * the outcome, also where no pool would reset it.
 */
class ConnectionStateTest {

    private Connection physical;
    private final AtomicInteger closes = new AtomicInteger();
    private JdbcFence fence;

    @BeforeEach
    void openOneConnection() throws SQLException {
        physical = DriverManager.getConnection("jdbc:h2:mem:connection-state", "sa", "");
        fence = JdbcFence.create(
                new OneConnection(),
                FenceConfig.builder(FenceDialect.H2)
                        .transactionIsolation(Connection.TRANSACTION_SERIALIZABLE)
                        .build());
        fence.createIfMissing();
        closes.set(0);
    }

    @AfterEach
    void closeIt() throws SQLException {
        physical.close();
    }

    @Test
    void autoCommitAndIsolationAreRestoredAfterACommit() throws SQLException {
        int isolation = physical.getTransactionIsolation();

        fence.inTransaction("k", 1, c -> {
            assertThat(c.getAutoCommit()).isFalse();
            assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            return null;
        });

        assertThat(physical.getAutoCommit()).isTrue();
        assertThat(physical.getTransactionIsolation()).isEqualTo(isolation);
        assertThat(closes).hasValue(1);
    }

    @Test
    void autoCommitAndIsolationAreRestoredAfterARejection() throws SQLException {
        int isolation = physical.getTransactionIsolation();
        fence.claim("k", 5);
        closes.set(0);

        assertThrows(JdbcStaleTokenException.class, () -> fence.claim("k", 4));

        assertThat(physical.getAutoCommit()).isTrue();
        assertThat(physical.getTransactionIsolation()).isEqualTo(isolation);
        assertThat(closes).hasValue(1);
    }

    /** Hands out the one physical connection behind a proxy that only counts close(). */
    private final class OneConnection implements DataSource {

        @Override
        public Connection getConnection() {
            return (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            closes.incrementAndGet();
                            return null;
                        }
                        try {
                            return method.invoke(physical, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public Connection getConnection(String username, String password) {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
