package io.zkfence.jdbc;

/**
 * The database gave up on a statement or transaction because of a concurrent transaction, not
 * because of the token, so running the unit of work again may succeed:
 * <ul>
 *   <li>a serialization failure (PostgreSQL SQLSTATE {@code 40001}; MariaDB error 1020 under
 *       {@code innodb_snapshot_isolation}; H2 SQLSTATE {@code 40001} or error 90131) or a
 *       deadlock (SQLSTATE {@code 40P01}, MariaDB error 1213);</li>
 *   <li>a lock wait that timed out: PostgreSQL's {@code lock_timeout} (SQLSTATE {@code 55P03}),
 *       MariaDB's {@code innodb_lock_wait_timeout} (error 1205), H2's {@code LOCK_TIMEOUT} (error
 *       50200). Another transaction held the row longer than the database was told to wait; once
 *       it ends, the retry gets the lock. The message says which of the two happened.</li>
 * </ul>
 *
 * <p>This is <em>retryable</em> and is distinct from {@link JdbcStaleTokenException}: it says nothing
 * about the token. The transaction has been rolled back (or, in a caller-managed transaction, must
 * be: MariaDB rolls back only the timed-out statement), so nothing of the unit of work was
 * written, and running the whole unit of work again in a new transaction with the same token is
 * safe. The retry either succeeds or fails with a definite answer such as
 * {@link JdbcStaleTokenException}. Retry the whole transaction, never only the failed statement.
 *
 * <p>Typical causes: REPEATABLE READ or SERIALIZABLE transactions that read the fence row (or a
 * business row) before another transaction committed a change to it, two transactions creating
 * the fence row of the same brand-new key at the same time, and a former holder's transaction
 * kept open past the lock wait timeout.
 */
public final class SerializationConflictException extends JdbcFenceException {

    /**
     * Creates the exception.
     *
     * @param message     what was being done, naming the key, token and table
     * @param resourceKey the protected resource's key, or {@code null}
     * @param token       the presented token, or {@code 0}
     * @param cause       the database's error
     */
    SerializationConflictException(String message, String resourceKey, long token, Throwable cause) {
        super(message, resourceKey, token, cause);
    }
}
