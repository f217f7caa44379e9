package io.zkfence.jdbc;

import java.sql.SQLException;

/**
 * Classifies database errors by SQLSTATE and vendor code, per dialect, and turns them into the
 * module's exceptions. The codes were checked against the real servers in this module's tests.
 */
final class SqlErrors {

    private static final int MARIADB_SNAPSHOT_CONFLICT = 1020; // ER_CHECKREAD, innodb_snapshot_isolation
    private static final int MARIADB_DEADLOCK = 1213;
    private static final int MARIADB_LOCK_WAIT_TIMEOUT = 1205; // innodb_lock_wait_timeout
    private static final String POSTGRES_LOCK_NOT_AVAILABLE = "55P03"; // lock_timeout, NOWAIT
    private static final int H2_LOCK_TIMEOUT = 50200; // LOCK_TIMEOUT
    private static final int MARIADB_NO_SUCH_TABLE = 1146;
    private static final int MARIADB_BAD_FIELD = 1054;
    private static final int MARIADB_DUP_ENTRY = 1062;
    private static final int MARIADB_TABLE_EXISTS = 1050;
    private static final int H2_CONCURRENT_UPDATE = 90131; // H2 reports most snapshot conflicts as 40001
    private static final int H2_TABLE_NOT_FOUND = 42102;
    private static final int H2_TABLE_NOT_FOUND_DATABASE_EMPTY = 42104;
    private static final int H2_COLUMN_NOT_FOUND = 42122;
    private static final int H2_SCHEMA_NOT_FOUND = 90079; // the others report a missing schema as a missing table
    private static final int H2_DUPLICATE_KEY = 23505;
    private static final int H2_TABLE_EXISTS = 42101;

    private SqlErrors() {
    }

    static boolean isSerializationFailure(FenceDialect dialect, SQLException e) {
        for (SQLException s : chain(e)) {
            String state = s.getSQLState();
            if ("40001".equals(state) || "40P01".equals(state)) {
                return true;
            }
            int code = s.getErrorCode();
            if (dialect == FenceDialect.MARIADB && (code == MARIADB_SNAPSHOT_CONFLICT || code == MARIADB_DEADLOCK)) {
                return true;
            }
            if (dialect == FenceDialect.H2 && code == H2_CONCURRENT_UPDATE) {
                return true;
            }
        }
        return false;
    }

    /**
     * A lock wait the database gave up on: PostgreSQL's {@code lock_timeout} (SQLSTATE
     * {@code 55P03}), MariaDB's {@code innodb_lock_wait_timeout} (1205), H2's {@code LOCK_TIMEOUT}
     * (50200). The lock holder may be gone by the next attempt.
     */
    static boolean isLockWaitTimeout(FenceDialect dialect, SQLException e) {
        for (SQLException s : chain(e)) {
            int code = s.getErrorCode();
            boolean timedOut = switch (dialect) {
                case POSTGRES -> POSTGRES_LOCK_NOT_AVAILABLE.equals(s.getSQLState());
                case MARIADB -> code == MARIADB_LOCK_WAIT_TIMEOUT;
                case H2 -> code == H2_LOCK_TIMEOUT;
            };
            if (timedOut) {
                return true;
            }
        }
        return false;
    }

    /**
     * The retryable exception for a database error, or null when retrying would not help: a
     * serialization failure or deadlock, or a lock wait that timed out.
     *
     * @param subject what was being done, naming the key, token and table
     * @param advice  what the caller should do, e.g. "retry the whole unit of work with the same token"
     * @param cause   the exception to keep as the cause ({@code e} itself, or what wraps it)
     */
    static SerializationConflictException retryable(FenceDialect dialect, SQLException e, String subject, String key,
                                                    long token, String advice, Throwable cause) {
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

    static boolean isMissingTable(FenceDialect dialect, SQLException e) {
        return switch (dialect) {
            case POSTGRES -> "42P01".equals(e.getSQLState());
            case MARIADB -> e.getErrorCode() == MARIADB_NO_SUCH_TABLE;
            case H2 -> e.getErrorCode() == H2_TABLE_NOT_FOUND || e.getErrorCode() == H2_TABLE_NOT_FOUND_DATABASE_EMPTY
                    || e.getErrorCode() == H2_SCHEMA_NOT_FOUND;
        };
    }

    static boolean isMissingColumn(FenceDialect dialect, SQLException e) {
        return switch (dialect) {
            case POSTGRES -> "42703".equals(e.getSQLState());
            case MARIADB -> e.getErrorCode() == MARIADB_BAD_FIELD;
            case H2 -> e.getErrorCode() == H2_COLUMN_NOT_FOUND;
        };
    }

    static boolean isDuplicateKey(FenceDialect dialect, SQLException e) {
        return switch (dialect) {
            case POSTGRES -> "23505".equals(e.getSQLState());
            case MARIADB -> e.getErrorCode() == MARIADB_DUP_ENTRY;
            case H2 -> e.getErrorCode() == H2_DUPLICATE_KEY;
        };
    }

    /**
     * DDL that failed because another session created the same object: on PostgreSQL
     * {@code 42P07}/{@code 42710}, or a unique violation on a system catalog ({@code 23505}, e.g.
     * {@code pg_type_typname_nsp_index}) when the other creator committed while this one waited.
     */
    static boolean isDuplicateObject(FenceDialect dialect, SQLException e) {
        return switch (dialect) {
            case POSTGRES -> "42P07".equals(e.getSQLState()) || "42710".equals(e.getSQLState())
                    || "23505".equals(e.getSQLState());
            case MARIADB -> e.getErrorCode() == MARIADB_TABLE_EXISTS;
            case H2 -> e.getErrorCode() == H2_TABLE_EXISTS;
        };
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
    static FenceException translate(FenceConfig config, SQLException e, String key, long token, String doing) {
        FenceDialect dialect = config.dialect();
        String subject = doing + (key == null ? "" : " for resource '" + key + "' with token " + token)
                + " on " + config.qualifiedTable();
        SerializationConflictException retryable = retryable(dialect, e, subject, key, token,
                "retry the whole unit of work in a new transaction with the same token (a transaction the fence"
                        + " manages is rolled back; roll back your own)", e);
        if (retryable != null) {
            return retryable;
        }
        if (isMissingTable(dialect, e)) {
            return new FenceTableMissingException(config.qualifiedTable(), key, token, e);
        }
        if (isMissingColumn(dialect, e)) {
            return new FenceException(subject + " failed: the fence table lacks one of the configured columns ["
                    + config.keyColumn() + ", " + config.tokenColumn() + ", " + config.holderColumn() + ", "
                    + config.updatedAtColumn() + "] (" + describe(e) + ")", key, token, e);
        }
        return new FenceException(subject + " failed (" + describe(e) + ")", key, token, e);
    }

    static String describe(SQLException e) {
        return "SQLSTATE " + e.getSQLState() + ", vendor code " + e.getErrorCode() + ": " + e.getMessage();
    }

    private static Iterable<SQLException> chain(SQLException e) {
        java.util.List<SQLException> all = new java.util.ArrayList<>();
        for (Throwable t = e; t != null && all.size() < 16; t = t.getCause()) {
            if (t instanceof SQLException s) {
                all.add(s);
                if (s.getNextException() != null && all.size() < 16) {
                    all.add(s.getNextException());
                }
            }
        }
        return all;
    }
}
