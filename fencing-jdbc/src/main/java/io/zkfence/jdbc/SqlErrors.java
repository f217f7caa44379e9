package io.zkfence.jdbc;

import java.sql.SQLException;

/**
 * Turns database errors into the module's exceptions. What an error means is the dialect's
 * ({@link FenceDialect#errors()}, one table of codes per engine); this class only decides which
 * exception that makes and what its message says.
 */
final class SqlErrors {

    private SqlErrors() {}

    /** A serialization failure, deadlock or snapshot conflict anywhere in the chain. */
    static boolean isSerializationFailure(FenceDialect dialect, SQLException e) {
        return dialect.errors().serialization().matchAnywhere(e);
    }

    /**
     * A lock wait the database gave up on (PostgreSQL's {@code lock_timeout}, MariaDB's
     * {@code innodb_lock_wait_timeout}, H2's {@code LOCK_TIMEOUT}) anywhere in the chain. The lock
     * holder may be gone by the next attempt.
     */
    static boolean isLockWaitTimeout(FenceDialect dialect, SQLException e) {
        return dialect.errors().lockWaitTimeout().matchAnywhere(e);
    }

    /**
     * The retryable exception for a database error, or null when retrying would not help: a
     * serialization failure or deadlock, or a lock wait that timed out.
     *
     * @param subject what was being done, naming the key, token and table
     * @param advice  what the caller should do, e.g. "retry the whole unit of work with the same token"
     * @param cause   the exception to keep as the cause ({@code e} itself, or what wraps it)
     */
    static SerializationConflictException retryable(
            FenceDialect dialect,
            SQLException e,
            String subject,
            String key,
            long token,
            String advice,
            Throwable cause) {
        String what;
        if (isSerializationFailure(dialect, e)) {
            what = " hit a serialization conflict with a concurrent transaction (";
        } else if (isLockWaitTimeout(dialect, e)) {
            what = " timed out waiting for a lock held by a concurrent transaction (";
        } else {
            return null;
        }
        return new SerializationConflictException(subject + what + describe(e) + "); " + advice, key, token, cause);
    }

    /** The fence table, or the schema it is in, does not exist. */
    static boolean isMissingTable(FenceDialect dialect, SQLException e) {
        return dialect.errors().missingTable().match(e);
    }

    static boolean isMissingColumn(FenceDialect dialect, SQLException e) {
        return dialect.errors().missingColumn().match(e);
    }

    static boolean isDuplicateKey(FenceDialect dialect, SQLException e) {
        return dialect.errors().duplicateKey().match(e);
    }

    /** DDL that failed because another session created the same object meanwhile. */
    static boolean isDuplicateObject(FenceDialect dialect, SQLException e) {
        return dialect.errors().duplicateObject().match(e);
    }

    /**
     * Finds the first {@link SQLException} in a throwable's cause chain, e.g. inside a jOOQ
     * {@code DataAccessException}.
     */
    static SQLException findSqlException(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException s) {
                return s;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    /**
     * Translates an error met while fencing.
     *
     * @param doing what was being done, e.g. "advancing the fence"
     */
    static JdbcFenceException translate(FenceConfig config, SQLException e, String key, long token, String doing) {
        FenceDialect dialect = config.dialect();
        String subject = doing + (key == null ? "" : " for resource '" + key + "' with token " + token) + " on "
                + config.qualifiedTable();
        SerializationConflictException retryable = retryable(
                dialect,
                e,
                subject,
                key,
                token,
                "retry the whole unit of work in a new transaction with the same token (a transaction the fence"
                        + " manages is rolled back; roll back your own)",
                e);
        if (retryable != null) {
            return retryable;
        }
        if (isMissingTable(dialect, e)) {
            return new FenceTableMissingException(config.qualifiedTable(), key, token, e);
        }
        if (isMissingColumn(dialect, e)) {
            return new JdbcFenceException(
                    subject + " failed: the fence table lacks one of the configured columns ["
                            + config.keyColumn() + ", " + config.tokenColumn() + ", " + config.holderColumn() + ", "
                            + config.updatedAtColumn() + "] (" + describe(e) + ")",
                    key,
                    token,
                    e);
        }
        return new JdbcFenceException(subject + " failed (" + describe(e) + ")", key, token, e);
    }

    static String describe(SQLException e) {
        return "SQLSTATE " + e.getSQLState() + ", vendor code " + e.getErrorCode() + ": " + e.getMessage();
    }
}
