package io.zkfence.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JooqFence;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * A real database engine started by the tests, shared by every test class of one JVM (see
 * {@link Engines}), with a HikariCP pool in front of it.
 */
public abstract class Engine implements AutoCloseable {

    private final HikariDataSource pool;
    private final String user;
    private final String password;
    private HikariDataSource boundedLockWaitPool;

    protected Engine(String jdbcUrl, String user, String password) {
        this.user = user;
        this.password = password;
        HikariConfig config = new HikariConfig();
        config.setPoolName(getClass().getSimpleName()); // not name(): overridable, called before the subclass is built
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        // Races hold up to three transactions open at once, plus an observer.
        config.setMaximumPoolSize(8);
        this.pool = new HikariDataSource(config);
        execute(
                "create table if not exists zk_ledger (resource_key varchar(255) not null, writer varchar(64) not null)");
        execute(
                "create table if not exists zk_account (id bigint primary key, balance bigint not null, fence_token bigint)");
    }

    public abstract String name();

    public abstract FenceDialect dialect();

    /** SQL counting sessions of this database that wait for a row lock held by another. */
    protected abstract String lockWaitersSql();

    /** SQL making the session give up a lock wait after at most a second or so. */
    protected abstract String boundLockWaitsSql();

    /** The JDBC URL of the test database, for a data source with other driver settings. */
    public abstract String jdbcUrl();

    public DataSource dataSource() {
        return pool;
    }

    public DSLContext dsl() {
        return DSL.using(pool, JooqFence.sqlDialect(dialect()));
    }

    public Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /**
     * Connections whose REPEATABLE READ transactions fail, rather than silently overwrite, when
     * they update a row changed since their snapshot: always the case on PostgreSQL and H2, and
     * on MariaDB with {@code innodb_snapshot_isolation=ON} (its default from 11.6 on).
     */
    public DataSource snapshotIsolationDataSource() {
        return pool;
    }

    /**
     * Connections that give up waiting for a row lock after a short time (the session setting of
     * {@link #boundLockWaitsSql()}), as a careful operator configures them.
     */
    public synchronized DataSource boundedLockWaitDataSource() {
        if (boundedLockWaitPool == null) {
            HikariConfig config = new HikariConfig();
            config.setPoolName(name() + "-bounded-lock-waits");
            config.setJdbcUrl(jdbcUrl());
            config.setUsername(user);
            config.setPassword(password);
            config.setConnectionInitSql(boundLockWaitsSql());
            config.setMaximumPoolSize(2);
            boundedLockWaitPool = new HikariDataSource(config);
        }
        return boundedLockWaitPool;
    }

    public int lockWaiters() {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(lockWaitersSql())) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count lock waiters on " + name(), e);
        }
    }

    public final void execute(String sql) {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(getClass().getSimpleName() + ": " + sql, e);
        }
    }

    @Override
    public void close() throws Exception {
        synchronized (this) {
            if (boundedLockWaitPool != null) {
                boundedLockWaitPool.close();
            }
        }
        pool.close();
        stopServer();
    }

    protected abstract void stopServer() throws Exception;

    @Override
    public String toString() {
        return name();
    }
}
