package io.zkfence.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs a fenced unit of work in a transaction of its own on a connection from a data source:
 * fence advance, work, commit; roll back on any failure; put the connection back as it was.
 */
final class ManagedTransaction {

    private final DataSource dataSource;
    private final FenceAdvance fence;

    ManagedTransaction(DataSource dataSource, FenceAdvance fence) {
        this.dataSource = dataSource;
        this.fence = fence;
    }

    <T> T run(String key, long token, FencedWork<T> work) {
        FenceConfig config = fence.config();
        Connection c;
        try {
            c = dataSource.getConnection();
        } catch (SQLException e) {
            throw SqlErrors.translate(config, e, key, token, "getting a connection");
        }
        boolean committed = false;
        Throwable failure = null;
        boolean autoCommit = true;
        int isolation = -1;
        try {
            autoCommit = c.getAutoCommit();
            if (config.transactionIsolation().isPresent()) {
                isolation = c.getTransactionIsolation();
                c.setTransactionIsolation(config.transactionIsolation().getAsInt());
            }
            c.setAutoCommit(false);
            fence.advance(c, key, token);
            T result = work.execute(c);
            commit(c, key, token);
            committed = true;
            return result;
        } catch (SQLException e) {
            failure = SqlErrors.translate(config, e, key, token, "running the fenced unit of work");
            throw (JdbcFenceException) failure;
        } catch (RuntimeException e) {
            failure = retryableOrSame(config, e, key, token);
            throw (RuntimeException) failure;
        } catch (Error e) {
            failure = e;
            throw e;
        } finally {
            if (!committed) {
                rollback(c, failure);
            }
            restoreAndClose(c, autoCommit, isolation, committed, failure, key, token);
        }
    }

    private void commit(Connection c, String key, long token) {
        try {
            c.commit();
        } catch (SQLException e) {
            FenceConfig config = fence.config();
            if (SqlErrors.isSerializationFailure(config.dialect(), e)
                    || SqlErrors.isLockWaitTimeout(config.dialect(), e)) {
                throw SqlErrors.translate(config, e, key, token, "committing the fenced unit of work");
            }
            // A commit that fails on a broken connection may have been applied by the server.
            throw new JdbcFenceException(
                    "commit of the fenced unit of work for resource '" + key + "' with token " + token
                            + " failed (" + SqlErrors.describe(e)
                            + "); if the connection was lost the outcome is unknown:"
                            + " the database may have applied it, check before repeating non-idempotent work",
                    key,
                    token,
                    e);
        }
    }

    /**
     * jOOQ and other layers wrap SQL errors in their own unchecked exceptions; a serialization
     * failure or lock-wait timeout inside the work must still read as retryable.
     */
    private static RuntimeException retryableOrSame(FenceConfig config, RuntimeException e, String key, long token) {
        if (e instanceof JdbcFenceException) {
            return e;
        }
        SQLException sql = SqlErrors.findSqlException(e);
        if (sql != null) {
            SerializationConflictException retryable = SqlErrors.retryable(
                    config.dialect(),
                    sql,
                    "the fenced unit of work for resource '" + key + "' with token " + token,
                    key,
                    token,
                    "the transaction is rolled back: retry the whole unit of work with the same token",
                    e);
            if (retryable != null) {
                return retryable;
            }
        }
        return e;
    }

    private static void rollback(Connection c, Throwable failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
        }
    }

    private static void restoreAndClose(
            Connection c,
            boolean autoCommit,
            int isolation,
            boolean committed,
            Throwable failure,
            String key,
            long token) {
        SQLException problem = null;
        try {
            c.setAutoCommit(autoCommit);
            if (isolation >= 0) {
                c.setTransactionIsolation(isolation);
            }
        } catch (SQLException e) {
            problem = e;
        }
        try {
            c.close();
        } catch (SQLException e) {
            if (problem == null) {
                problem = e;
            } else {
                problem.addSuppressed(e);
            }
        }
        if (problem == null) {
            return;
        }
        if (failure != null) {
            failure.addSuppressed(problem);
        } else if (committed) {
            throw new JdbcFenceException(
                    "the fenced unit of work for resource '" + key + "' with token " + token
                            + " was committed, but restoring or closing its connection failed ("
                            + SqlErrors.describe(problem)
                            + ")",
                    key,
                    token,
                    problem);
        }
    }
}
