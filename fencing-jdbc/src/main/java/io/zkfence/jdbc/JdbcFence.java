package io.zkfence.jdbc;

import io.zkfence.fencing.internal.FenceObserver;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * Enforces fencing tokens in a SQL database: a write carrying a token lower than the highest
 * token already accepted for its resource is rejected, atomically with the writes it protects.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Each protected resource is a <em>key</em> (1 to 255 UTF-16 code units, not blank,
 *       well-formed Unicode, no NUL; compared exactly, see docs/fencing-jdbc.md) with one row
 *       in the fence table holding the highest token accepted for it.</li>
 *   <li>A token is a positive {@code long} from any source that never goes backwards for a key
 *       (zkfence lock-core, etcd revisions, Redis {@code INCR}, ...). A token {@code >=} the
 *       stored one is accepted and becomes the stored one; a lower token is rejected with
 *       {@link JdbcStaleTokenException}. Equal is accepted, so one holder can write many times.</li>
 *   <li>The fence advance runs as the first statement of the writer's transaction and locks the
 *       key's row until that transaction ends. A newer holder's advance therefore waits for an
 *       older holder's open transaction and then wins; an older holder's advance after a newer
 *       holder's has committed (or while it is open, once it commits) is rejected. Either way
 *       nothing of a rejected unit of work is committed. The wait is as long as the database
 *       lets it be: unbounded on PostgreSQL unless {@code lock_timeout} is set.</li>
 *   <li>A {@link SerializationConflictException} means the database aborted the transaction for
 *       reasons of concurrency, not of tokens (including a lock wait that timed out): retrying
 *       the whole unit of work is safe.</li>
 * </ul>
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link #inTransaction} runs a unit of work in a transaction it manages on a connection
 *       from the data source.</li>
 *   <li>{@link #advance(Connection, String, long)} fences a transaction the caller manages
 *       (Spring, JPA; jOOQ's {@code transaction(...)} through {@link JooqFence#advance}); call it
 *       before the protected writes.</li>
 *   <li>{@link #claim} advances the fence on its own right after the lock is acquired, which
 *       cuts off a paused former holder before the new holder's first write.</li>
 * </ul>
 *
 * <p>Arguments are checked before anything is sent: a {@code null} or blank key, a key longer
 * than 255 characters, with an unpaired surrogate or a NUL, or a token below 1 throws {@link IllegalArgumentException}; a connection
 * in auto-commit mode passed to {@code advance} throws {@link IllegalStateException}. Database
 * failures are {@link JdbcFenceException}s. Instances are immutable and thread-safe.
 */
public final class JdbcFence {

    /** Longest resource key, matching the {@code VARCHAR(255)} key column of the shipped DDL. */
    public static final int MAX_KEY_LENGTH = Arguments.MAX_KEY_LENGTH;

    private final DataSource dataSource;
    private final FenceAdvance fence;
    private final ManagedTransaction transactions;
    /** For {@link JdbcFenceMetrics}; empty without it. */
    final FenceObserver.All observers = new FenceObserver.All();

    private JdbcFence(DataSource dataSource, FenceConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.fence = new FenceAdvance(Objects.requireNonNull(config, "config"));
        this.transactions = new ManagedTransaction(dataSource, fence);
    }

    /**
     * Creates a fence over a data source (typically a connection pool such as HikariCP).
     * Loads the fence's SQL (the dialect's statement resources) once; does not touch the database.
     *
     * @param dataSource where {@link #inTransaction}, {@link #claim}, {@link #createIfMissing}
     *                   and {@link #currentToken} get their connections
     * @param config     table, columns and dialect
     * @return the fence
     */
    public static JdbcFence create(DataSource dataSource, FenceConfig config) {
        return new JdbcFence(dataSource, config);
    }

    /**
     * Creates a fence with the default table and column names, detecting the dialect from one
     * connection of the data source.
     *
     * @param dataSource the data source
     * @return the fence
     * @throws IllegalArgumentException if the database is not supported
     * @throws JdbcFenceException if no connection can be had
     */
    public static JdbcFence create(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection c = dataSource.getConnection()) {
            return new JdbcFence(dataSource, FenceConfig.defaults(FenceDialect.detect(c)));
        } catch (SQLException e) {
            throw new JdbcFenceException(
                    "cannot open a connection to detect the fence dialect (" + SqlErrors.describe(e) + ")", null, 0, e);
        }
    }

    /**
     * Returns this fence's configuration.
     *
     * @return the configuration
     */
    public FenceConfig config() {
        return fence.config();
    }

    /**
     * Creates the fence table if it does not exist, from the DDL shipped for the dialect with the
     * configured names. Idempotent, also when several processes call it at once (pods starting
     * together): PostgreSQL checks {@code IF NOT EXISTS} against committed catalogs only, so a
     * concurrent creator fails with a duplicate-object error; that error is taken as success once
     * the table is confirmed to exist. On MariaDB DDL commits implicitly, so call it outside any
     * business transaction (at start-up, like a migration).
     *
     * @throws JdbcFenceException if the DDL fails and the table does not exist
     */
    public void createIfMissing() {
        FenceConfig config = config();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String ddl : Ddl.statements(config)) {
                try {
                    s.execute(ddl);
                } catch (SQLException e) {
                    if (!SqlErrors.isDuplicateObject(config.dialect(), e)) {
                        throw e;
                    }
                    // Another process created it after our IF NOT EXISTS looked (the shipped DDL is
                    // one statement, so there is nothing of ours to lose in the rollback).
                    if (!c.getAutoCommit()) {
                        c.rollback();
                    }
                    if (!tableExists(s, config)) {
                        throw e;
                    }
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new JdbcFenceException(
                    "creating fence table " + config.qualifiedTable() + " failed (" + SqlErrors.describe(e) + ")",
                    null,
                    0,
                    e);
        }
    }

    /** Whether the fence table exists with its key and token columns. */
    private static boolean tableExists(Statement s, FenceConfig config) throws SQLException {
        try {
            s.executeQuery("select " + config.keyColumn() + ", " + config.tokenColumn() + " from "
                            + config.qualifiedTable() + " where 1 = 0")
                    .close();
            return true;
        } catch (SQLException e) {
            if (SqlErrors.isMissingTable(config.dialect(), e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Runs a unit of work fenced by {@code token}, in a new transaction on a connection from the
     * data source: advances the fence (one statement when the key exists), runs the work,
     * commits. If the token is stale the work is not run. If anything fails, the transaction is
     * rolled back, so neither the fence advance nor any of the work is kept. The connection's
     * auto-commit mode and isolation level are restored before it is closed.
     *
     * @param key   the protected resource's key
     * @param token the caller's fencing token, 1 or more
     * @param work  the protected writes, using the connection it is given
     * @param <T>   the work's result type
     * @return what the work returned
     * @throws JdbcStaleTokenException            if a higher token was already accepted for the key
     * @throws SerializationConflictException if the database aborted the transaction because of
     *                                        a concurrent one, or a lock wait timed out; retrying
     *                                        is safe
     * @throws FenceTableMissingException     if the fence table does not exist
     * @throws JdbcFenceException                 on any other database failure, including a
     *                                        {@link java.sql.SQLException} from the work; a
     *                                        failed commit's message says whether the outcome is
     *                                        unknown
     * @throws IllegalArgumentException       for a null, blank or too long key or a token below 1
     */
    public <T> T inTransaction(String key, long token, FencedWork<T> work) {
        Arguments.requireKey(key);
        Arguments.requireToken(key, token);
        Objects.requireNonNull(work, "work");
        T result;
        try {
            result = transactions.run(key, token, work);
        } catch (JdbcStaleTokenException | SerializationConflictException e) {
            observe("transaction", e);
            throw e;
        }
        observers.accepted("transaction");
        return result;
    }

    /**
     * Advances the fence right away in a transaction of its own: call it just after acquiring
     * the lock, so a paused former holder is cut off before this holder writes anything. If a
     * former holder's transaction has already advanced the fence and is still open, this waits
     * for it to end, then wins. That wait has no bound of its own: it lasts until the open
     * transaction ends or the database's lock wait timeout fires ({@code lock_timeout} on
     * PostgreSQL, off by default; {@code innodb_lock_wait_timeout} on MariaDB, 50 s by default),
     * which is reported as a retryable {@link SerializationConflictException}.
     *
     * @param key   the protected resource's key
     * @param token the fencing token just granted, 1 or more
     * @throws JdbcStaleTokenException            if a higher token was already accepted
     * @throws SerializationConflictException if the database aborted the transaction or its lock
     *                                        wait timed out; retry
     * @throws FenceTableMissingException     if the fence table does not exist
     * @throws JdbcFenceException                 on other database failures
     * @throws IllegalArgumentException       for a null, blank or too long key or a token below 1
     */
    public void claim(String key, long token) {
        inTransaction(key, token, c -> null);
    }

    /**
     * Advances the fence inside a transaction the caller manages, on its connection. Call it
     * before the protected writes, on the same connection. The row stays locked until the
     * caller's transaction ends. On any exception the caller must roll back its transaction
     * (Spring's {@code @Transactional} does for unchecked exceptions); nothing is rolled back
     * or committed here.
     *
     * @param connection the caller's connection with auto-commit off
     * @param key        the protected resource's key
     * @param token      the caller's fencing token, 1 or more
     * @throws IllegalStateException          if the connection is in auto-commit mode
     * @throws JdbcStaleTokenException            if a higher token was already accepted
     * @throws SerializationConflictException if the database aborted the transaction; retry
     * @throws FenceTableMissingException     if the fence table does not exist
     * @throws JdbcFenceException                 on other database failures
     * @throws IllegalArgumentException       for a null, blank or too long key or a token below 1
     */
    public void advance(Connection connection, String key, long token) {
        Objects.requireNonNull(connection, "connection");
        Arguments.requireKey(key);
        Arguments.requireToken(key, token);
        try {
            fence.advance(connection, key, token);
        } catch (JdbcStaleTokenException | SerializationConflictException e) {
            observe("advance", e);
            throw e;
        }
        observers.accepted("advance");
    }

    /** Tells the observers how a fenced call failed: stale or a retryable conflict. */
    private void observe(String operation, RuntimeException failure) {
        if (failure instanceof JdbcStaleTokenException) {
            observers.rejectedStale(operation);
        } else {
            observers.conflict(operation);
        }
    }

    /**
     * Reads the highest token accepted so far for a key, without locking, on a connection of its
     * own (so it sees only committed advances).
     *
     * @param key the protected resource's key
     * @return the stored token, or empty if no token was ever accepted for the key
     * @throws FenceTableMissingException if the fence table does not exist
     * @throws JdbcFenceException             on other database failures
     * @throws IllegalArgumentException   for a null, blank or too long key
     */
    public OptionalLong currentToken(String key) {
        Arguments.requireKey(key);
        try (Connection c = dataSource.getConnection()) {
            return fence.read(c, key);
        } catch (SQLException e) {
            throw SqlErrors.translate(config(), e, key, 0, "reading the fence");
        }
    }

    @Override
    public String toString() {
        return "JdbcFence{" + config() + "}";
    }
}
